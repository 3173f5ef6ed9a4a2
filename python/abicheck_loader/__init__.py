"""abicheck from Python: will this compiled module load against that build of torch?

A typed API over abicheck's stable C API (``libabicheck.so.1``, ``abicheck_c.h``) through
ctypes, so one wheel serves every CPython >= 3.9. Nothing abicheck reads is loaded or run.

    import abicheck_loader as abicheck
    report = abicheck.check("common_ops.abi3.so", against="torch-2.10.0-....whl")
    print(report.verdict, [p.demangled for p in report.problems])

Results are the JSON documents of docs/json-schema.md, parsed into the dataclasses below (each
keeps the whole document in ``.json``). Exit-code classes: a verdict (0 loads, 1 will not load,
4 cannot tell) is a result; a usage error (2) or an unreadable input (3) raises AbicheckError.
Options are the program's long options as keywords (``no_host=True`` is ``--no-host``, a list
repeats the option): every option of ``abicheck COMMAND --help`` works here. A path is a
``str``, ``bytes`` (as the OS gives a name that is not UTF-8) or ``os.PathLike``; where several
are taken, one path alone is one, never its characters.
"""
from __future__ import annotations

import ctypes
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

__all__ = [
    "LOADS", "WILL_NOT_LOAD", "USAGE", "BAD_INPUT", "UNKNOWN", "AbicheckError", "Problem",
    "Report", "Matrix", "Environment", "Result", "Build", "check", "matrix", "env", "gpu", "run",
    "version", "library_path",
]

StrPath = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
Paths = Union[StrPath, Sequence[StrPath]]

# The exit-code classes (abicheck(1) EXIT STATUS; ABICHECK_* in abicheck_c.h).
LOADS, WILL_NOT_LOAD, USAGE, BAD_INPUT, UNKNOWN = 0, 1, 2, 3, 4


class AbicheckError(Exception):
    """A usage error (code 2) or an input abicheck could not read (code 3): the program's message."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Problem:
    """One reason a module will not load (report.schema.json "problems")."""
    kind: str
    message: str
    symbol: Optional[str] = None
    demangled: Optional[str] = None
    json: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Report:
    """One module against one build (report.schema.json)."""
    exit_code: int
    module: str
    verdict: str
    loads: bool
    problems: List[Problem]
    json: Dict[str, Any] = field(repr=False, compare=False)

    @property
    def ok(self) -> bool:
        """True only for "loads": a CI gate passes on nothing else (unknown is not a pass)."""
        return self.exit_code == LOADS


@dataclass(frozen=True)
class Matrix:
    """Modules against builds (matrix.schema.json): ``cells`` as the schema gives them."""
    exit_code: int
    modules: List[Any]
    builds: List[Any]
    cells: List[Any]
    json: Dict[str, Any] = field(repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.exit_code == LOADS

    def report(self, module: str, build: str) -> Report:
        """The cell of `module` (as ``modules`` names it) against `build` (as ``builds`` does)."""
        for cell in self.cells:
            if cell.get("module") == module and cell.get("build") == build:
                verdict = {"loads": LOADS, "fails": WILL_NOT_LOAD}.get(cell.get("verdict"), UNKNOWN)
                return _cell_report(cell, verdict)
        raise KeyError((module, build))


@dataclass(frozen=True)
class Environment:
    """An installed environment (environment.schema.json)."""
    exit_code: int
    verdict: str
    loads: bool
    packages: List[Any]
    json: Dict[str, Any] = field(repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.exit_code == LOADS


@dataclass(frozen=True)
class Result:
    """What ``abicheck ARGS...`` printed and its exit code (run())."""
    exit_code: int
    stdout: str
    stderr: str


def library_path() -> Path:
    """The libabicheck.so.1 this package loads ($ABICHECK_LIBRARY overrides, for a build tree)."""
    env = os.environ.get("ABICHECK_LIBRARY")
    return Path(env) if env else Path(__file__).resolve().parent / "libabicheck.so.1"


_lib: Optional[ctypes.CDLL] = None


def _c() -> ctypes.CDLL:
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(str(library_path()))
        charpp = ctypes.POINTER(ctypes.c_void_p)
        lib.abicheck_run.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), charpp, charpp]
        lib.abicheck_run.restype = ctypes.c_int
        lib.abicheck_run_json.argtypes = [ctypes.c_char_p, charpp, charpp]
        lib.abicheck_run_json.restype = ctypes.c_int
        lib.abicheck_string_free.argtypes = [ctypes.c_void_p]
        lib.abicheck_version.restype = ctypes.c_char_p
        lib.abicheck_build_open.argtypes = [ctypes.c_char_p, charpp]
        lib.abicheck_build_open.restype = ctypes.c_void_p
        lib.abicheck_build_close.argtypes = [ctypes.c_void_p]
        lib.abicheck_check.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint, charpp,
                                       charpp]
        lib.abicheck_check.restype = ctypes.c_int
        lib.abicheck_error_code.argtypes = [ctypes.c_void_p]
        lib.abicheck_error_message.argtypes = [ctypes.c_void_p]
        lib.abicheck_error_message.restype = ctypes.c_char_p
        lib.abicheck_error_free.argtypes = [ctypes.c_void_p]
        _lib = lib
    return _lib


def _take(lib: ctypes.CDLL, p: ctypes.c_void_p) -> str:
    if not p.value:
        return ""
    try:
        return ctypes.string_at(p.value).decode("utf-8", "replace")
    finally:
        lib.abicheck_string_free(p)


def version() -> str:
    """The library's version ("0.5.0")."""
    return _c().abicheck_version().decode()


