"""Lines whose grammar says they state nothing about how things are (issue 18): a
question asked in the A-not-A form ("会不会", "喜不喜欢"), a conditional that asks or
imagines ("万一…，…？", "if I got the job I'd…", "I'd … if I won …"), and the words that
introduce a quotation ("我同事在群里说：“…”"). Written before the rules that read them,
in wording of its own (not from benchmarks/generalisation); beside each, a line of the
same shape that does state something, which must still be read."""

from __future__ import annotations

import pytest

from memvault.extract import Message
from memvault.extract.rules import RuleExtractor


def _read(line: str) -> list[str]:
    return [c.content for c in RuleExtractor().extract([Message("user", line, id="m1")])]


@pytest.mark.parametrize("line", [
    # A-not-A questions
    "这个方案我改了三遍了，你看行不行",
    "周末去爬山的话，你觉得会不会下雨",
    # a conditional that asks
    "万一以后换工作的话，公积金怎么处理？",
    "要是明年搬去深圳，房租大概多少？",
    "if I switch teams next year, what happens to my bonus?",
    # a conditional that imagines
    "if I got the Berlin job I'd learn German properly",
    "if we had a bigger flat we would get a second cat",
    "I'd quit tomorrow if I won the lottery",
    "I would move to the coast if I could work remotely",
    # the words before a quotation are not a statement of their own
    "我同事在群里说：“周五之前把报告交上来”，我该怎么回",
    "my boss emailed me: \"keep the summary under one page\", is that reasonable?",
    "我给客户回了一句“收到，马上处理”，是不是太随便了",
])
def test_a_line_that_asks_or_imagines_states_nothing(line: str) -> None:
    assert _read(line) == []


@pytest.mark.parametrize("line, word", [
    ("我不吃香菜", "香菜"),
    ("I'd like my reports in PDF from now on", "PDF"),
    ("if it rains I take the bus to work", "bus"),
    ("I always take the train if the weather is bad", "train"),
    ("我每天跑五公里", "五公里"),
    ("以后周报都发PDF", "PDF"),
])
def test_a_statement_of_the_same_shape_is_still_read(line: str, word: str) -> None:
    assert any(word.lower() in c.lower() for c in _read(line))


# A clause that states something keeps its own reading beside the question (the rule
# extractor reads "我下周去上海出差" alone as a statement too); the question is not read.
@pytest.mark.parametrize("line, kept, asked", [
    ("我每天跑五公里，膝盖受不受得了", "五公里", "膝盖"),
    ("我下周去上海出差，那边会不会很冷", "上海", "冷"),
    ("我想给我妈买个按摩椅，她喜不喜欢这种东西啊", "按摩椅", "喜不喜欢"),
    ("I'm vegetarian, would a mushroom risotto work for the party?", "vegetarian", "risotto"),
])
def test_a_statement_beside_a_question_is_read_without_it(line: str, kept: str,
                                                          asked: str) -> None:
    got = _read(line)
    assert any(kept in c for c in got) and not any(asked in c for c in got)


# From an audit of the first version of these rules (a helper who wrote its expectations
# first): set phrases, "whether or not", a choice spoken about, a wish put as "I'd … if",
# a polite "if possible", a tag after a request, a statement before a quotation's
# introduction: all still read.
@pytest.mark.parametrize("line, word", [
    ("我时不时会偏头痛，吃布洛芬有效", "偏头痛"),
    ("我一般有没有空都会去健身房", "健身房"),
    ("我每天不管累不累都会练一小时琴", "练"),
    ("我对咖啡只在乎香不香，别的无所谓", "咖啡"),
    ("我下个月去东京，万一下雨怎么办？", "东京"),
    ("我主要是晚上失眠，有什么办法吗？", "失眠"),
    ("If possible, could you answer in French from now on?", "French"),
    ("If there's a vegetarian option I'd always choose it", "vegetarian"),
    ("I'd appreciate it if I got a summary at the end of each answer", "summary"),
    ("回答短一点，行不行啊", "简"),
    ("I moved to Berlin last month, and my landlord texted me: \"the rent goes up in May\"",
     "Berlin"),
])
def test_what_the_mood_rules_must_leave_alone(line: str, word: str) -> None:
    assert any(word.lower() in c.lower() for c in _read(line)), _read(line)


@pytest.mark.parametrize("line, kept", [
    ("要是公司离家近一点，我肯定每天走路上班", False),
    ("以后要是换了大房子，我想养一只金毛", False),
    ("要是那家健身房便宜点我就办卡了，可惜太贵", False),
    # a condition on what the assistant should do, or a habit, is kept
    ("如果我没回消息，就打我电话", True),
    ("如果加班，我就不吃晚饭", True),
    # a plan for something the user would first have to get, named by a pronoun
    ("要是我领养一只猫，就叫它年糕", False),
    ("我养了只猫，给它起名叫咪咪", True),
])
def test_a_chinese_condition_with_what_the_speaker_would_do_is_imagined(
        line: str, kept: bool) -> None:
    assert bool(_read(line)) is kept


@pytest.mark.parametrize("line, kept", [
    ("if we ever adopt a greyhound we'll call him Dash", False),
    ("we adopted a greyhound and call him Dash", True),
])
def test_a_plan_for_what_the_user_would_first_have_to_get_is_imagined(
        line: str, kept: bool) -> None:
    assert bool(_read(line)) is kept
