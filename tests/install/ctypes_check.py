#!/usr/bin/env python3
"""The C API from Python's ctypes: ctypes_check.py LIBABICHECK MODULE BUILD; prints the verdict."""
import ctypes, json, sys
lib = ctypes.CDLL(sys.argv[1])
lib.abicheck_build_open.restype = ctypes.c_void_p
lib.abicheck_build_open.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
lib.abicheck_check.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
build, out = lib.abicheck_build_open(sys.argv[3].encode(), None), ctypes.c_void_p()
rc = lib.abicheck_check(build, sys.argv[2].encode(), 0, ctypes.byref(out), None)
report = json.loads(ctypes.string_at(out.value))
first = report["problems"][0] if report["problems"] else {}
print(rc, report["loads"], first.get("demangled", first.get("message", "-")))
sys.exit(rc)