def run(*args: StrPath) -> Result:
    """Runs ``abicheck ARGS...`` in this process: what the program would print, and its exit code."""
    lib = _c()
    words = [os.fsencode(a) for a in args]
    argv = (ctypes.c_char_p * max(len(words), 1))(*words)
    out, err = ctypes.c_void_p(), ctypes.c_void_p()
    rc = lib.abicheck_run(len(words), argv, ctypes.byref(out), ctypes.byref(err))
    return Result(rc, _take(lib, out), _take(lib, err))


def _paths(value: Paths) -> List[StrPath]:
    """One path, or several: never a path's characters."""
    if isinstance(value, (str, bytes, os.PathLike)):
        return [value]
    return list(value)


def _word(value: Any) -> bytes:
    """A command-line word: a path as the OS names it (bytes kept), a number, a string."""
    if isinstance(value, (str, bytes, os.PathLike)):
        return os.fsencode(value)
    return str(value).encode()


_FORMATTED = ("check", "env", "gpu", "diff", "symbols")


def _words(command: str, args: Sequence[StrPath], options: Mapping[str, Any]) -> List[bytes]:
    """The command line abicheck_run_json would make of the request (abicheck_c.h), as bytes: a
    file name that is not UTF-8 passes as it is (JSON cannot carry it)."""
    words = [command.encode()]
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = ("--" + key.replace("_", "-")).encode()
        if value is True:
            words.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                words += [flag, _word(v)]
        else:
            words += [flag, _word(value)]
    if command in _FORMATTED and "format" not in options:
        words += [b"--format", b"json"]
    if command != "cache":
        words.append(b"--")
    return words + [_word(a) for a in args]


def _request(command: str, args: Sequence[StrPath], options: Mapping[str, Any]) -> Dict[str, Any]:
    lib = _c()
    words = _words(command, args, options)
    argv = (ctypes.c_char_p * len(words))(*words)
    out, err = ctypes.c_void_p(), ctypes.c_void_p()
    rc = lib.abicheck_run(len(words), argv, ctypes.byref(out), ctypes.byref(err))
    stdout, stderr = _take(lib, out), _take(lib, err)
    if rc in (USAGE, BAD_INPUT):
        doc = _json_or_none(stdout)
        message = stderr.strip() or str((doc or {}).get("error", "")) or stdout
        raise AbicheckError(rc, message)
    doc = _json_or_none(stdout)
    if doc is None:
        raise AbicheckError(BAD_INPUT, f"abicheck {command}: no JSON document (exit {rc}): {stderr}")
    doc["_exit_code"] = rc
    return doc


def _json_or_none(text: str) -> Optional[Dict[str, Any]]:
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def _report(doc: Dict[str, Any], rc: int) -> Report:
    problems = [Problem(kind=str(p.get("kind", "")), message=str(p.get("message", "")),
                        symbol=p.get("symbol"), demangled=p.get("demangled"), json=p)
                for p in doc.get("problems", [])]
    return Report(rc, str(doc.get("module", "")), str(doc.get("verdict", "")),
                  bool(doc.get("loads")), problems, doc)


