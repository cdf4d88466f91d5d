"""`make bench`: run every benchmark script in this folder, one after another
(never collected by pytest: speed is measured here, not asserted in tests)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    failed = 0
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"== {script.stem}", flush=True)
        failed |= subprocess.call([sys.executable, str(script), *sys.argv[1:]]) != 0
        print(flush=True)
    return failed


if __name__ == "__main__":
    sys.exit(main())
