"""docs/integrations.md stays true: every Python block runs (a fresh interpreter each,
no network) and prints what the page says; and `import memvault` imports no framework."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "integrations.md"
FRAMEWORKS = ("langgraph", "langchain_core", "agents", "openai")


def _blocks() -> dict[str, str]:
    """The page's Python blocks by the `## ` section they are in."""
    out: dict[str, str] = {}
    section = ""
    for m in re.finditer(r"^## ([^\n]+)$|^```python\n(.*?)^```$", PAGE.read_text(),
                         re.M | re.S):
        if m.group(1):
            section = m.group(1).strip()
        else:
            assert section not in out, f"two examples under {section!r}"
            out[section] = m.group(2)
    return out


def _run(code: str, tmp_path: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "HOME": str(tmp_path),
           # Loopback only: any attempt to reach the network fails instead of waiting.
           "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
           "NO_PROXY": "", "OPENAI_API_KEY": "sk-offline", "MEMVAULT_DB": str(tmp_path / "x.db")}
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_one_example_per_framework() -> None:
    assert list(_blocks()) == ["LangGraph", "LangChain", "OpenAI Agents SDK",
                              "OpenAI-compatible clients"]  # run by test_integration_openai


def test_langgraph_example(tmp_path: Path) -> None:
    lines = _run(_blocks()["LangGraph"], tmp_path).splitlines()
    assert lines[0] == "Green tea."
    assert lines[1] == "{'text': 'Alice drinks green tea'} ['create']"


def test_langchain_example(tmp_path: Path) -> None:
    lines = _run(_blocks()["LangChain"], tmp_path).splitlines()
    assert lines[0] == ("[('human', 'I prefer tea over coffee.'), ('ai', 'Tea it is.')]")
    assert lines[1] == "['I prefer tea over coffee']"
    assert lines[2] == "[]"


def test_agents_example(tmp_path: Path) -> None:
    lines = _run(_blocks()["OpenAI Agents SDK"], tmp_path).splitlines()
    assert lines[0] == "You like jazz."
    # run 1: message, tool call, tool output, answer; run 2: message, answer
    assert lines[1] == "6"
    assert lines[2] == "['Alice likes jazz']"


@pytest.mark.parametrize("module", ["memvault", "memvault.integrations"])
def test_import_memvault_imports_no_framework(module: str, tmp_path: Path) -> None:
    out = _run(f"import sys, {module}\n"
               f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r}))",
               tmp_path)
    assert out.strip() == "[]"
