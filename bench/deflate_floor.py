#!/usr/bin/env python3
"""What any reader that is sure of its bytes must fetch of a build's wheels (issue 33's "bytes
read per torch build"), beside what abicheck fetches.

Deflate has no index: a byte's place in a member is known only by decoding from the member's
start to it, or from a block boundary before it to the member's end (whose place the declared size
gives; lib/io/deflate_tail.h). Decoding from a boundary in the middle gives bytes but not where
they are: content that looks like a dynamic section could be a copy of one. So each range the
loader reads costs at least the compressed bytes from the stream's start to the range's end, or
from the range's start to the stream's end. For each shared object of each wheel this script
inflates the member, takes the ranges of its loader tables (the ELF and program headers, and the
allocated sections of types dynamic, dynsym, dynstr, hash, GNU hash, versym, verneed, verdef and
RELA: a subset of what the loader reads, so the figure is a lower bound), maps uncompressed
offsets to compressed ones as zlib decodes the member, and sums, per member, the cheapest split of
its ranges between the two ways — the floor. Nothing here runs abicheck; bench/http-bytes.sh
measures what it fetches.

  bench/deflate_floor.py TORCH.whl [WHEEL...]   # the wheels of one build (its pinned wheels)
  bench/deflate_floor.py --build TORCH.whl --wheels DIR --notes CHECK.json
                           # the pinned wheels named by a check's "laid out with" note, from DIR
(bench/http-bytes.sh prints the floor beside what abicheck fetched.)
"""
import argparse
import bisect
import json
import pathlib
import re
import struct
import zipfile
import zlib

TABLE_TYPES = {4, 5, 6, 11, 0x6ffffff6, 0x6ffffffd, 0x6ffffffe, 0x6fffffff}
SHF_ALLOC = 2
SHT_STRTAB = 3
SHT_DYNSYM = 11


def loader_ranges(elf):
    """The byte ranges of the loader tables of a 64-bit little-endian ELF file (or None)."""
    if len(elf) < 64 or elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        return None
    phoff, shoff = struct.unpack_from("<QQ", elf, 32)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", elf, 54)
    ranges = [(0, min(len(elf), max(64, phoff + phentsize * phnum)))]
    sections = []
    for i in range(shnum):
        at = shoff + i * shentsize
        if at + 64 > len(elf):
            break
        _, stype, flags, _, offset, size, link = struct.unpack_from("<IIQQQQI", elf, at)
        sections.append((stype, flags, offset, size, link))
    dynstr = {s[4] for s in sections if s[0] == SHT_DYNSYM}
    for i, (stype, flags, offset, size, _) in enumerate(sections):
        table = stype in TABLE_TYPES or (stype == SHT_STRTAB and i in dynstr)
        if table and flags & SHF_ALLOC and size and offset + size <= len(elf):
            ranges.append((offset, offset + size))
    return sorted(ranges)


def offsets_map(zf, info):
    """(uncompressed produced, compressed consumed) after each 64 KiB of compressed input."""
    raw = zf.fp
    raw.seek(info.header_offset)
    header = raw.read(30)
    name_len, extra_len = struct.unpack_from("<HH", header, 26)
    raw.seek(info.header_offset + 30 + name_len + extra_len)
    d = zlib.decompressobj(-15)
    out, produced, consumed, marks = bytearray(), 0, 0, [(0, 0)]
    left = info.compress_size
    while left:
        chunk = raw.read(min(65536, left))
        if not chunk:
            break
        left -= len(chunk)
        data = d.decompress(chunk)
        out += data
        produced += len(data)
        consumed += len(chunk)
        marks.append((produced, consumed))
    out += d.flush()
    return bytes(out), marks


def member_floor(zf, info):
    """(floor bytes, compressed size) of one member; a stored member costs its ranges."""
    if info.compress_type == zipfile.ZIP_STORED:
        elf = zf.read(info)
        ranges = loader_ranges(elf)
        return (sum(e - b for b, e in ranges) if ranges else 0), info.compress_size
    elf, marks = offsets_map(zf, info)
    ranges = loader_ranges(elf)
    if not ranges:
        return 0, info.compress_size
    produced = [m[0] for m in marks]
    total = info.compress_size

    def comp_at(u, upper):  # compressed bytes consumed when the output reached u
        i = bisect.bisect_left(produced, u)
        if upper:
            return marks[min(i, len(marks) - 1)][1]
        return marks[max(i - 1, 0)][1]

    best = None
    for k in range(len(ranges) + 1):  # ranges[:k] from the start, ranges[k:] from the end
        front = comp_at(max(e for _, e in ranges[:k]), True) if k else 0
        back = total - comp_at(min(b for b, _ in ranges[k:]), False) if k < len(ranges) else 0
        cost = min(total, front + back)
        best = cost if best is None else min(best, cost)
    return best, total


def shared_objects(zf):
    return [i for i in zf.infolist() if not i.is_dir() and
            (i.filename.endswith(".so") or ".so." in i.filename.rsplit("/", 1)[-1])]


def build_floor(wheels):
    floor = size = 0
    rows = []
    for w in wheels:
        size += w.stat().st_size
        with zipfile.ZipFile(w) as zf:
            for info in shared_objects(zf):
                f, _ = member_floor(zf, info)
                floor += f
                rows.append((f, w.name, info.filename))
    return floor, size, sorted(rows, reverse=True)


def pinned_wheels(doc, wheels_dir):
    """The wheels a check's 'laid out with the N wheels ...' note names, found in wheels_dir."""
    text = " ".join(n["message"] for n in doc.get("notes", []) if "laid out with" in n["message"])
    count = re.search(r"laid out with the (\d+) wheels", text)
    found = []
    for name, version in re.findall(r"([A-Za-z0-9_.-]+) ([0-9][^ ,()]*) \(", text):
        stem = re.sub(r"[-_.]+", "_", name).lower()
        hits = [p for p in wheels_dir.glob("*.whl")
                if p.name.lower().startswith(f"{stem}-{version.lower()}-")]
        if not hits:
            raise FileNotFoundError(f"{name} {version}: no wheel in {wheels_dir}")
        found.append(hits[0])
    if not count or int(count.group(1)) != len(found):
        raise ValueError(f"the note names {count and count.group(1)} wheels, {len(found)} found")
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("wheels", nargs="*", type=pathlib.Path)
    ap.add_argument("--build", type=pathlib.Path)
    ap.add_argument("--wheels", dest="wheels_dir", type=pathlib.Path)
    ap.add_argument("--notes", type=pathlib.Path)
    ap.add_argument("--top", type=int, default=5)
    a = ap.parse_args()
    wheels = list(a.wheels)
    if a.build:
        with open(a.notes) as f:
            wheels = [a.build] + pinned_wheels(json.load(f), a.wheels_dir)
    floor, size, rows = build_floor(wheels)
    top = ", ".join(f"{r[2].rsplit('/', 1)[-1]} {r[0] / 1e6:.1f} MB" for r in rows[:a.top])
    print(f"| {wheels[0].name} | {len(wheels)} | {floor / 1e6:.1f} MB | {size / 1e9:.2f} GB | "
          f"{100 * floor / size:.1f} % | {top} |")


if __name__ == "__main__":
    main()
