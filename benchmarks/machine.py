"""The machine section of the core benchmark's report: CPU, memory, Python, SQLite, BLAS
threads, embedder, the memvault sources measured, the database's filesystem."""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
from pathlib import Path

import numpy as np
import sqlean

import memvault
from memvault import Vault

PROJECT_ROOT = Path(__file__).resolve().parents[1]

def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _mem_total() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def _fs_of(path: Path) -> str:
    try:
        best = ("", "?")
        target = str(path.resolve())
        for line in Path("/proc/mounts").read_text().splitlines():
            parts = line.split()
            mnt, fstype = parts[1], parts[2]
            if (target == mnt or target.startswith(mnt.rstrip("/") + "/")) \
                    and len(mnt) > len(best[0]):
                best = (mnt, fstype)
        return f"{best[1]} ({best[0]})"
    except (OSError, IndexError):
        return "unknown"


def _git_rev() -> str:
    imported = Path(memvault.__file__).resolve().parent
    if not imported.is_relative_to(PROJECT_ROOT):
        return f"imported from {imported} (not this checkout)"
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=PROJECT_ROOT,
                             capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "src"], cwd=PROJECT_ROOT,
                               capture_output=True, text=True, timeout=10).stdout.splitlines()
        return f"{rev}" + (f" + {len(dirty)} uncommitted file(s) in src/" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def src_hash() -> str:
    """Short hash of the memvault sources measured (others may be editing them)."""
    root = Path(memvault.__file__).parent
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:12]


def _blas_threads() -> str:
    """BLAS library and its thread count, without requiring threadpoolctl."""
    env = ", ".join(f"{k}={os.environ[k]}" for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                     "MKL_NUM_THREADS") if k in os.environ)
    env = f"; env {env}" if env else ""
    try:
        import threadpoolctl

        info = threadpoolctl.threadpool_info()
        if info:
            return ", ".join(f"{p['internal_api']} {p['version']} ({p['num_threads']} threads)"
                             for p in info) + env
    except ImportError:
        pass
    import ctypes

    libs = Path(np.__file__).parent.parent / "numpy.libs"
    for lib in sorted(libs.glob("*openblas*")):
        handle = ctypes.CDLL(str(lib))
        for sym in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                    "openblas_get_num_threads"):
            fn = getattr(handle, sym, None)
            if fn is not None:
                return f"OpenBLAS ({fn()} threads; threadpoolctl not installed){env}"
    return f"unknown{env}"


def machine_info(db: Path, vault: Vault, sources: str) -> list[tuple[str, str]]:
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return [
        ("CPU", f"{_cpu_model()}; nproc {os.cpu_count()}"
                + (f", usable {affinity}" if affinity is not None else "")),
        ("memory", _mem_total()),
        ("python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("sqlite (sqlean)", sqlean.sqlite_version),
        ("numpy / BLAS", f"{np.__version__} / {_blas_threads()}"),
        ("embedder", vault.embedding_model),
        ("memvault", f"{_git_rev()}; sources sha256 {sources}"),
        ("db filesystem", _fs_of(db.parent)),
        ("platform", platform.platform()),
    ]

