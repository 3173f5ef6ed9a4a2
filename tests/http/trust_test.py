"""Published builds you can trust (issue 54): the remote path against a server of this test's own.

trust_test.py ABICHECK

Serves the wheels tests/http/http_test.py builds (and an auditwheel-repaired one, made with
patchelf as auditwheel makes it) on 127.0.0.1 with the same handler, and checks what a new user
and a fault campaign found wrong:
  * a repaired wheel read by URL is the file read from disk, with and without --verify;
  * a wheel whose bytes change between range requests ends the read (exit 3), nothing cached;
  * a cache entry renamed, a FIFO or a symlink in its place: never followed, never an answer;
    `cache clear` removes them; entries are private (0600 files, 0700 directories);
  * credentials given to pip are used for the wheels' range reads, and written nowhere;
  * a body that never ends, a server that sends 5 bytes a second, and a pip that never answers
    each end with exit 3 and one line, within the deadlines set for the test;
  * a 503 to the first request is retried; a length the server does not say is read whole;
  * pip's own index configuration is part of what a resolution is kept under;
  * `pip:` inputs resolve for the Python of the environment they are checked against; TMPDIR
    missing is no crash; an unreachable index and a release without wheels are said as such;
  * a small wheel is never read past its size.
Prints one line per failed expectation and ends with "N passed, M failed"; exit 1 on any.
"""
import json
import os
import pathlib
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import http_test  # noqa: E402  (the server and the wheels)


def repaired_wheel(d):
    """A wheel as auditwheel repair leaves it: its module's dependency vendored under
    modv.libs/ with a hashed soname, both rewritten by patchelf (which moves their dynamic
    tables to a new segment at the end), the library's first segment past 64 KiB."""
    src = d / "vend.c"
    src.write_text("".join(f"int vend_{i}(void) {{ return {i}; }}\n" for i in range(4000)))
    subprocess.run(["cc", "-shared", "-fPIC", "-o", d / "libvend.so", src,
                    "-Wl,-soname,libvend.so"], check=True)
    (d / "modv.c").write_text("extern int vend_7(void);\nextern int foo(void);\n"
                              "int PyInit_modv(void) { return vend_7() + foo(); }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", d / "modv.so", d / "modv.c", "-L", d,
                    "-lvend", "-lfoo"], check=True)
    vendored = "libvend-3f2a9c1d.so"
    shutil.copy(d / "libvend.so", d / vendored)
    subprocess.run(["patchelf", "--set-soname", vendored, d / vendored], check=True)
    subprocess.run(["patchelf", "--replace-needed", "libvend.so", vendored, d / "modv.so"],
                   check=True)
    subprocess.run(["patchelf", "--force-rpath", "--set-rpath", "$ORIGIN/../modv.libs",
                    d / "modv.so"], check=True)
    path = d / "modv-1.0-cp312-cp312-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("modv-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: modv\n"
                   "Version: 1.0\n\n")
        z.writestr("modv-1.0.dist-info/WHEEL", http_test.WHEEL)
        z.write(d / "modv.so", "modv/modv.so")
        z.write(d / vendored, f"modv.libs/{vendored}")
    return path


def swapped_copy(torch):
    """torch.whl.v2: the same size, other bytes (a stored member's), as a re-upload."""
    with zipfile.ZipFile(torch) as z:
        info = z.getinfo("torch/data.bin")
    raw = bytearray(torch.read_bytes())
    at = info.header_offset + 30 + len(info.filename) + len(info.extra) + info.file_size // 2
    raw[at:at + 4096] = bytes(b ^ 0x5A for b in raw[at:at + 4096])
    pathlib.Path(str(torch) + ".v2").write_bytes(bytes(raw))


