#!/usr/bin/env python3
"""The mutation campaign (issue 17): real libraries with the bytes the loader reads mutated, each
mutant judged by abicheck (`abicheck check MUTANT`) and by the real loader (dlopen_probe, in a
process of its own as an unprivileged user, with a time limit). abicheck must never say "loads"
(exit 0) of a mutant that dlopen refuses or that crashes ld.so, never say "will not load" (exit 1)
of one that dlopen loads, and never end on a signal or an exit code it does not document. A
crash in the object's own code (a constructor the loader ran, mutated to start mid-instruction)
is counted apart: code runs as written, and abicheck never runs it. A corrupt
input abicheck refuses (exit 3) is no contradiction whatever dlopen does: a file the loader's own
checks let through by chance is still corrupt.

The mutations are deterministic (seeded) and aimed at what ld.so reads: the ELF header, the
program headers, the dynamic section, the symbol, version and hash tables and the relocations,
located through the unmutated library's section headers.
    mutation_campaign.py ABICHECK DLOPEN_PROBE [MUTANTS_PER_LIBRARY] [SEED,SEED...]"""
import collections
import os
import random
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile

abicheck, probe = sys.argv[1:3]
per_library = int(sys.argv[3]) if len(sys.argv) > 3 else 120
seeds = [int(x) for x in sys.argv[4].split(",")] if len(sys.argv) > 4 else [17]
LIBS = "/usr/lib/x86_64-linux-gnu"
# Real libraries every machine that builds abicheck has, from one symbol table to thousands of
# versioned symbols (libstdc++), with version definitions (libgcc_s) and TLS (libstdc++).
libraries = [f"{LIBS}/{n}" for n in ("libz.so.1", "liblz4.so.1", "libzstd.so.1", "libbz2.so.1.0",
                                      "libgcc_s.so.1", "libexpat.so.1", "libstdc++.so.6")]
libraries = [os.path.realpath(p) for p in libraries if os.path.exists(p)]
if len(libraries) < 3:
    print("skipped: fewer than three of the campaign's system libraries are on this machine")
    sys.exit(77)

# Only the sections the loader reads, by name; the ELF header and program headers besides.
LOADER_SECTIONS = {".dynamic", ".dynsym", ".dynstr", ".gnu.version", ".gnu.version_r",
                   ".gnu.version_d", ".gnu.hash", ".hash", ".rela.dyn", ".rela.plt",
                   ".note.gnu.property", ".tdata", ".tbss"}


def regions(data):
    """(name, start, end) of each part of DATA that ld.so reads."""
    e_phoff, e_shoff = struct.unpack_from("<QQ", data, 0x20)
    e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHHHH", data, 0x36)
    out = [("ehdr", 0, 64), ("phdrs", e_phoff, e_phoff + e_phentsize * e_phnum)]
    shdrs = [struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * e_shentsize) for i in range(e_shnum)]
    strtab = shdrs[e_shstrndx]
    for name_off, sh_type, _, _, off, size, *_ in shdrs:
        end = data.index(b"\0", strtab[4] + name_off)
        name = data[strtab[4] + name_off:end].decode()
        if name in LOADER_SECTIONS and sh_type != 8 and size:  # not SHT_NOBITS
            out.append((name, off, off + size))
    return out


INTERESTING = [0, 1, 2, 3, 4, 7, 8, 0x10, 0x7F, 0x80, 0xFF, 0x100, 0x1000, 0x7FFFFFFF, 0x80000000,
               0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 0x7FFFFFFFFFFFFFFF]


