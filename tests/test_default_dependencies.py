"""Every package that `import memvault` and its CLI import at module level is declared in
the default install's dependencies, not only reached through another package's: the
README's first Quick-start line (`pip install . && memvault --tenant acme serve`) runs
without the test extras. (httpx, imported by memvault.client, had come in only through
mcp; mcp 2.3 moved to httpx2 and the fresh install stopped at ImportError.)
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _declared() -> set[str]:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    return {re.split(r"[<>=!~\[; ]", d, maxsplit=1)[0].lower().replace("_", "-")
            for d in deps}


def _loaded_own_modules() -> list[str]:
    out = subprocess.run([sys.executable, "-c", "import sys, json, memvault, memvault.cli; "
                          "print(json.dumps([m.__file__ for n, m in sys.modules.items() "
                          "if n.split('.')[0] == 'memvault' and getattr(m, '__file__', None)]))"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _module_level_imports(path: str) -> set[str]:
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:  # module level only: extras are imported where they are used
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_what_the_default_import_needs_is_declared() -> None:
    dists = packages_distributions()
    declared = _declared()
    needed: dict[str, str] = {}
    for path in _loaded_own_modules():
        for top in _module_level_imports(path):
            if top == "memvault" or top in sys.stdlib_module_names:
                continue
            for dist in dists.get(top, [top]):
                needed.setdefault(dist.lower().replace("_", "-"), Path(path).name)
    missing = {d: f for d, f in needed.items() if d not in declared}
    assert not missing, f"imported at module level but not a default dependency: {missing}"