def check(module: StrPath, against: Optional[Paths] = None, *,
          providers: Paths = (), **options: Any) -> Report:
    """``abicheck check MODULE [PROVIDERS...] [--against BUILD]``: one module, one build (or the
    host's libraries alone). ``against`` is anything --against takes: a torch wheel, a torch/lib
    directory, an index, a virtualenv, ``pip:torch==2.10.0``. Several builds: matrix()."""
    args: List[StrPath] = [module]
    if against is not None:  # then every argument is a module: the providers go by --provider
        options = {**options, "against": _paths(against), "provider": _paths(providers)}
    else:
        args += _paths(providers)
    doc = _request("check", args, options)
    rc = doc.pop("_exit_code")
    if "cells" in doc:  # with --against the document is a matrix, here of one cell
        cells = doc["cells"]
        if len(cells) != 1:
            raise AbicheckError(USAGE, f"check: {len(cells)} results; use matrix() for several")
        return _cell_report(cells[0], rc)
    return _report(doc, rc)


def _cell_report(cell: Dict[str, Any], rc: int) -> Report:
    if isinstance(cell.get("report"), dict):
        return _report(cell["report"], rc)
    return Report(rc, str(cell.get("module", "")), str(cell.get("verdict", "")),
                  bool(cell.get("loads")), [], cell)


def matrix(modules: Paths, against: Paths, **options: Any) -> Matrix:
    """Every module against every build (``abicheck check M... --against B --against B2 ...``)."""
    doc = _request("check", _paths(modules), {**options, "against": _paths(against)})
    rc = doc.pop("_exit_code")
    return Matrix(rc, doc.get("modules", []), doc.get("builds", []), doc.get("cells", []), doc)


def env(path: Optional[StrPath] = None, against: Paths = (),
        **options: Any) -> Environment:
    """``abicheck env [VENV] [--against BUILD...]``: every compiled module of an installed
    environment (default: the active one) against its torch, or against other builds."""
    if against:
        options = {**options, "against": _paths(against)}
    doc = _request("env", [path] if path is not None else [], options)
    rc = doc.pop("_exit_code")
    return Environment(rc, str(doc.get("verdict", "")), bool(doc.get("loads")),
                       doc.get("packages", []), doc)


def gpu(path: StrPath, **options: Any) -> Dict[str, Any]:
    """``abicheck gpu PATH [--gpu sm_90] [--cuda-driver 12.8]``: the device code a module carries
    (gpu.schema.json), with "_exit_code" added."""
    return _request("gpu", [path], options)


class Build:
    """A build opened once (files, a directory, a wheel, an index, a virtualenv) and checked
    against many modules: ``with Build.open("torch/lib") as b: b.check("m.so")``."""

    def __init__(self, handle: int, path: str) -> None:
        self._handle: Optional[int] = handle
        self.path = path

    @classmethod
    def open(cls, path: StrPath) -> "Build":
        lib = _c()
        error = ctypes.c_void_p()
        handle = lib.abicheck_build_open(os.fsencode(path), ctypes.byref(error))
        if not handle:
            raise _error(lib, error)
        return cls(handle, os.fsdecode(path))

    def check(self, module: StrPath) -> Report:
        if self._handle is None:
            raise ValueError("Build is closed")
        lib = _c()
        out, error = ctypes.c_void_p(), ctypes.c_void_p()
        rc = lib.abicheck_check(self._handle, os.fsencode(module), 0, ctypes.byref(out),
                                ctypes.byref(error))
        if rc in (USAGE, BAD_INPUT):
            raise _error(lib, error)
        return _report(json.loads(_take(lib, out)), rc)

    def close(self) -> None:
        if self._handle is not None:
            _c().abicheck_build_close(self._handle)
            self._handle = None

    def __enter__(self) -> "Build":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # at interpreter exit ctypes may already be gone: the OS frees it
            pass


def _error(lib: ctypes.CDLL, error: ctypes.c_void_p) -> AbicheckError:
    code = lib.abicheck_error_code(error)
    message = (lib.abicheck_error_message(error) or b"").decode("utf-8", "replace")
    lib.abicheck_error_free(error)
    return AbicheckError(code, message)
