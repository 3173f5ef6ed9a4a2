#!/usr/bin/env python3
"""The C API's abicheck_run / abicheck_run_json give the abicheck program's bytes (issue 34).

Usage: c_api_same.py LIBABICHECK ABICHECK FIXTURES          (the fixture cases)
       c_api_same.py LIBABICHECK ABICHECK --pypi CACHE        (the PyPI corpus: env, check, gpu)

For each case, the same command runs three ways: the program (a subprocess), abicheck_run in
this process with the same words, and abicheck_run_json with the case as a request. stdout,
stderr and the exit code must be equal byte for byte (the JSON request adds --format json, so it
is compared with the program run with --format json). Exit 0 when every case agrees, 1 when one
differs (printing the first difference), 77 (skip, saying why) when the PyPI corpus is absent.
"""
import ctypes
import json
import os
import pathlib
import subprocess
import sys


class CApi:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.abicheck_run.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                          ctypes.POINTER(ctypes.c_void_p),
                                          ctypes.POINTER(ctypes.c_void_p)]
        self.lib.abicheck_run_json.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                               ctypes.POINTER(ctypes.c_void_p)]
        self.lib.abicheck_string_free.argtypes = [ctypes.c_void_p]

    def _take(self, p):
        if not p.value:
            return b""
        s = ctypes.string_at(p.value)
        self.lib.abicheck_string_free(p.value)
        return s

    def run(self, words):
        argv = (ctypes.c_char_p * len(words))(*[w.encode() for w in words])
        out, err = ctypes.c_void_p(), ctypes.c_void_p()
        rc = self.lib.abicheck_run(len(words), argv, ctypes.byref(out), ctypes.byref(err))
        return rc, self._take(out), self._take(err)

    def run_json(self, request):
        out, err = ctypes.c_void_p(), ctypes.c_void_p()
        rc = self.lib.abicheck_run_json(json.dumps(request).encode(), ctypes.byref(out),
                                        ctypes.byref(err))
        return rc, self._take(out), self._take(err)


def program(abicheck, words):
    # The program's progress lines (timing-dependent) are not the C API's: none after 10^9 ms.
    env = dict(os.environ, NO_COLOR="1", ABICHECK_PROGRESS_AFTER_MS="1000000000")
    p = subprocess.run([abicheck] + words, capture_output=True, env=env)
    return p.returncode, p.stdout, p.stderr


def request_words(req):
    """What abicheck_run_json runs for `req` (abicheck_c.h): options, --format json, --, args."""
    words = [req.get("command", "check")]
    opts = req.get("options", {})
    for name, value in opts.items():
        for v in value if isinstance(value, list) else [value]:
            words += ["--" + name] if v is True else ["--" + name, str(v)]
    if "format" not in opts and words[0] in ("check", "env", "gpu", "diff", "symbols"):
        words += ["--format", "json"]
    return words + ["--"] + req.get("args", [])


def compare(api, abicheck, label, words, request=None):
    want = program(abicheck, words)
    got = api.run(words)
    failures = []
    if got != want:
        failures.append(f"{label}: abicheck_run differs from the program for {words}:\n"
                        f"  program rc {want[0]}, {len(want[1])} bytes out, err {want[2][:300]!r}\n"
                        f"  C API   rc {got[0]}, {len(got[1])} bytes out, err {got[2][:300]!r}")
    if request is not None:
        want_json = program(abicheck, request_words(request))
        got_json = api.run_json(request)
        if got_json != want_json:
            failures.append(f"{label}: abicheck_run_json differs for {request}:\n"
                            f"  program rc {want_json[0]} err {want_json[2][:300]!r}\n"
                            f"  C API   rc {got_json[0]} err {got_json[2][:300]!r}")
        elif got_json[0] in (0, 1, 4):
            json.loads(got_json[1])  # the schema's JSON, parsed
    return failures, want[0]


def fixture_cases(fx):
    mod, new, old = f"{fx}/common_ops.abi3.so", f"{fx}/libc10_cuda.so", f"{fx}/old"
    req = lambda cmd, args, **o: {"command": cmd, "args": args, "options": o}
    return [
        ("check fails", ["check", mod, new, "--format", "json"], req("check", [mod, new])),
        ("check text", ["check", mod, new], None),
        ("check loads", ["check", mod, old], req("check", [mod, old])),
        ("matrix", ["check", mod, "--against", new, "--against", old, "--format", "json"],
         req("check", [mod], against=[new, old])),
        ("matrix sarif", ["check", mod, "--against", new, "--against", old, "--format", "sarif"],
         req("check", [mod], against=[new, old], format="sarif")),
        ("no-diagnose", ["check", mod, new, "--no-diagnose", "--no-host"],
         req("check", [mod, new], **{"no-diagnose": True, "no-host": True})),
        ("gpu", ["gpu", mod, "--gpu", "sm_90", "--format", "json"], req("gpu", [mod], gpu="sm_90")),
        ("symbols", ["symbols", "-C", new], req("symbols", [new], demangle=True)),
        ("diff", ["diff", old, fx], req("diff", [old, fx])),
        ("missing file", ["check", f"{fx}/nothing.so", new], req("check", [f"{fx}/nothing.so", new])),
        ("unknown option", ["check", mod, new, "--no-such-option"],
         req("check", [mod, new], **{"no-such-option": True})),
        ("help", ["check", "--help"], None),
        ("version", ["--version"], None),
        ("mistyped command", ["chek", mod], None),
    ]


