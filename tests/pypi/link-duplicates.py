#!/usr/bin/env python3
"""Saves disk: every file of the virtualenv NEW that is byte-for-byte the file at the same path in
one of the OTHER virtualenvs becomes a hard link to it (the extensions, installed into every
virtualenv, and the CUDA libraries two torch releases share: about 13 of 35 GB).

Only the same relative path is linked, so two files of one virtualenv never become one inode:
ld.so knows an object by its device and inode (_dl_map_object_from_fd), and a process that loads
from one virtualenv sees exactly the files it would have seen without the links. Nothing writes
into a built virtualenv, so the shared inodes never diverge.
    link-duplicates.py NEW OTHER..."""
import filecmp
import os
import sys

new, others = sys.argv[1], sys.argv[2:]
saved = 0
for dirpath, _, files in os.walk(new):
    rel_dir = os.path.relpath(dirpath, new)
    for name in files:
        path = os.path.join(dirpath, name)
        st = os.lstat(path)
        if not os.path.isfile(path) or os.path.islink(path) or st.st_size < 4096:
            continue
        for other in others:
            twin = os.path.join(other, rel_dir, name)
            try:
                ot = os.lstat(twin)
            except FileNotFoundError:
                continue
            if (ot.st_ino, ot.st_dev) == (st.st_ino, st.st_dev):
                break  # already one file
            if os.path.islink(twin) or ot.st_size != st.st_size or ot.st_dev != st.st_dev \
                    or ot.st_mode != st.st_mode:
                continue
            if not filecmp.cmp(path, twin, shallow=False):
                continue
            tmp = path + ".link-tmp"
            os.link(twin, tmp)
            os.replace(tmp, path)
            saved += st.st_size
            break
print(f"{new}: {saved / 2**30:.1f} GB linked to identical files of {len(others)} other virtualenvs")
