"""MCP recall and context show the scope marks of a read merged with the user's teams
(docs/teams.md), over the SDK's own client on stdio; `teams=false` leaves them out; a
server cannot be started for a team's scope as its user."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from test_mcp import ALICE, call, run, stdio_params, stdio_session

import memvault
from memvault import Vault

# The server process runs this checkout's package, whatever the venv has installed.
SRC = {"PYTHONPATH": str(Path(memvault.__file__).parents[1])}


def test_mcp_recall_and_context_mark_scopes(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Vault(str(db), embedder="use-m3") as v:
        v.create_team("acme", "eng")
        v.add_member("acme", "eng", "alice")
        eng = v.team_scope("acme", "eng")
        shared = v.remember(eng, "The staging database is called pluto").id
        default = v.remember(eng, "Tickets are filed in Jira", slot="tickets.tool",
                             value="jira").id
        mine = v.remember(ALICE, "I file my tickets in Linear", slot="tickets.tool",
                          value="linear").id
        v.remember({"tenant": "acme", "user": "bob"}, "Bob's staging password is hunter2")

    async def main() -> None:
        async with stdio_session(stdio_params(db, env=SRC)) as s:
            err, r = await call(s, "recall", query="staging database name")
            assert not err
            marks = {h["memory"]["id"]: h.get("scope_mark") for h in r["hits"]}
            assert marks[shared] == {"scope": "team", "team": "eng"}
            assert all(h["memory"]["scope"]["user"] in ("alice", "team:eng")
                       for h in r["hits"])
            err, r = await call(s, "recall", query="where are tickets filed")
            ids = [h["memory"]["id"] for h in r["hits"]]
            assert mine in ids and default not in ids
            won = next(h["scope_mark"] for h in r["hits"] if h["memory"]["id"] == mine)
            assert won["precedence"] == "personal_over_team" and won["overrides"] == [default]
            err, r = await call(s, "context", query="where are tickets filed, staging db")
            assert not err and "Linear" in r["text"] and "Jira" not in r["text"]
            assert "OVERRIDES TEAM DEFAULT" in r["text"] and "team=eng" in r["text"]
            assert "hunter2" not in r["text"]
            assert {"id": default, "reason": "overridden"}.items() <= next(
                d for d in r["dropped"] if d["id"] == default).items()
            err, r = await call(s, "recall", query="staging database name", teams=False)
            assert shared not in [h["memory"]["id"] for h in r["hits"]]

    run(main)


def test_mcp_refuses_a_team_as_its_user(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "memvault.cli", "--db", str(tmp_path / "m.db"),
                           "--tenant", "acme", "--user", "team:eng", "mcp"],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env={**os.environ, **SRC})
    assert proc.returncode != 0
    assert "reserved for teams" in proc.stderr
