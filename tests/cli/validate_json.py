"""Validates abicheck JSON outputs against docs/schema/*.schema.json (JSON Schema 2020-12).
   validate_json.py SCHEMA_DIR (report|matrix|diff|environment):FILE ...   -- exits 1 on the first invalid file."""
import json
import pathlib
import sys

from jsonschema.validators import Draft202012Validator

schema_dir = pathlib.Path(sys.argv[1])
schemas = {p.stem.split(".")[0]: json.loads(p.read_text()) for p in schema_dir.glob("*.schema.json")}

failed = 0
for arg in sys.argv[2:]:
    kind, path = arg.split(":", 1)
    doc = json.loads(pathlib.Path(path).read_text())
    errors = list(Draft202012Validator(schemas[kind]).iter_errors(doc))
    if kind == "environment" and not errors:  # the embedded matrix, and each import's report
        for imp in doc["torch_imports"]:
            errors += list(Draft202012Validator(schemas["report"]).iter_errors(imp["report"]))
        errors += list(Draft202012Validator(schemas["matrix"]).iter_errors(doc["matrix"]))
        doc = doc["matrix"]
    if kind in ("matrix", "environment") and not errors:  # each cell's report
        for cell in doc["cells"]:
            errors += list(Draft202012Validator(schemas["report"]).iter_errors(cell["report"]))
    for e in errors[:5]:
        print(f"{path}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
    failed += bool(errors)
    print(f"{path}: {'invalid' if errors else 'valid'} ({kind})")
print(f"{len(sys.argv) - 2 - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
