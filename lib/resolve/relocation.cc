// Relocation, the last phase of dl_open_worker: every reference of every new object,
// dependencies first, looked up in the relocation scope (docs/loader-model.md §A, B7).

#include <algorithm>
#include <atomic>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/demangle/demangle.h"
#include "lib/elf/elf_constants.h"
#include "lib/resolve/loader.h"
#include "lib/resolve/world_internal.h"
#include "lib/util/status_macros.h"

namespace abicheck {

namespace {

bool IsInterpreterSymbol(absl::string_view name) {
  return absl::StartsWith(name, "Py") || absl::StartsWith(name, "_Py");
}

// A function a relocation binds to must be code of its object: the loader stores its address for
// calls, wherever it points (docs/loader-model.md B7). Outside, the file is corrupt.
absl::Status CheckDefinitionAddress(const ElfFile& elf, const Symbol& def) {
  // Undefined, absolute, common or an extended index (the reserved range): no address to judge.
  if (def.shndx == elf::SHN_UNDEF || def.shndx >= 0xff00) return absl::OkStatus();
  if (def.value == 0 && def.type() != elf::STT_TLS && def.type() != elf::STT_SECTION) {
    // Address 0 is the ELF header: no definition lives there.
    return absl::DataLossError(absl::StrFormat(
        "%s: .dynsym: %s is defined at address 0, the ELF header", elf.name(), def.name));
  }
  if (def.type() != elf::STT_FUNC && def.type() != elf::STT_GNU_IFUNC) return absl::OkStatus();
  if (elf.Maps(def.value, 1, elf::PF_X)) return absl::OkStatus();
  return absl::DataLossError(
      absl::StrFormat("%s: .dynsym: function %s at 0x%x is outside the "
                      "object's code",
                      elf.name(), def.name, def.value));
}

// Relocation: every reference of every new object, dependencies first, looked up in the scope as
// elf_machine_rela's RESOLVE_MAP does (docs/loader-model.md §A, B7).
class Relocation {
 public:
  // `only`: the objects to relocate, in order, loaded before or not (E2a); nullptr: the new
  // objects of `searchlist`, in RelocationOrder.
  Relocation(const Loader& loader, const std::vector<const Object*>& scope,
             const std::vector<const Object*>& searchlist, const LoadOptions& options,
             LoadFindings* report, const std::vector<const Object*>* only = nullptr)
      : loader_(loader),
        scope_(scope),
        searchlist_(searchlist),
        module_(searchlist.front()),
        options_(options),
        report_(*report),
        only_(only) {}

  absl::StatusOr<std::vector<LoadFailure>> Run() {
    for (const Object* o : only_ != nullptr ? *only_ : RelocationOrder(searchlist_, options_)) {
      if (only_ == nullptr && o->preexisting) continue;
      const std::shared_ptr<const References> refs = ReferencesOf(*o->syms);
      if (!refs->status.ok()) return refs->status;
      for (size_t k = 0; k < refs->refs.size(); ++k) {
        const Reference& ref = refs->refs[k];
        if (ref.symbol != 0) {  // (0: a relocation that names no symbol, where ld.so stops)
          ABICHECK_RETURN_IF_ERROR(
              CheckReference(o, ref, refs->symbols[k], refs->gnu[k], &refs->sysv[k]));
        }
        if (ref.stop == Reference::Stop::kNone) continue;
        // A relocation ld.so cannot apply (B7): nothing after it is relocated.
        const bool assertion = ref.stop == Reference::Stop::kRelativeAssertion;
        AddRefusal(&problems_,
                   assertion ? FailureKind::kLoaderAssertion : FailureKind::kNotLoadable, o->path,
                   assertion ? RelocationStopMessage(ref)
                             : absl::StrCat(o->path, ": ", RelocationStopMessage(ref)));
        return std::move(problems_);
      }
    }
    return std::move(problems_);
  }

 private:
  // E8: how the module itself uses torch.
  void CountTorchUse(const Symbol& sym) {
    if (IsTorchShimName(sym.name)) {
      ++report_.torch_shim_references;
    } else if (IsTorchCxxName(sym.name)) {
      if (report_.torch_cxx_references++ < 3)
        report_.torch_cxx_examples.push_back(Demangle(sym.name));
    }
  }

