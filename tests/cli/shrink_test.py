#!/usr/bin/env python3
"""A mapped input that shrinks while abicheck reads it (issue 17): an inotify watcher truncates
the file the moment abicheck opens it, many times. Every run must end with exit 0 or 1 (the read
finished first) or 3 with "changed while being read" or a truncation error naming the file (the
truncation came first) -- never a signal (SIGBUS is 135) or an empty answer.
    shrink_test.py ABICHECK LIBRARY WORKDIR [RUNS]"""
import ctypes, os, select, shutil, struct, subprocess, sys, threading

abicheck, library, work = sys.argv[1:4]
if not os.path.exists(library):
    print(f"skipped: {library} is not on this machine (the CUDA toolkit's libraries are the big "
          "real inputs this race needs)")
    sys.exit(77)
runs = int(sys.argv[4]) if len(sys.argv) > 4 else 60
libc = ctypes.CDLL("libc.so.6", use_errno=True)
IN_OPEN = 0x20
os.makedirs(work, exist_ok=True)
target = os.path.join(work, "libshrink.so")
counts = {}
bad = []
for i in range(runs):
    shutil.copyfile(library, target)
    fd = libc.inotify_init()
    assert fd >= 0
    assert libc.inotify_add_watch(fd, target.encode(), IN_OPEN) >= 0
    # Alternate how soon after the open the file shrinks: at once, or after a short delay.
    delay = (i % 4) * 0.0005

    def truncate():
        # Waits until abicheck opens it — or gives up, so that a run that never opens the file
        # (abicheck failed to start) cannot hang the test.
        if not select.select([fd], [], [], 30)[0]:
            return
        os.read(fd, 4096)
        if delay:
            threading.Event().wait(delay)
        os.truncate(target, 4096)

    t = threading.Thread(target=truncate)
    t.start()
    p = subprocess.run([abicheck, "symbols", "-C", target], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    t.join()
    os.close(fd)
    rc, err = p.returncode, p.stderr
    counts[rc] = counts.get(rc, 0) + 1
    if rc in (0, 1):
        continue
    if rc == 3 and "libshrink.so" in err:
        continue
    bad.append(f"run {i}: exit {rc}: {err.strip()[:200]}")
print(f"{runs} runs, exit codes {dict(sorted(counts.items()))}")
for b in bad[:5]:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