def mutate(data, rng, parts):
    """A mutant of DATA, and the names of the parts it changed."""
    b = bytearray(data)
    touched = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        name, start, end = rng.choice(parts)
        touched.append(name)
        op = rng.randrange(5)
        if op == 0:  # one byte, any value
            b[rng.randrange(start, end)] = rng.randrange(256)
        elif op == 1:  # one bit
            b[rng.randrange(start, end)] ^= 1 << rng.randrange(8)
        elif op in (2, 3):  # an aligned 4- or 8-byte field set to a boundary value
            width = 4 if op == 2 else 8
            if end - start < width:
                continue
            at = start + rng.randrange((end - start) // width) * width
            v = rng.choice(INTERESTING) & ((1 << (8 * width)) - 1)
            if rng.random() < 0.3:  # or near what was there
                v = (int.from_bytes(b[at:at + width], "little") + rng.choice((-1, 1, 8, -8))) % (1 << (8 * width))
            b[at:at + width] = v.to_bytes(width, "little")
        else:  # a 2-byte field (half words: e_type, e_phnum, st_shndx, version indices)
            if end - start < 2:
                continue
            at = start + rng.randrange((end - start) // 2) * 2
            b[at:at + 2] = rng.choice((0, 1, 2, 3, 0x7FFF, 0x8000, 0xFFFF, 0xFFF1, 0xFFF2)).to_bytes(2, "little")
    return bytes(b), touched


def limits():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


ROOT = os.getuid() == 0


def real_loader(path):
    try:
        r = subprocess.run([probe, "--", path], capture_output=True, text=True, timeout=10,
                           preexec_fn=limits, env={"PATH": "/usr/bin:/bin"}, errors="replace",
                           **({"user": 65534, "group": 65534, "extra_groups": []} if ROOT else {}))
    except subprocess.TimeoutExpired:
        return "hung", ""
    out = r.stdout.strip()
    if r.returncode == 0:
        return "loaded", ""
    if out.startswith("loaded"):
        # dlopen returned; a destructor crashed at exit (DT_FINI, DT_FINI_ARRAY), or ld.so's
        # _dl_fini stopped on an assertion.
        return "loaded, crashed at exit", (out.splitlines()[-1] + " " + r.stderr.strip())[:200]
    if "crashed (signal" in out:
        # The probe's fault handler says where: in ld.so, the loader's own verdict; anywhere else,
        # in code the loader ran for the object (a constructor, a resolver) — which runs as
        # written and is not the loader's rule (docs/loader-model.md, "Deliberately not
        # modelled").
        # A jump to where nothing is mapped counts as the code's too: with seeds 17-21 the only
        # such crash after a "loads" (at 0x92) was in a mutant whose function was retyped
        # STT_GNU_IFUNC, which the loader runs as that symbol's resolver.
        line = out.splitlines()[-1]
        return ("crashed in ld.so" if "/ld-linux" in line else "crashed in its code"), line
    if r.returncode < 0:
        return "crashed in ld.so", signal.Signals(-r.returncode).name
    return "failed", (out or r.stderr.strip())


def ours(path):
    try:
        r = subprocess.run([abicheck, "check", path, "--host-only", "--no-diagnose", "--color=never"],
                           capture_output=True, text=True, timeout=60, errors="replace")
    except subprocess.TimeoutExpired:
        return "hung", ""
    verdict = {0: "loads", 1: "fails", 3: "input error"}.get(r.returncode, f"exit {r.returncode}")
    return verdict, (r.stdout + r.stderr).strip().splitlines()[:3]


work = tempfile.mkdtemp(prefix="abicheck-mutants-")
os.chmod(work, 0o755)  # the unprivileged probe reads the mutants and runs from here
shutil.copy(probe, os.path.join(work, "dlopen_probe"))
probe = os.path.join(work, "dlopen_probe")
table = collections.Counter()
contradictions = []
try:
    for seed, lib in [(seed, lib) for seed in seeds for lib in libraries]:
        rng = random.Random(f"{seed}:{os.path.basename(lib)}")
        data = open(lib, "rb").read()
        parts = regions(data)
        for i in range(per_library):
            mutant, touched = mutate(data, rng, parts)
            if mutant == data:
                continue
            path = os.path.join(work, f"{os.path.basename(lib)}.{seed}.{i}")
            with open(path, "wb") as f:
                f.write(mutant)
            os.chmod(path, 0o644)
            verdict, said = ours(path)
            real, why = real_loader(path)
            table[(verdict, real)] += 1
            bad = (verdict not in ("loads", "fails", "input error")
                   or (verdict == "loads" and real in ("failed", "crashed in ld.so", "hung"))
                   or (verdict == "fails" and real.startswith("loaded")))
            if bad:
                keep = os.path.join(work, "contradiction", os.path.basename(path))
                os.makedirs(os.path.dirname(keep), exist_ok=True)
                shutil.copyfile(path, keep)
                contradictions.append((path, verdict, said, real, why, touched))
            os.unlink(path)
except BaseException:
    print(f"stopped; the mutants are in {work}")
    raise
print(f"{sum(table.values())} mutants of {len(libraries)} real libraries "
      f"(seeds {', '.join(map(str, seeds))}):")
for (verdict, real), n in sorted(table.items()):
    print(f"  abicheck {verdict:12} dlopen {real:24} {n}")
for path, verdict, said, real, why, touched in contradictions:
    print(f"CONTRADICTION {os.path.basename(path)} ({', '.join(touched)} mutated): abicheck {verdict} "
          f"{said}; dlopen {real}: {why}")
if contradictions:
    print(f"{len(contradictions)} contradictions; the mutants are kept in {work}/contradiction")
    sys.exit(1)
shutil.rmtree(work)
print("no contradictions")
