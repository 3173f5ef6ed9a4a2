// Inputs the tests build: small libraries and modules, zip archives (libzip), check options.
#ifndef ABICHECK_TESTS_UNIT_TEST_INPUTS_H_
#define ABICHECK_TESTS_UNIT_TEST_INPUTS_H_

#include <zip.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "lib/elf/elf_constants.h"
#include "lib/io/blob.h"
#include "lib/io/zip_archive.h"
#include "lib/report/render.h"
#include "lib/results/results.h"
#include "lib/util/paths.h"
#include "tests/support/index_reseal.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/test_util.h"

namespace abicheck::testing {

struct Member {
  std::string name;
  std::vector<uint8_t> bytes;
  bool deflate = true;
};

// Writes a zip with libzip.
inline std::string WriteZip(const TempDir& d, const std::string& name,
                            const std::vector<Member>& members) {
  const std::string path = d.path() + "/" + name;
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  EXPECT_NE(z, nullptr);
  for (const Member& m : members) {
    zip_source_t* src = zip_source_buffer(z, m.bytes.data(), m.bytes.size(), 0);
    zip_int64_t idx = zip_file_add(z, m.name.c_str(), src, ZIP_FL_ENC_UTF_8);
    EXPECT_GE(idx, 0) << zip_strerror(z);
    zip_set_file_compression(z, idx, m.deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
  }
  EXPECT_EQ(zip_close(z), 0);
  return path;
}

inline std::vector<uint8_t> Lib(const std::string& soname, std::vector<std::string> syms) {
  ElfBuilder b;
  b.soname = soname;
  for (const std::string& s : syms) b.syms.push_back({s});
  return b.Build();
}

// `rpath`: its DT_RPATH, as auditwheel writes it to reach the vendored `<pkg>.libs/`.
inline std::vector<uint8_t> Mod(std::vector<std::string> needed, std::vector<std::string> refs,
                                const std::string& rpath = "") {
  ElfBuilder b;
  b.needed = std::move(needed);
  b.rpath = rpath;
  for (size_t i = 0; i < refs.size(); ++i) {
    b.syms.push_back({refs[i], false});
    b.relocs.push_back(static_cast<uint32_t>(i + 1));
  }
  b.syms.push_back({"PyInit_mod"});
  return b.Build();
}

inline CheckOptions NoHostOptions() {
  CheckOptions o;
  o.use_host = false;
  return o;
}

inline CheckOptions WithProviders(std::vector<std::string> p) {
  CheckOptions o;
  o.providers = std::move(p);
  return o;
}

inline std::vector<uint8_t> Read(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), {});
}

inline void Put32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); }

// Sets the uncompressed size of the first member in its local and central headers.
inline void LieAboutSize(std::vector<uint8_t>& zip, uint32_t size) {
  Put32(zip, 22, size);
  for (size_t i = 0; i + 4 < zip.size(); ++i) {
    if (zip[i] == 'P' && zip[i + 1] == 'K' && zip[i + 2] == 1 && zip[i + 3] == 2) {
      Put32(zip, i + 24, size);
      return;
    }
  }
}

}  // namespace abicheck::testing

#endif  // ABICHECK_TESTS_UNIT_TEST_INPUTS_H_
