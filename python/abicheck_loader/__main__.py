"""``python -m abicheck_loader ARGS...``: the abicheck program, where the wheel's bin/ is not on PATH."""
import sys

from . import run

result = run(*sys.argv[1:])
sys.stdout.write(result.stdout)
sys.stderr.write(result.stderr)
sys.exit(result.exit_code)