def pypi_cases(cache):
    cases = []
    venvs = sorted(p for p in (cache / "venvs").iterdir() if p.is_dir())
    for v in venvs:
        cases.append((f"env {v.name}", ["env", str(v), "--format", "json"],
                      {"command": "env", "args": [str(v)]}))
    libs = [str(next(iter(g), "")) for g in (v.glob("lib/python3*/site-packages/torch/lib")
                                            for v in venvs)]
    libs = [l for l in libs if l]
    wheels = sorted((cache / "wheels").glob("flash_attn*.whl")) + \
        sorted((cache / "wheels").glob("sgl_kernel*.whl"))
    if len(libs) >= 2 and wheels:
        w = str(wheels[0])
        cases.append(("check matrix", ["check", w, "--against", libs[0], "--against", libs[1],
                                       "--format", "json"],
                      {"command": "check", "args": [w], "options": {"against": libs[:2]}}))
        cases.append(("gpu", ["gpu", w, "--gpu", "sm_90", "--format", "json"],
                      {"command": "gpu", "args": [w], "options": {"gpu": "sm_90"}}))
    return cases


def flag_bits_refused(api, fx):
    """abicheck_check refuses a flag bit it does not know (a newer caller's), exit 2 with a message."""
    lib = api.lib
    lib.abicheck_build_open.restype = ctypes.c_void_p
    lib.abicheck_build_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.abicheck_check.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint,
                                   ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
    lib.abicheck_error_message.restype = ctypes.c_char_p
    lib.abicheck_error_message.argtypes = [ctypes.c_void_p]
    lib.abicheck_error_free.argtypes = [ctypes.c_void_p]
    lib.abicheck_build_close.argtypes = [ctypes.c_void_p]
    error = ctypes.c_void_p()
    build = lib.abicheck_build_open(f"{fx}/libc10_cuda.so".encode(), ctypes.byref(error))
    out = ctypes.c_void_p()
    rc = lib.abicheck_check(build, f"{fx}/common_ops.abi3.so".encode(), 1 << 7, ctypes.byref(out),
                            ctypes.byref(error))
    message = lib.abicheck_error_message(error) if error.value else b""
    lib.abicheck_error_free(error)
    lib.abicheck_build_close(build)
    if rc != 2 or b"unknown flag" not in message or out.value:
        return [f"abicheck_check with an unknown flag bit: rc {rc}, {message!r} (want 2, refused)"]
    lib.abicheck_error_code.argtypes = [ctypes.c_void_p]
    if lib.abicheck_error_code(None) != 2:  # issue 37 item 20: it was 0, "loads"
        return [f"abicheck_error_code(NULL) is {lib.abicheck_error_code(None)}, not 2"]
    return []


def sigbus_guarded(lib_path, fx):
    """abicheck_guard_sigbus (issue 37): a build's file truncated after abicheck_build_open ends a
    host with exit 3 and a line naming the file, not SIGBUS."""
    import shutil
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        big = pathlib.Path(d) / "libc10_cuda.so"
        shutil.copy(f"{fx}/libc10_cuda.so", big)
        with open(big, "ab") as f:  # past kReadBelow (1 MiB): mapped, not read
            f.write(b"\0" * (2 << 20))
        host = f"""
import ctypes, os, sys
lib = ctypes.CDLL({lib_path!r})
lib.abicheck_build_open.restype = ctypes.c_void_p
lib.abicheck_build_open.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
lib.abicheck_check.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p]
if sys.argv[1] == "guard": lib.abicheck_guard_sigbus()
build = lib.abicheck_build_open({str(big)!r}.encode(), None)
os.truncate({str(big)!r}, 0)
lib.abicheck_check(build, {f"{fx}/common_ops.abi3.so"!r}.encode(), 0, None, None)
print("returned")
"""
        results = {}
        for mode in ("guard", "none"):
            shutil.copy(f"{fx}/libc10_cuda.so", big)
            with open(big, "ab") as f:
                f.write(b"\0" * (2 << 20))
            p = subprocess.run([sys.executable, "-c", host, mode], capture_output=True)
            results[mode] = (p.returncode, p.stderr.decode(errors="replace"))
    rc, err = results["guard"]
    if rc != 3 or "libc10_cuda.so" not in err or "changed while being read" not in err:
        return [f"abicheck_guard_sigbus: a truncated build ended the host with {rc}: {err[:300]!r}"]
    if results["none"][0] != -7:  # the hazard the header describes is real: SIGBUS unguarded
        return [f"unguarded, a truncated build gave {results['none']} (expected SIGBUS)"]
    return []


def main(argv):
    api, abicheck = CApi(argv[1]), argv[2]
    if argv[3] == "--pypi":
        cache = pathlib.Path(argv[4])
        if (cache / "UNAVAILABLE").exists():
            print("skipped:", (cache / "UNAVAILABLE").read_text().strip())
            return 77
        cases = pypi_cases(cache)
    else:
        cases = fixture_cases(argv[3])
    failures, codes = [], []
    if argv[3] != "--pypi":
        failures += flag_bits_refused(api, argv[3])
        failures += sigbus_guarded(argv[1], argv[3])
    for label, words, request in cases:
        f, rc = compare(api, abicheck, label, words, request)
        failures += f
        codes.append(rc)
    for f in failures:
        print("FAIL", f)
    print(f"c_api_same: {len(cases)} commands, exit codes {codes}: "
          f"{'every one the same through the C API' if not failures else 'differences above'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
