"""`memvault team ...` and the global `--team` (docs/teams.md), in process: teams and
members are made, a writer writes into the team, a reader may not, recall shows the scope
marks, `--no-teams` leaves the team out, bad input exits 1 with a typed message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from memvault.cli.app import app


def _run(db: str, *args: str, ok: bool = True) -> Any:
    r = CliRunner().invoke(app, ["--db", db, "--tenant", "acme", "--json", *args])
    if ok:
        assert r.exit_code == 0, r.output
        return json.loads(r.stdout) if r.stdout.strip() else None
    assert r.exit_code == 1, r.output
    return r


def _code(r: Any) -> str:
    return str(json.loads(r.output)["code"])


def test_team_commands_and_the_team_option(tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    assert _run(db, "team", "create", "eng")["name"] == "eng"
    assert _run(db, "team", "add", "eng", "alice", "--role", "writer")["role"] == "writer"
    _run(db, "team", "add", "eng", "bob")
    assert [(m["user"], m["role"]) for m in _run(db, "team", "members", "eng")] == [
        ("alice", "writer"), ("bob", "reader")]
    assert _run(db, "--user", "bob", "team", "list")[0]["role"] == "reader"
    wrote = _run(db, "--user", "alice", "--team", "eng", "remember",
                 "The build server is named hopper")
    assert wrote["memory"]["scope"]["user"] == "team:eng"
    r = _run(db, "--user", "bob", "--team", "eng", "remember", "bob writes", ok=False)
    assert _code(r) == "forbidden" and "reader" in r.output
    _run(db, "--user", "bob", "remember", "My build alias is hb")
    hits = _run(db, "--user", "bob", "recall", "build server name")["hits"]
    marks = {h["memory"]["id"]: h.get("scope_mark") for h in hits}
    assert marks[wrote["id"]] == {"scope": "team", "team": "eng"}
    solo = _run(db, "--user", "bob", "recall", "build server name", "--no-teams")["hits"]
    assert wrote["id"] not in [h["memory"]["id"] for h in solo]
    # Alice never reads bob's own memory.
    hits = _run(db, "--user", "alice", "recall", "build alias hb")["hits"]
    assert all(h["memory"]["scope"]["user"] != "bob" for h in hits)
    # Governance in the team: a writer may forget, only a team admin may freeze.
    _run(db, "--user", "alice", "--team", "eng", "forget", wrote["id"])
    _run(db, "--user", "alice", "--team", "eng", "rollback", wrote["id"], "1")
    r = _run(db, "--user", "alice", "--team", "eng", "freeze", wrote["id"], ok=False)
    assert "admin" in r.output
    _run(db, "team", "add", "eng", "alice", "--role", "admin")
    _run(db, "--user", "alice", "--team", "eng", "freeze", wrote["id"])
    _run(db, "team", "remove", "eng", "bob")
    hits = _run(db, "--user", "bob", "recall", "build server name")["hits"]
    assert wrote["id"] not in [h["memory"]["id"] for h in hits]
    # Bad input: typed, exit 1, nothing stored.
    assert _code(_run(db, "team", "create", "eng", ok=False)) == "conflict"
    assert _code(_run(db, "team", "create", "Eng!", ok=False)) == "invalid_input"
    assert _code(_run(db, "team", "add", "eng", "x", "--role", "boss",
                                     ok=False)) == "invalid_input"
    assert _code(_run(db, "team", "members", "ops", ok=False)) == "not_found"
    assert _code(_run(db, "--user", "team:eng", "remember", "x",
                                     ok=False)) == "invalid_scope"
    assert [t["name"] for t in _run(db, "team", "list")] == ["eng"]