  // An object's references, decoded and validated once per call when the checks share parses,
  // with the symbol each names and that name's GNU hash (and its SysV hash once a lookup asks
  // for it: HashedName): a module checked against many builds looks the same names up once per
  // build.
  struct References {
    absl::Status status;
    std::vector<Reference> refs;
    std::vector<Symbol> symbols;  // refs[k]'s symbol (GetOrEmpty)
    std::vector<uint32_t> gnu;    // its name's GNU hash
    // Its SysV hash, made when first asked for (checks on other threads may ask): the memo is
    // shared as const, its atomics are not.
    std::unique_ptr<std::atomic<uint64_t>[]> sysv;
  };
  static std::shared_ptr<const References> Prepare(const SymbolTable& t) {
    auto out = std::make_shared<References>();
    absl::StatusOr<std::vector<Reference>> refs = t.References();
    if (!refs.ok()) {
      out->status = refs.status();
      return out;
    }
    out->refs = *std::move(refs);
    out->symbols.reserve(out->refs.size());
    out->gnu.reserve(out->refs.size());
    for (const Reference& r : out->refs) {
      out->symbols.push_back(t.GetOrEmpty(r.symbol));
      out->gnu.push_back(GnuHash(out->symbols.back().name));
    }
    out->sysv = std::make_unique<std::atomic<uint64_t>[]>(out->refs.size());
    return out;
  }
  std::shared_ptr<const References> ReferencesOf(const SymbolTable& t) const {
    ParseCache* shared = loader_.shared_parses();
    if (shared == nullptr) return Prepare(t);
    std::shared_ptr<const void>& slot = shared->Memo(&t, ParseCache::MemoKind::kReferences);
    if (slot == nullptr) slot = Prepare(t);
    return std::static_pointer_cast<const References>(slot);
  }

  absl::Status CheckReference(const Object* o, const Reference& ref, const Symbol& sym,
                              uint32_t gnu, std::atomic<uint64_t>* sysv) {
    if (o == module_ && sym.shndx == elf::SHN_UNDEF && !sym.name.empty()) CountTorchUse(sym);
    if (sym.name.empty()) {
      return absl::DataLossError(absl::StrFormat(
          "%s: .dynsym entry %u: name offset is outside .dynstr", o->path, ref.symbol));
    }
    // elf_machine_rela: local symbols and hidden/internal ones bind to themselves, no lookup.
    if (sym.bind() == elf::STB_LOCAL || sym.visibility() == elf::STV_HIDDEN ||
        sym.visibility() == elf::STV_INTERNAL) {
      if (sym.shndx != elf::SHN_UNDEF) return CheckDefinitionAddress(*o->elf, sym);
      // Bound to itself though undefined: to the object's own address st_value (B7).
      return absl::DataLossError(absl::StrFormat(
          "%s: .dynsym: %s is undefined but %s: the loader binds it to the object's address 0x%x",
          o->path, sym.name, sym.bind() == elf::STB_LOCAL ? "local" : "hidden", sym.value));
    }
    ++report_.references_checked;
    std::optional<WantedVersion> want = WantedVersionOf(*o->syms, ref.symbol);
    const HashedName name(sym.name, gnu, sysv);
    bool asserts = false;
    std::optional<Binding> b =
        loader_.Lookup(scope_, name, want ? &*want : nullptr, ref.plt_class, &asserts);
    if (asserts) {
      AddRefusal(&problems_, FailureKind::kLoaderAssertion, o->path,
                 "Inconsistency detected by ld.so: dl-lookup.c: 107: check_match: Assertion "
                 "`version->filename == NULL || ! _dl_name_match_p (version->filename, map)' "
                 "failed!");
      problems_.back().symbol = std::string(sym.name);
      problems_.back().demangled = Demangle(sym.name);
      if (want) problems_.back().version = std::string(want->name);
      return absl::OkStatus();
    }
    if (b) return CheckBinding(o, sym, *b);
    Unresolved(o, sym, want);
    return absl::OkStatus();
  }

