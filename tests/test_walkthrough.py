"""docs/server.md's curl walkthrough, run: the block in the doc must be docs/walkthrough.sh
verbatim, and the script runs with real curl and jq against a real `memvault serve`,
after which the store holds what each step says it did."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from _server import Server

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "docs" / "walkthrough.sh"
DOC = ROOT / "docs" / "server.md"
MARK = "<!-- walkthrough: the block below is docs/walkthrough.sh verbatim -->\n```bash\n"


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    d = tmp_path_factory.mktemp("walkthrough")
    s = Server(str(d / "s.db"), log=d / "server.log", tenant="acme")
    yield s
    s.stop()


def test_the_doc_holds_the_script_verbatim() -> None:
    doc = DOC.read_text(encoding="utf-8")
    assert doc.count(MARK) == 1
    block = doc.split(MARK, 1)[1].split("```\n", 1)[0]
    assert block == SCRIPT.read_text(encoding="utf-8")


def test_every_call_sends_the_key_and_json() -> None:
    text = SCRIPT.read_text(encoding="utf-8")
    calls = re.split(r"(?=curl -sS)", text)[1:]
    assert len(calls) >= 10
    verbs = {"/v1/keys", "/v1/memories?", "/v1/observe", "/v1/recall", "/v1/context",
             "/history", "/rollback", "/v1/review?", "/approve"}
    for verb in verbs:
        assert any(verb in c for c in calls), verb
    for call in calls:
        assert re.search(r'-H "Authorization: Bearer \$(KEY|ADMIN)"', call), call
        assert '-H "Content-Type: application/json"' in call, call


def test_the_walkthrough_runs(srv: Server) -> None:
    for tool in ("curl", "jq", "bash"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing: the walkthrough needs it (.ci/run installs it)")
    assert srv.admin_key
    env = {**os.environ, "BASE": srv.url, "ADMIN": srv.admin_key}
    run = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    mid = re.search(r"^remembered (m_\w+)$", out, re.M)
    assert mid, out
    mid_ = mid.group(1)
    assert "Alice drinks oolong tea every morning" in out  # recall and context
    assert "<memory-context" in out
    assert '"action":"stage"' in out

    with srv.client(srv.admin_key) as admin:
        keys = admin.get("/v1/keys").json()
        keys = keys.get("keys", keys) if isinstance(keys, dict) else keys
        app = [k for k in keys if k.get("name") == "chat-app"]
        assert len(app) == 1 and app[0]["role"] == "service", keys
        alice = {"user": "alice"}
        hist = admin.get(f"/v1/memories/{mid_}/history", params=alice).json()
        assert [h["op"] for h in hist][:3] == ["create", "update", "rollback"], hist
        assert hist[2]["state"]["content"] == "Alice drinks oolong tea every morning"
        mem = admin.get(f"/v1/memories/{mid_}", params=alice).json()
        assert mem["version"] == 4 and mem["content"] == "Alice no longer drinks tea"
        assert admin.get("/v1/review", params=alice).json() == []  # approved, none left
        prefs = admin.get("/v1/memories", params={**alice, "slot": "report.format"}).json()
        assert [m["value"] for m in prefs["items"]] == ["XLSX"]
        assert httpx.get(srv.url + "/healthz").status_code == 200
