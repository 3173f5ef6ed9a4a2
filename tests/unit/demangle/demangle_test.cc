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

// `symbols -C`'s demangler is binutils' own: the spellings DemangleView rewrites LLVM's text
// into come from it as they are, and so do the ones no rewriting covered (a function's address as
// a template argument, in CUDA kernels' names). Rust and C names as nm writes them. A name too
// long for libiberty's stack-held parse is not demangled there (no crash).
TEST(DemangleLikeNmTest, BinutilsText) {
  EXPECT_EQ(DemangleLikeNm("_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib"),
            "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)");
  EXPECT_EQ(DemangleLikeNm("_ZlsIfERSoS0_RKSt7complexIT_E"),
            "std::ostream& operator<< <float>(std::ostream&, std::complex<float> const&)");
  // From libtorch_cuda.so: LLVM 14 writes &(at::native::heaviside_kernel_cuda(at::TensorIt...)).
  EXPECT_EQ(DemangleLikeNm("_ZN2at6native15gpu_kernel_implINS0_13AUnaryFunctorIN3c104HalfES4_S4_"
                           "18__nv_hdl_wrapper_tILb0ELb1ELb0E11__nv_dl_tagIPFvRNS_"
                           "18TensorIteratorBaseEEXadL_ZNS0_21heaviside_kernel_cudaES8_EELj8EEFS4_"
                           "S4_S4_EJEEEEEEvS8_RKT_"),
            "void at::native::gpu_kernel_impl<at::native::AUnaryFunctor<c10::Half, c10::Half, "
            "c10::Half, __nv_hdl_wrapper_t<false, true, false, __nv_dl_tag<void "
            "(*)(at::TensorIteratorBase&), &at::native::heaviside_kernel_cuda, 8u>, c10::Half "
            "(c10::Half, c10::Half)> > >(at::TensorIteratorBase&, at::native::AUnaryFunctor<"
            "c10::Half, c10::Half, c10::Half, __nv_hdl_wrapper_t<false, true, false, __nv_dl_tag<"
            "void (*)(at::TensorIteratorBase&), &at::native::heaviside_kernel_cuda, 8u>, c10::Half "
            "(c10::Half, c10::Half)> > const&)");
  EXPECT_EQ(DemangleLikeNm("_ZZ1fvE1x"), "f()::x");
  EXPECT_EQ(DemangleLikeNm("_RNvCs1234_7mycrate3foo"), "mycrate::foo");
  EXPECT_EQ(DemangleLikeNm("_ZN4core3fmt5write17h0123456789abcdefE"), "core::fmt::write");
  EXPECT_EQ(DemangleLikeNm("cuInit"), "cuInit");
  EXPECT_EQ(DemangleLikeNm("_Znot_mangled"), "_Znot_mangled");
  std::string huge = "_ZN";
  for (int i = 0; i < 100000; ++i) huge += "1a";
  huge += "E";
  EXPECT_FALSE(DemangleLikeNm(huge).empty());
}

TEST(DemangleTest, Rust) { EXPECT_EQ(Demangle("_RNvCs1234_7mycrate3foo"), "mycrate::foo"); }

// Issue 37: a template argument list nested 30,000 deep (120 KB) overflowed the stack of LLVM's
// demangler (exit 139 in check, symbols -C, index, diff, env). It is demangled on a stack that
// grows with the name; past 1 MB a name is left mangled.
TEST(DemangleTest, ANameNestedThirtyThousandDeepDoesNotCrash) {
  std::string deep = "_Z1fI";
  for (int i = 0; i < 30000; ++i) deep += "1AI";
  deep += "i";
  for (int i = 0; i < 30000; ++i) deep += "E";
  deep += "Evv";
  const std::string text = Demangle(deep);
  EXPECT_EQ(text.substr(0, 16), "void f<A<A<A<A<A") << text.substr(0, 64);
  EXPECT_EQ(DemangleLikeNm(deep).substr(0, 16), "void f<A<A<A<A<A");
  FunctionParts parts;
  EXPECT_TRUE(SplitFunction(deep, &parts));
  EXPECT_EQ(parts.base, "f");
  std::string over = "_Z1fI";
  for (int i = 0; i < 300000; ++i) over += "1AI";
  over += "iEvv";
  EXPECT_EQ(Demangle(over), over);
  EXPECT_FALSE(SplitFunction(over, &parts));
}

}  // namespace
}  // namespace abicheck
