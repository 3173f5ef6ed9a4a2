"""pip's own finder, asked for many requirements in one run (lib/inputs/pip.cc, FindWithPip).

Run by abicheck as `python -c SCRIPT PIP-INSTALL-OPTIONS... -- REQUIREMENT...` with the user's
interpreter: the options are parsed by pip's install command, with pip's configuration files and
environment, and each requirement's wheel is the best candidate of the finder that command builds,
which is the wheel `pip install --no-deps REQUIREMENT` takes. Writes
{"wheels": [{"requirement", "url", "sha256"} or {"requirement", "error", "files"}]} to stdout
("files": what the index has for a requirement no wheel matches, an sdist say), one per
requirement in order. Reads the index's pages only, each project's once: nothing is downloaded,
built or run. pip's internals are not an API: any failure is a non-zero exit, and abicheck asks
`pip install --dry-run --report` instead.
"""
import json
import sys


def main(argv):
    sep = argv.index("--")
    from pip._internal.commands import create_command

    cmd = create_command("install")
    options, _ = cmd.parse_args(argv[:sep])
    with cmd.main_context():
        return find(cmd, options, argv[sep + 1:])


def find(cmd, options, reqs):
    from pip._internal.cli.cmdoptions import make_target_python
    from pip._vendor.packaging.requirements import Requirement
    from pip._vendor.packaging.utils import canonicalize_name

    # An index that cannot be reached is logged at INFO ("Could not fetch URL ...: connection
    # error"), below what reaches stderr unconfigured: said there, for abicheck to name.
    import logging
    collector = logging.getLogger("pip._internal.index.collector")
    collector.setLevel(logging.INFO)
    collector.addHandler(logging.StreamHandler(sys.stderr))
    # As the install command builds it (pip/_internal/commands/install.py, run).
    finder = cmd._build_package_finder(
        options=options,
        session=cmd.get_default_session(options),
        target_python=make_target_python(options),
        ignore_requires_python=options.ignore_requires_python,
    )
    out = []
    for text in reqs:
        item = {"requirement": text}
        try:
            r = Requirement(text)
            result = finder.find_best_candidate(canonicalize_name(r.name), r.specifier)
            best = result.best_candidate
            # PEP 592, as pip's resolver applies it: a yanked file only for an exact pin (the
            # finder ranks every file that is not yanked above one that is).
            pinned = any(s.operator in ("==", "===") and not s.version.endswith(".*")
                         for s in r.specifier)
            if best is None or (best.link.is_yanked and not pinned):
                item["error"] = "no matching distribution"
                item["files"] = other_files(cmd, options, r)
            else:
                item["url"] = best.link.url_without_fragment
                if best.link.hash_name == "sha256":
                    item["sha256"] = best.link.hash
        except Exception as e:  # this requirement is asked of pip install instead
            item["error"] = "%s: %s" % (type(e).__name__, e)
        out.append(item)
    json.dump({"wheels": out}, sys.stdout)


def other_files(cmd, options, r):
    """The files the index has for `r` that the target cannot take (an sdist, a wheel for another
    Python): the names, so that "no wheel" can say what there is. [] when pip cannot tell."""
    import copy
    from pip._internal.cli.cmdoptions import make_target_python
    from pip._internal.models.format_control import FormatControl
    from pip._vendor.packaging.utils import canonicalize_name

    try:
        o = copy.copy(options)
        o.format_control = FormatControl(set(), set())
        finder = cmd._build_package_finder(
            options=o, session=cmd.get_default_session(o),
            target_python=make_target_python(o), ignore_requires_python=True)
        cands = finder.find_all_candidates(canonicalize_name(r.name))
        return sorted({c.link.filename for c in cands
                       if r.specifier.contains(c.version, prereleases=True)})
    except Exception:  # pip's internals are not an API: then nothing is listed
        return []


if __name__ == "__main__":
    main(sys.argv[1:])