  absl::Status CheckBinding(const Object* o, const Symbol& sym, const Binding& b) {
    if (!b.object->not_the_installs.empty()) {  // E12
      std::vector<const Object*>& past = report_.not_the_installs;
      if (std::find(past.begin(), past.end(), b.object) == past.end()) past.push_back(b.object);
    }
    if (!b.object->syms->external())  // an index keeps no addresses
      ABICHECK_RETURN_IF_ERROR(CheckDefinitionAddress(*b.object->elf, b.symbol));
    const bool ref_tls = sym.type() == elf::STT_TLS, def_tls = b.symbol.type() == elf::STT_TLS;
    if (sym.type() != elf::STT_NOTYPE && ref_tls != def_tls) {
      report_.warnings.push_back(
          {o->path, absl::StrCat("symbol ", sym.name, ": ", ref_tls ? "TLS" : "non-TLS",
                                 " reference bound to a ", def_tls ? "TLS" : "non-TLS",
                                 " definition in ", b.object->path)});
    }
    return absl::OkStatus();
  }

  // Which library loaded with the providers but not among the files (C2a) a reference nothing
  // defines may be left to: the first such that is not the GPU driver, whose reference then
  // makes the verdict unknown (C2c); else, for a C name, a GPU driver's library (libcuda.so.1:
  // cu*, cudbg*; libnvidia-ml.so.1: nvml*), which export C APIs alone and so never a C++ name
  // (C2b); nullptr when none may
  // define it — the reference fails, as it will on the machine that has every library.
  const std::string* AssumedDefiner(absl::string_view name) const {
    const std::string* driver = nullptr;
    for (const std::string& a : loader_.assumed_used()) {
      if (IsInterpreterLibrary(a)) continue;  // its Py* names were left to it before (E5a)
      if (!IsGpuDriverLibrary(a)) return &a;
      if (!absl::StartsWith(name, "_Z")) driver = &a;
    }
    return driver;
  }

  // A reference no object of the scope defines.
  void Unresolved(const Object* o, const Symbol& sym, const std::optional<WantedVersion>& want) {
    if (sym.bind() == elf::STB_WEAK) {
      ++report_.weak_unresolved;
      return;
    }
    if (options_.python.empty() && IsInterpreterSymbol(sym.name)) {
      ++report_.interpreter_symbols;
      return;
    }
    if (const std::string* definer = AssumedDefiner(sym.name)) {
      if (IsGpuDriverLibrary(*definer)) {
        ++report_.driver_references;  // (C2b)
        return;
      }
      ++report_.unverified_references;  // (C2a, C2c): any of them may define it
      for (const std::string& a : loader_.assumed_used()) {
        if (!IsGpuDriverLibrary(a) && !IsInterpreterLibrary(a) &&
            std::find(report_.unknown_because.begin(), report_.unknown_because.end(), a) ==
                report_.unknown_because.end())
          report_.unknown_because.push_back(a);
      }
      return;
    }
    LoadFailure p;
    p.kind = FailureKind::kUndefinedSymbol;
    p.object = o->path;
    p.symbol = std::string(sym.name);
    p.demangled = Demangle(sym.name);
    if (want) p.version = std::string(want->name);
    p.message = absl::StrCat(o->path, ": undefined symbol: ", sym.name,
                             want ? absl::StrCat(", version ", want->name) : "");
    problems_.push_back(std::move(p));
  }

  const Loader& loader_;
  const std::vector<const Object*>& scope_;
  const std::vector<const Object*>& searchlist_;
  const Object* module_;
  const LoadOptions& options_;
  LoadFindings& report_;
  const std::vector<const Object*>* only_;
  std::vector<LoadFailure> problems_;
};

}  // namespace

absl::StatusOr<std::vector<LoadFailure>> Relocate(const Loader& loader,
                                                  const std::vector<const Object*>& scope,
                                                  const std::vector<const Object*>& searchlist,
                                                  const LoadOptions& options,
                                                  LoadFindings* report) {
  return Relocation(loader, scope, searchlist, options, report).Run();
}

absl::StatusOr<std::vector<LoadFailure>> RelocateObjects(
    const Loader& loader, const std::vector<const Object*>& scope,
    const std::vector<const Object*>& searchlist, const std::vector<const Object*>& objects,
    const LoadOptions& options, LoadFindings* report) {
  return Relocation(loader, scope, searchlist, options, report, &objects).Run();
}

}  // namespace abicheck
