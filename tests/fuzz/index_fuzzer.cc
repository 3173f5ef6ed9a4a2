// Fuzzes index files: the table of contents, the stored header ranges, the name section (Bloom
// filter, entry lists, separators, LZ4 blocks) read lazily by lookups, and the base-name section
// the diagnosis reads. The size and
// checksum fields, the blocks' own included, are fixed up first, so that mutations reach the
// parsers behind the checksums.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "lib/index/index_file.h"
#include "lib/index/index_layout.h"
#include "lib/symbols/source_names.h"
#include "lib/symbols/symbol_table.h"
#include "tests/support/index_reseal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < abicheck::index_layout::kFileHeaderSize || size > (64u << 20)) return 0;
  std::vector<uint8_t> b(data, data + size);
  abicheck::testing::ResealIndex(b);
  static const std::string path =
      "/dev/shm/abicheck_index_fuzz_" + std::to_string(getpid()) + ".abix";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(b.data(), 1, b.size(), f);
  std::fclose(f);
  absl::StatusOr<std::vector<abicheck::IndexedBuild>> builds = abicheck::ReadIndex(path);
  if (!builds.ok()) return 0;
  for (const abicheck::IndexedBuild& build : *builds) {
    for (const abicheck::InputFile& in : build.objects) {
      absl::StatusOr<abicheck::ParsedElf> p = abicheck::ParseElf(in);
      if (!p.ok()) continue;
      const abicheck::SymbolTable& t = *p->syms;
      // Every name the library lists, looked up again as the loader would, plus two it lacks.
      std::vector<std::string> names{"a", "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib"};
      t.ForEachSymbol([&](const abicheck::Symbol& s) {
        if (names.size() < 256) names.emplace_back(s.name);
      });
      for (const std::string& n : names) {
        t.ForEachNamed(abicheck::HashedName(n), [&](uint32_t i) {
          std::optional<abicheck::Symbol> s = t.Get(i);
          (void)t.Versym(i);
          (void)t.Slot(t.Versym(i));
          return s && s->name != n;  // a hit must carry its own name: keep walking otherwise
        });
      }
      (void)t.StringAbiMarkers();
      if (t.external()) {
        // The base-name buckets, as the diagnosis asks them, for every base name of those names.
        const abicheck::ExternalLibrary& ext = t.external_library();
        for (const std::string& n : names) {
          abicheck::ForEachSourceName(n, [&](absl::string_view token) {
            if (!abicheck::MayBeBaseName(n, token)) return;
            ext.symbols->ForEachWithBaseName(
                ext.library, abicheck::SourceNameHash(token),
                [&](uint32_t handle, uint32_t) { (void)ext.symbols->Get(handle); });
          });
        }
        (void)ext.symbols->status();
      }
    }
  }
  return 0;
}