def variant_torch(d):
    """variant/torch-9.0.0-...whl: another index's build of the same release, whose libfoo.so
    has bar too (mod 1.0 loads with it)."""
    (d / "variant").mkdir()
    (d / "foobar.c").write_text("int foo(void) { return 1; }\nint bar(void) { return 2; }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", d / "libfoobar.so", d / "foobar.c",
                    "-Wl,-soname,libfoo.so"], check=True)
    path = d / "variant" / "torch-9.0.0-cp312-cp312-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("torch-9.0.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: torch\n"
                   "Version: 9.0.0\n\n")
        z.writestr("torch-9.0.0.dist-info/WHEEL", http_test.WHEEL)
        z.writestr("torch/version.py", "__version__ = '9.0.0'\n")
        z.write(d / "libfoobar.so", "torch/lib/libfoo.so")
    return path


def main():
    abicheck = sys.argv[1]
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAILED", what)

    if shutil.which("patchelf") is None:
        print("SKIP: patchelf is not installed (scripts/setup-deps.sh installs it)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        d = pathlib.Path(tmp)
        torch, mod = http_test.build(d)
        modv = repaired_wheel(d)
        swapped_copy(torch)
        variant_torch(d)
        # A release published as an sdist only.
        with zipfile.ZipFile(d / "sdonly-1.0.tar.gz", "w") as z:  # its bytes are never read
            z.writestr("sdonly-1.0/PKG-INFO", "Name: sdonly\n")
        http_test.Handler.root = d
        server = http_test.Server(("127.0.0.1", 0), http_test.Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        port = server.server_address[1]
        base = f"http://127.0.0.1:{port}"
        cache = d / "cache"
        env = dict(os.environ, XDG_CACHE_HOME=str(cache))
        for k in [k for k in env if k.startswith("PIP_")]:
            del env[k]
        faulty = dict(env, ABICHECK_HTTP_RETRIES="1", ABICHECK_HTTP_TIMEOUT="5")
        pip = ["--no-index", "--find-links", f"{base}/ok/", "--python-version", "3.12"]

        def run(*args, env=env, fmt="json", timeout=120):
            return subprocess.run([abicheck, "check", *args, "--format", fmt],
                                  capture_output=True, text=True, env=env, timeout=timeout)

        def verdicts(doc):  # what was found, without the notes on how it was read
            text = json.dumps(doc["cells"], sort_keys=True)
            text = re.sub(r"http://(user:[^@]*@)?127\.0\.0\.1:\d+/[a-z]+/", "", text)
            return text.replace(str(d) + "/", "")

        def one_line(r, *says):
            err = r.stderr.strip().splitlines()
            return r.returncode == 3 and len(err) == 1 and all(s in err[0] for s in says)

        sha = {p.name: http_test.sha256_of(p) for p in (torch, mod, modv)}
        local = run(str(mod), "--against", str(torch))
        want = verdicts(json.loads(local.stdout))
        check(local.returncode == 1, f"local: exit {local.returncode}")

        # 1. An auditwheel-repaired wheel by URL is the file on disk, with and without --verify.
        for extra in ([], ["--verify"]):
            on_disk = run(str(modv), "--against", str(torch), *extra)
            by_url = run(f"{base}/ok/{modv.name}", "--against", f"{base}/ok/{torch.name}", *extra,
                         env=dict(env, ABICHECK_NO_CACHE="1"))
            check(on_disk.returncode == 0 and by_url.returncode == 0 and
                  verdicts(json.loads(by_url.stdout)) == verdicts(json.loads(on_disk.stdout)),
                  f"repaired wheel {extra}: file {on_disk.returncode}, URL {by_url.returncode}: "
                  f"{by_url.stderr.strip()}")

        # 3. A wheel replaced between range requests: exit 3 naming it, nothing cached, and the
        # honest server's wheel then gets its own verdict.
        pinned = f"#sha256={sha[torch.name]}"
        for mode in ("swap", "swapdeaf"):
            r = run(f"{base}/ok/{mod.name}", "--against", f"{base}/{mode}/{torch.name}{pinned}",
                    env=faulty)
            check(one_line(r, torch.name, "changed while it was read"),
                  f"{mode}: exit {r.returncode}: {r.stderr.strip()}")
            entry = cache / "abicheck" / "wheels" / f"{sha[torch.name]}.part"
            check(not entry.exists(), f"{mode}: nothing cached for the torch wheel")
        r = run(f"{base}/ok/{mod.name}#sha256={sha[mod.name]}", "--against",
                f"{base}/ok/{torch.name}{pinned}")
        check(r.returncode == 1 and verdicts(json.loads(r.stdout)) == want,
              f"after a swap, the honest wheel: exit {r.returncode}: {r.stderr.strip()}")

        # 5. An entry answers only for the archive it is named by: the module's entry copied
        # over the torch wheel's is not read as torch (--offline then has nothing for it).
        wheels = cache / "abicheck" / "wheels"
        torch_entry, mod_entry = wheels / f"{sha[torch.name]}.part", wheels / f"{sha[mod.name]}.part"
        check(torch_entry.is_file() and mod_entry.is_file(), "both entries written")
        if torch_entry.is_file() and mod_entry.is_file():
            kept = torch_entry.read_bytes()
            shutil.copy(mod_entry, torch_entry)
            r = run(f"{base}/ok/{mod.name}#sha256={sha[mod.name]}", "--against",
                    f"{base}/ok/{torch.name}{pinned}", "--offline")
            check(r.returncode == 3 and "abicheck's cache holds a damaged entry" in r.stderr,
                  f"a renamed entry is not an answer: exit {r.returncode} {r.stderr.strip()}")
            torch_entry.write_bytes(kept)
        # Private: 0700 directories, 0600 files.
        modes = {str(p.relative_to(cache)): stat.S_IMODE(p.stat().st_mode)
                 for p in (cache / "abicheck").rglob("*")}
        check(modes and all(m == (0o700 if (cache / p).is_dir() else 0o600)
                            for p, m in modes.items()) and
              stat.S_IMODE((cache / "abicheck").stat().st_mode) == 0o700,
              f"the cache is private: {modes}")

        # 9, 10. A FIFO, and a symlink to a file outside, in place of entries: the check ends
        # with the right verdict, nothing outside is written, and `cache clear` removes both.
        victim = d / "victim.txt"
        victim.write_text("precious\n")
        torch_entry.unlink()
        mod_entry.unlink()
        os.mkfifo(torch_entry)
        mod_entry.symlink_to(victim)
        try:
            r = run(f"{base}/ok/{mod.name}#sha256={sha[mod.name]}", "--against",
                    f"{base}/ok/{torch.name}{pinned}", timeout=60)
            check(r.returncode == 1 and verdicts(json.loads(r.stdout)) == want,
                  f"a FIFO and a symlink as entries: exit {r.returncode} {r.stderr.strip()}")
        except subprocess.TimeoutExpired:
            check(False, "a FIFO as an entry: the check hangs")
        check(victim.read_text() == "precious\n", "the file a symlinked entry names is untouched")
        check(torch_entry.is_file() and not torch_entry.is_symlink() and
              not mod_entry.is_symlink(), "the FIFO and the link were replaced by entries")
        os.mkfifo(wheels / "stray.fifo")
        (wheels / "stray.link").symlink_to(victim)
        (cache / "abicheck" / "pip").mkdir(exist_ok=True)
        (cache / "abicheck" / "pip" / "stray.link").symlink_to(victim)
        r = subprocess.run([abicheck, "cache", "clear"], capture_output=True, text=True, env=env,
                           timeout=60)
        left = sorted(p.name for p in (cache / "abicheck").rglob("*") if not p.is_dir())
        check(r.returncode == 0 and not left and victim.read_text() == "precious\n",
              f"cache clear removes links and FIFOs, and nothing outside: {left}")

        # 11, 12. An index with credentials in its URL: pip's view of them reads the wheels;
        # they are printed nowhere and written nowhere.
        auth_cache = d / "auth-cache"
        auth_env = dict(env, XDG_CACHE_HOME=str(auth_cache))
        secret = http_test.AUTH.split(":")[1]
        auth_pip = ["--no-index", "--find-links", f"http://{http_test.AUTH}@127.0.0.1:{port}/auth/",
                    "--python-version", "3.12"]
        r = run("pip:mod==1.0", "--against", "pip:torch==9.0.0", *auth_pip, env=auth_env)
        check(r.returncode == 1 and verdicts(json.loads(r.stdout)) == want,
              f"a private index: exit {r.returncode}: {r.stderr.strip()[-400:]}")
        text = run("pip:mod==1.0", "--against", "pip:torch==9.0.0", *auth_pip, env=auth_env,
                   fmt="text")
        written = [p for p in auth_cache.rglob("*") if p.is_file() and secret in
                   p.read_bytes().decode("latin-1")]
        check(secret not in r.stdout + r.stderr + text.stdout + text.stderr and not written,
              f"the credentials are said nowhere: {[str(p) for p in written]}")
        r = run(f"http://{http_test.AUTH}@127.0.0.1:{port}/auth/{mod.name}", "--against",
                f"http://{http_test.AUTH}@127.0.0.1:{port}/auth/{torch.name}", env=auth_env)
        check(r.returncode == 1 and secret not in r.stdout + r.stderr,
              f"URLs with credentials: exit {r.returncode}: {r.stderr.strip()[-300:]}")

        # 6, 7. A body that never ends, and five bytes a second: exit 3 within the deadlines.
        for mode, says, extra in (("endless", "more than the file's", {}),
                                  ("drip", "in all", {"ABICHECK_HTTP_REQUEST_TIMEOUT": "2"})):
            start = time.time()
            r = run(f"{base}/ok/{mod.name}", "--against", f"{base}/{mode}/{torch.name}",
                    env=dict(faulty, ABICHECK_NO_CACHE="1", **extra), timeout=90)
            took = time.time() - start
            check(one_line(r, torch.name, says) and took < 45,
                  f"{mode}: exit {r.returncode} in {took:.0f} s: {r.stderr.strip()}")

        # 14, 15. A 503 to the first request is retried; a length the server does not say
        # (Content-Range: bytes A-B/*) is read whole, and said.
        for mode, note in (("busy", None), ("nolength", "without the file's length")):
            r = run(f"{base}/ok/{mod.name}", "--against", f"{base}/{mode}/{torch.name}",
                    env=dict(env, ABICHECK_NO_CACHE="1"))
            notes = " ".join(n["message"] for n in json.loads(r.stdout)["notes"]) if r.stdout else ""
            check(r.returncode == 1 and verdicts(json.loads(r.stdout)) == want and
                  (note is None or note in notes),
                  f"{mode}: exit {r.returncode}: {r.stderr.strip()} {notes[:300]}")

        # 8. A pip that never answers: killed at its deadline, exit 3 naming the requirement.
        hang = d / "hanging-python3"
        hang.write_text("#!/bin/sh\nexec sleep 3600\n")
        hang.chmod(0o755)
        start = time.time()
        r = run("pip:mod==1.0", "--against", str(torch), *pip,
                env=dict(env, ABICHECK_PIP_PYTHON=str(hang), ABICHECK_PIP_TIMEOUT="2",
                         ABICHECK_NO_CACHE="1"), timeout=60)
        took = time.time() - start
        check(one_line(r, "pip:mod==1.0", "2 s", "ABICHECK_PIP_TIMEOUT") and took < 30,
              f"a pip that hangs: exit {r.returncode} in {took:.0f} s: {r.stderr.strip()}")

        # 4. What pip resolved is kept under its index configuration too: the same pin from
        # another index (PIP_FIND_LINKS, or a pip.conf) is that index's wheel.
        key_env = dict(env, XDG_CACHE_HOME=str(d / "key-cache"))
        same = ["pip:mod==1.0", "--against", "pip:torch==9.0.0", "--no-index",
                "--python-version", "3.12"]
        r1 = run(*same, env=dict(key_env, PIP_FIND_LINKS=f"{base}/ok/"))
        conf = d / "pip.conf"
        conf.write_text(f"[global]\nfind-links = {base}/variant/ {base}/ok/\n")
        r2 = run(*same, env=dict(key_env, PIP_FIND_LINKS=f"{base}/variant/ {base}/ok/"))
        r3 = run(*same, env=dict(key_env, PIP_CONFIG_FILE=str(conf)))
        # (Of two wheels of one version, pip takes the first index's.)
        check(r1.returncode == 1 and r2.returncode == 0 and r3.returncode == 0,
              f"the index configuration keys what pip resolved: {r1.returncode} {r2.returncode} "
              f"{r3.returncode}: {r2.stderr.strip()[-300:]} {r3.stderr.strip()[-300:]}")

        # 2. pip: resolves for the Python of the environment it is checked against.
        site = d / "env" / "lib" / "python3.12" / "site-packages"
        http_test.install(torch, site)
        (d / "env" / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.12.3\n")
        r = run("pip:mod==1.0", "--against", str(d / "env"), "--no-index", "--find-links",
                f"{base}/ok/")
        notes = " ".join(n["message"] for n in json.loads(r.stdout)["notes"]) if r.stdout else ""
        check(r.returncode == 1 and "Python 3.12" in notes,
              f"pip: for the environment's Python: exit {r.returncode}: {r.stderr.strip()} "
              f"{notes[:300]}")

        # 13. TMPDIR missing or a file: no crash, with pip or --offline.
        for tmpdir in (str(d / "nonexistent"), str(victim)):
            tmp_env = dict(env, TMPDIR=tmpdir, XDG_CACHE_HOME=str(d / "tmpdir-cache"))
            r = run("pip:mod==1.0", "--against", "pip:torch==9.0.0", *pip, env=tmp_env)
            o = run("pip:mod==1.0", "--against", "pip:torch==9.0.0", *pip, "--offline",
                    env=tmp_env)
            check(r.returncode == 1 and o.returncode == 1,
                  f"TMPDIR={tmpdir}: exit {r.returncode}, --offline {o.returncode}: "
                  f"{r.stderr.strip()} {o.stderr.strip()}")

        # 17. An unreachable index, and a release with no wheel: said as such.
        r = run("pip:mod==1.0", "--against", str(torch), "--index-url",
                "http://127.0.0.1:9/simple/", env=dict(env, PIP_RETRIES="1",
                                                      PIP_TIMEOUT="2"), timeout=120)
        check(one_line(r, "pip:mod==1.0", "could not reach"),
              f"an unreachable index: exit {r.returncode}: {r.stderr.strip()}")
        r = run("pip:sdonly==1.0", "--against", str(torch), *pip)
        check(one_line(r, "pip:sdonly==1.0", "no wheel", "sdonly-1.0.tar.gz"),
              f"an sdist only: exit {r.returncode}: {r.stderr.strip()}")

        # 18. A small wheel is never read past its size: the repaired wheel (4000 functions).
        r = run(f"{base}/ok/{modv.name}", "--against", f"{base}/ok/{torch.name}",
                env=dict(env, ABICHECK_NO_CACHE="1"))
        notes = json.loads(r.stdout)["notes"] if r.stdout else []
        read = [re.search(r"(\d+) of its (\d+) bytes", n["message"]) for n in notes
                if modv.name in n["input"] and "read by HTTP range requests" in n["message"]]
        check(read and read[0] and int(read[0].group(1)) <= int(read[0].group(2)),
              f"a small wheel is read at most whole: {notes}")
        server.shutdown()
        server.server_close()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
