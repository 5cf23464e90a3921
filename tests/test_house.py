"""The structure of the house, read from its own source with `ast`: no import cycle, no
module using another module's private names, no source file over 600 lines, and no
floor importing a floor above it (docs/design.md, "The house")."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "memvault"
MAX_LINES = 600
# Files allowed past MAX_LINES, each with the reason. None today.
LONG_OK: dict[str, str] = {}

# Top floor first. A module is on the first floor whose prefixes match its dotted name
# (a prefix matches the module itself and everything under it); the rest are foundations
# (model, validation, config, text and vectors, the extractor, the gate, rendering).
FLOORS: list[tuple[str, tuple[str, ...]]] = [
    ("faces", ("memvault.cli", "memvault.server", "memvault.mcpserver", "memvault.demo",
               "memvault.eval", "memvault.integrations")),
    ("package", ("memvault",)),  # memvault/__init__.py: the public names
    # The Vault, and its peer over HTTP (the client meets the server only on the wire).
    ("facade", ("memvault.vault", "memvault.vault_snapshots", "memvault.vault_strategies",
                "memvault.vault_imports", "memvault.vault_agents", "memvault.vault_teams",
                "memvault.client", "memvault.clientimports", "memvault.clientteams",
                "memvault.clientsnapshots", "memvault.clientstrategies", "memvault.clientwire",
                "memvault.mergeverbs", "memvault.clientmerge",
                "memvault.vault_online_eval", "memvault.clientonlineeval",
                "memvault.vault_replay", "memvault.clientreplay")),
    ("paths", ("memvault.writepath", "memvault.threadlinks", "memvault.readbacks",
               "memvault.slotnames",
               "memvault.review",
               "memvault.lifecycle",
               "memvault.consolidate", "memvault.onlineeval", "memvault.evalreport",
               "memvault.portability", "memvault.importscan", "memvault.importreview",
               "memvault.agentmemory",
               "memvault.layers.assemble", "memvault.layers.graph",
               "memvault.layers.section", "memvault.layers.shortterm",
               "memvault.layers.summarize")),
    ("engine", ("memvault.engine",)),
    ("write core", ("memvault.writes",)),
    ("read core", ("memvault.reads",)),
    ("core", ("memvault.core",)),
    ("store readers", ("memvault.derived", "memvault.turnctx", "memvault.turnnotes")),
    # API keys and webhooks in the store, for the server and the CLI
    ("keys", ("memvault.apikeys", "memvault.webhooks", "memvault.teams")),
    ("store", ("memvault.store",)),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def floor_of(mod: str) -> int:
    for n, (_, prefixes) in enumerate(FLOORS):
        for p in prefixes:
            if mod == p or (p != "memvault" and mod.startswith(p + ".")):
                return n
    return len(FLOORS)  # foundations


def resolve(mod: str, is_pkg: bool, level: int, target: str | None) -> str:
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def imports() -> dict[str, set[str]]:
    """module -> the package modules it imports, at any depth (a function-level or a
    TYPE_CHECKING import ties modules together as much as a top-level one)."""
    out: dict[str, set[str]] = {m: set() for m in MODULES}
    for mod, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [(a.name, []) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = (resolve(mod, is_pkg, node.level, node.module) if node.level
                        else node.module or "")
                targets = [(base, [a.name for a in node.names])]
            else:
                continue
            for base, names in targets:
                # `from . import a, b` imports modules a and b; `from .m import x`, module m.
                subs = {f"{base}.{n}" for n in names} & MODULES.keys()
                out[mod] |= (subs or ({base} & MODULES.keys())) - {mod}
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), leaving out a
    package's __init__ with a submodule it re-exports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)

    def reexport(comp: list[str]) -> bool:
        a, b = comp if len(comp) == 2 else ("", "-")
        return b.startswith(a + ".") or a.startswith(b + ".")
    return [c for c in found if not reexport(c)]


def test_no_import_cycle() -> None:
    assert cycles(imports()) == []


def test_no_floor_imports_a_floor_above_it() -> None:
    names = [name for name, _ in FLOORS] + ["foundations"]
    upward = sorted(
        f"{mod} ({names[floor_of(mod)]}) imports {dep} ({names[floor_of(dep)]})"
        for mod, deps in imports().items() for dep in deps
        if floor_of(dep) < floor_of(mod))
    assert upward == []


def test_no_module_uses_another_modules_private_names() -> None:
    found = []
    for mod, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_pkg = path.name == "__init__.py"
        # Names this module defines itself (its classes' fields and methods included).
        own = {n.name for n in ast.walk(tree)
               if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
        own |= {n.attr for n in ast.walk(tree)
                if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
        own |= {n.id for n in ast.walk(tree)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = (resolve(mod, is_pkg, node.level, node.module) if node.level
                        else node.module or "")
                if base.startswith("memvault"):
                    found += [f"{mod} imports {base}.{a.name}" for a in node.names
                              if a.name.startswith("_") and not a.name.startswith("__")]
            elif (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                  and not node.attr.startswith("__")
                  and isinstance(node.value, ast.Name)
                  and node.value.id not in ("self", "cls") and node.attr not in own):
                found.append(f"{mod}:{node.lineno} uses {node.value.id}.{node.attr}")
    assert found == []


def test_no_source_file_over_600_lines() -> None:
    long = {str(p.relative_to(SRC)): n for p in SRC.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert {f: n for f, n in long.items() if f not in LONG_OK} == {}


def test_the_checks_would_catch_what_they_look_for() -> None:
    # The walker itself: a cycle and an upward import are found when present.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    assert cycles({"p": {"p.x"}, "p.x": {"p"}}) == []
    assert floor_of("memvault.vault") < floor_of("memvault.writes.commit") \
        < floor_of("memvault.store.sqlite") < floor_of("memvault.model")
    assert imports()["memvault.vault"] >= {"memvault.engine", "memvault.writepath"}
