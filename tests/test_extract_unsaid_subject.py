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
    ("picked up knitting during the winter", "knitting"),
    ("joined a choir that meets on Wednesdays", "choir"),
    ("孩子的画画课在周六", "画画课"),
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
    # found by an audit whose lines were written before the rules were read
    "started raining",
    "moved the meeting to 3pm",
    "bought milk on the way home",
    "learning curve is steep",
    "living in the past is pointless",
    "孩子的教育问题真让人头疼",
    "月报要用的数据在附件里",
    "下次开会之前提醒我带电脑",
    "平时多喝水对身体好",
    "今年种番茄的人特别多",
    "文档用 Markdown 写起来很方便",
])
def test_what_is_not_a_standing_statement_stays_out(line: str) -> None:
    assert _kept(line) == []


@pytest.mark.parametrize("line", [
    "traded in the hatchback for an e-bike",
    "bought a standing desk",
])
def test_what_the_speaker_did_is_kept_only_if_it_changes_a_memory(line: str) -> None:
    """One event as often as a lasting change: a tentative candidate."""
    got = RuleExtractor().extract([Message("user", line, id="m1")])
    assert got and all(c.tentative for c in got)
