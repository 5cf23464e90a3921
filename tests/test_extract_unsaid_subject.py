"""Statements whose subject is not said (issue 18): Chinese drops the subject when it is
the speaker ("最近爱上了爬山"), puts the thing first and says how it should be done ("合同请用
PDF 发给我", "文档用 Markdown"), names the user's child without "我" ("娃在读二年级"), and
asks to be reached or reminded on a recurring condition ("每次发版之前提醒我"); chat
English drops "I" before what the speaker did or does ("started a pottery class"). English
"I see a physio" is a statement, not "I see (what you mean)"; "I want you to … in your
replies" is a standing wish, not a task now. What says how a thing behaves, asks for a
task now, or thinks aloud stays out."""

from __future__ import annotations

import pytest

from memvault.extract import Message
from memvault.extract.rules import RuleExtractor


def _kept(line: str) -> list[str]:
    """What would be stored: candidates that are not tentative (a tentative one is kept
    only if it changes a memory it matches)."""
    return [c.content for c in RuleExtractor().extract([Message("user", line, id="m1")])
            if not c.tentative]


@pytest.mark.parametrize("line, word", [
    ("合同请用 PDF 发给我", "PDF"),
    ("文档用 Markdown", "Markdown"),
    ("月报要用表格", "表格"),
    ("最近爱上了爬山", "爬山"),
    ("每次发版之前提醒我", "提醒"),
    ("有消息随时通知我", "通知"),
    ("娃在读二年级", "二年级"),
    ("I see a physio every Monday", "physio"),
    ("I want you to call me Sam in your replies", "Sam"),
    ("你可以叫我阿杰", "阿杰"),
    ("今年在阳台种了辣椒", "辣椒"),
    ("started a pottery class on Thursdays", "pottery"),
    ("growing chillies on the windowsill this summer", "chillies"),
    ("been learning Welsh on Duolingo", "Welsh"),
])
def test_a_statement_with_its_subject_unsaid_is_read(line: str, word: str) -> None:
    kept = _kept(line)
    assert kept and word in kept[0], kept


@pytest.mark.parametrize("line", [
    "手机用久了就卡",          # how a thing behaves
    "把这份报告发给我",        # a task now
    "这个文件用微信发我",      # about the thing at hand
    "I see what you mean",
    "写个总结",
    "今天用了一下午",
    "你可以帮我查一下吗",
    "Running late, sorry",
    "been thinking about the trip",
    "started reading your answer",
])
def test_what_is_not_a_standing_statement_stays_out(line: str) -> None:
    assert _kept(line) == []
