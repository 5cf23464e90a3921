"""The code base stays ruff-clean: a lint error fails the suite like any other defect."""

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_clean() -> None:
    ruff = shutil.which("ruff")
    assert ruff, "ruff is part of the test extras"
    proc = subprocess.run([ruff, "check", "src", "tests", "benchmarks"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
