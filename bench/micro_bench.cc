// Google Benchmark micro benchmarks for the pipeline's stages on real libraries:
//   ABICHECK_BENCH_LIB   a large library (default: libtorch_cuda from the corpus, else libcublasLt)
//   ABICHECK_BENCH_MODULE / ABICHECK_BENCH_BUILD   a module and a build directory for whole checks
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "abicheck/abicheck.h"
#include "lib/demangle/demangle.h"
#include "lib/elf/elf_file.h"
#include "lib/io/mapped_file.h"
#include "lib/symbols/symbol_table.h"

namespace {

std::string Env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

std::string BenchLib() {
  std::string corpus =
      ABICHECK_CORPUS_DIR "/sid/libtorch-cuda-2.6/usr/lib/x86_64-linux-gnu/libtorch_cuda.so.2.6.0";
  if (!std::filesystem::exists(corpus)) corpus = "/usr/local/cuda/lib64/libcublasLt.so.13";
  return Env("ABICHECK_BENCH_LIB", corpus);
}

// Headers, PT_DYNAMIC, symbol/version/hash tables: what opening a provider costs.
void BM_OpenLibrary(benchmark::State& state) {
  const std::string path = BenchLib();
  for (auto _ : state) {
    absl::StatusOr<abicheck::MappedFile> f = abicheck::MappedFile::Open(path);
    absl::StatusOr<abicheck::ElfFile> elf = abicheck::ElfFile::Parse(path, f->bytes());
    absl::StatusOr<abicheck::SymbolTable> t = abicheck::SymbolTable::Read(*elf);
    benchmark::DoNotOptimize(t->size());
  }
}
BENCHMARK(BM_OpenLibrary)->Unit(benchmark::kMicrosecond);

// One lookup through the library's own DT_GNU_HASH: the loader's cost per reference.
void BM_HashLookup(benchmark::State& state) {
  const std::string path = BenchLib();
  absl::StatusOr<abicheck::MappedFile> f = abicheck::MappedFile::Open(path);
  absl::StatusOr<abicheck::ElfFile> elf = abicheck::ElfFile::Parse(path, f->bytes());
  absl::StatusOr<abicheck::SymbolTable> t = abicheck::SymbolTable::Read(*elf);
  std::vector<std::string> names;
  for (uint32_t i = 1; i < t->size() && names.size() < 4096; i += 7)
    names.emplace_back(t->GetOrEmpty(i).name);
  size_t k = 0, found = 0;
  for (auto _ : state) {
    abicheck::HashedName h(names[k++ % names.size()]);
    t->ForEachNamed(h, [&](uint32_t) { return ++found, true; });
  }
  benchmark::DoNotOptimize(found);
}
BENCHMARK(BM_HashLookup);

// Every dynamic symbol, read and demangled: `abicheck symbols -C`'s work.
void BM_ListAndDemangle(benchmark::State& state) {
  const std::string path = BenchLib();
  abicheck::SymbolListOptions o;
  o.demangle = state.range(0) != 0;
  for (auto _ : state) {
    size_t bytes = 0;
    const absl::Status s =
        abicheck::ListSymbolsTo(path, o, [&](absl::string_view chunk) { bytes += chunk.size(); });
    benchmark::DoNotOptimize(bytes);
    benchmark::DoNotOptimize(s.ok());
  }
}
BENCHMARK(BM_ListAndDemangle)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Checks torchvision's _C.so (or $ABICHECK_BENCH_MODULE) against `providers` until timed out.
void RunChecks(benchmark::State& state, const std::string& module, const std::string& providers) {
  abicheck::CheckOptions o;
  o.providers = {providers};
  o.diagnose = state.range(0) != 0;
  for (auto _ : state) {
    absl::StatusOr<abicheck::Report> r = abicheck::Check(module, o);
    benchmark::DoNotOptimize(r->problems.size());
  }
}

// The module and a build from the corpus, or nullopt (and the benchmark skipped) without it.
std::optional<std::pair<std::string, std::string>> CorpusPair(benchmark::State& state,
                                                              const char* build_var,
                                                              const std::string& build_default) {
  const std::string module = Env("ABICHECK_BENCH_MODULE", ABICHECK_CORPUS_DIR
                                 "/trixie/python3-torchvision/usr/lib/python3/"
                                 "dist-packages/torchvision/_C.cpython-313-x86_64-linux-gnu.so");
  const std::string build = Env(build_var, build_default);
  if (!std::filesystem::exists(module) || !std::filesystem::exists(build)) {
    state.SkipWithError("corpus not fetched (bench/fetch-corpus.sh)");
    return std::nullopt;
  }
  return std::make_pair(module, build);
}

// A whole check, with and without the diagnosis (issue: diagnosis within 2x of the plain check).
void BM_CheckModule(benchmark::State& state) {
  auto in = CorpusPair(state, "ABICHECK_BENCH_BUILD",
                       ABICHECK_CORPUS_DIR "/sid/libtorch2.14/usr/lib/x86_64-linux-gnu");
  if (in) RunChecks(state, in->first, in->second);
}
BENCHMARK(BM_CheckModule)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// A check against an index of the CUDA build, in process: what remains of `abicheck MODULE
// INDEX` once process start-up is taken away. The index is built once, outside the timing.
void BM_CheckAgainstIndex(benchmark::State& state) {
  auto in = CorpusPair(state, "ABICHECK_BENCH_INDEX_BUILD",
                       ABICHECK_CORPUS_DIR "/sid/libtorch-cuda-2.6/usr/lib/x86_64-linux-gnu");
  if (!in) return;
  const std::string index =
      (std::filesystem::temp_directory_path() / "abicheck-bench.abix").string();
  absl::StatusOr<abicheck::IndexSummary> built =
      abicheck::BuildIndex({in->second}, {"cuda"}, index, abicheck::InputLimits{});
  if (!built.ok()) {
    state.SkipWithError(std::string(built.status().message()).c_str());
    return;
  }
  RunChecks(state, in->first, index);
  std::filesystem::remove(index);
}
BENCHMARK(BM_CheckAgainstIndex)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
