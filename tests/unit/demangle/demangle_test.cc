// The demangler: binutils' text (nm -C), C++ and Rust.

#include "lib/demangle/demangle.h"

#include "abicheck/abicheck.h"
#include "gtest/gtest.h"

namespace abicheck {
namespace {

TEST(DemangleTest, HeadlineSymbol) {
  EXPECT_EQ(Demangle("_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib"),
            "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)");
  EXPECT_EQ(Demangle("puts"), "puts");
  EXPECT_EQ(Demangle("_Znot valid"), "_Znot valid");
}

// Issue 15: the text is binutils' (`nm -C`, c++filt) where LLVM 14's differs.
TEST(DemangleTest, MatchesBinutils) {
  const std::pair<const char*, const char*> cases[] = {
      {"_ZGTtNKSt9exception4whatEv", "transaction clone for std::exception::what() const"},
      {"_ZStlsIfcSt11char_traitsIcEERSt13basic_ostreamIT0_T1_ES6_RKSt7complexIT_E",
       "std::basic_ostream<char, std::char_traits<char> >& std::operator<< <float, char, "
       "std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, "
       "std::complex<float> const&)"},
      {"_ZltIiEbii", "bool operator< <int>(int, int)"},
      {"_ZNSt8ios_base7failureB5cxx11D1Ev", "std::ios_base::failure[abi:cxx11]::~failure()"},
      {"_ZZN2at12PTThreadPoolC4EiiENKUlvE_clEv",
       "at::PTThreadPool::PTThreadPool(int, int)::{lambda()#1}::operator()() const"},
      {"_ZZN2at12PTThreadPoolC4EiiENKUlvE0_clEv",
       "at::PTThreadPool::PTThreadPool(int, int)::{lambda()#2}::operator()() const"},
      {"_ZN1AUt0_E", "A::{unnamed type#2}"},
      {"_ZNSolsEDn", "std::ostream::operator<<(decltype(nullptr))"},
      // Only `Dn` is written so: a type spelled std::nullptr_t stays as binutils writes it.
      {"_Z1fSt9nullptr_t", "f(std::nullptr_t)"},
      {"_ZTHN3c104impl26raw_local_dispatch_key_setE",
       "TLS init function for c10::impl::raw_local_dispatch_key_set"},
      {"_ZZN6fbgemm18cblas_gemm_computeItEEvNS_11matrix_op_tEiPKfRKNS_17PackedGemmMatrixBIT_NS_"
       "13TypeConverterIS5_EEEEfPfiiE10scratchpad",
       "fbgemm::cblas_gemm_compute<unsigned short>(fbgemm::matrix_op_t, int, float const*, "
       "fbgemm::PackedGemmMatrixB<unsigned short, fbgemm::TypeConverter<unsigned short> > "
       "const&, float, float*, int, int)::scratchpad"},
      {"_ZGVZN6fbgemm18cblas_gemm_computeItEEvNS_11matrix_op_tEiPKfRKNS_17PackedGemmMatrixBIT_"
       "NS_13TypeConverterIS5_EEEEfPfiiE10scratchpad",
       "guard variable for fbgemm::cblas_gemm_compute<unsigned short>(fbgemm::matrix_op_t, int, "
       "float const*, fbgemm::PackedGemmMatrixB<unsigned short, fbgemm::TypeConverter<unsigned "
       "short> > const&, float, float*, int, int)::scratchpad"},
      // Left as they were: no return type to drop, an operator that is not a template.
      {"_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib",
       "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)"},
      {"_ZNSolsEi", "std::ostream::operator<<(int)"},
      {"_ZIiEvv", "_ZIiEvv"},
  };
  for (const auto& [mangled, text] : cases) EXPECT_EQ(Demangle(mangled), text) << mangled;
}

TEST(DemangleTest, Rust) { EXPECT_EQ(Demangle("_RNvCs1234_7mycrate3foo"), "mycrate::foo"); }

}  // namespace
}  // namespace abicheck
