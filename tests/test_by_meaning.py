"""A sentence no rule reads either way is judged by its meaning (statementscore.py): kept
as a new statement when it reads as one about the user, never allowed to change or
confirm a memory, and never read out of a quotation's frame, a later sentence's aside, an
event or a greeting."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest

from memvault import Scope, Vault
from memvault.config import Strategy
from memvault.embed import load_embedder
from memvault.extract import Message, RuleExtractor
from memvault.statementscore import judged, score

ME = Scope("acme", "lin")

# Lines about the user in forms no pattern of the rule extractor reads (checked below).
SAID_OF_SELF = [
    "gym is mon/wed/fri before work, non negotiable 💪",
    "猫叫年糕，十岁了，肾不太好在吃处方粮",
    "公司用飞书，不用钉钉",
    "每周三晚上固定有羽毛球局",
    "left-handed btw",  # a trait, not an event ending in -ed
]
# Nothing to keep: a greeting, a reaction, the frame of a quotation, an aside after the
# first sentence, an event, a need of the moment.
NOTHING = [
    "thanks, that was super helpful 🙏",
    "好的谢谢",
    "健身房墙上贴着一句标语：“真正的强者都爱上了深蹲”",
    "I use Vim. bit private",
    "tried ticktick for a week",
    "need a snack idea for the train",
    # someone or something else as the subject, said as a fact of the world
    "John lives in Leeds",
    "Sherlock Holmes lives at 221B Baker Street.",
    "Python is a programming language.",
    "lactose intolerance is common in Asia",
    "张三住在广州",
    "北京是中国的首都",
    "咖啡影响睡眠",
    # for now, or a thank-you
    "in Paris for the weekend",
    "at the dentist rn",
    "Great pasta recipe, thanks",
    # a long run of words with no sentence in it (pasted text, a list; 811 characters,
    # which the model alone would keep)
    " ".join(random.Random(3).choices("gym coffee work cat tea morning run office dog "
                                      "weekend".split(), k=150)),
]


def _kept(vault: Vault) -> list[str]:
    return [m.content for m in vault.list(ME, status="active", limit=50) if m.kind != "turn"]


@pytest.mark.parametrize("line", SAID_OF_SELF)
def test_a_statement_no_rule_reads_is_kept_by_its_meaning(vault: Vault, line: str) -> None:
    rules = RuleExtractor()
    assert rules.extract([Message(role="user", content=line)]) == []  # the rules alone
    unread = rules.extract([Message(role="user", content=line)], unread=True)
    assert [c.flags for c in unread] == [["unread"]]
    out = vault.observe(ME, [{"role": "user", "content": line}]).outcomes
    assert [o.action for o in out] == ["added"]
    m = vault.get(ME, out[0].memory_id or "")
    assert m.metadata["flags"] == ["by_meaning"] and m.source_text == line.strip()


@pytest.mark.parametrize("line", NOTHING)
def test_what_says_nothing_lasting_is_not_kept(vault: Vault, line: str) -> None:
    vault.observe(ME, [{"role": "user", "content": line}])
    assert [c for c in _kept(vault) if "Vim" not in c] == []


def test_a_statement_kept_by_meaning_changes_and_confirms_nothing(vault: Vault) -> None:
    # Close to a stored memory, it is not added beside it (how it relates, no rule read),
    # and the stored memory is left exactly as it was.
    first = vault.observe(ME, [{"role": "user", "content": "我每周三晚上去打羽毛球"}])
    mid = first.outcomes[0].memory_id or ""
    out = vault.observe(ME, [{"role": "user", "content": "每周三晚上固定有羽毛球局"}]).outcomes
    assert [(o.action, o.reasons) for o in out] == [("noop", ["not_a_statement"])]
    m = vault.get(ME, mid)
    assert m.version == 1 and _kept(vault) == [m.content]


def test_a_statement_kept_by_meaning_does_not_confirm_what_it_repeats(vault: Vault) -> None:
    # "don't drink coffee" after "I don't drink coffee": no confirmation counted, no version
    mid = vault.observe(ME, [{"role": "user", "content": "I don't drink coffee"}]).outcomes[0]
    before = vault.get(ME, mid.memory_id or "")
    out = vault.observe(ME, [{"role": "user", "content": "don't drink coffee"}]).outcomes
    assert [(o.action, o.reasons, o.memory_id) for o in out] == [
        ("noop", ["not_a_statement"], None)]
    after = vault.get(ME, before.id)
    assert (after.version, after.updated_at, after.metadata) == (
        before.version, before.updated_at, before.metadata)


def test_a_trip_is_not_kept_beside_where_the_user_lives(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "I live in Leeds"}])
    vault.observe(ME, [{"role": "user", "content": "in Paris for the weekend"}])
    assert _kept(vault) == ["The user lives in Leeds"]


def test_a_subclass_of_the_rules_with_its_own_extract_keeps_working(vault: Vault) -> None:
    class Mine(RuleExtractor):
        def extract(self, messages: list[Message]) -> list[object]:  # type: ignore[override]
            return list(super().extract(messages))

    out = vault.observe(ME, [{"role": "user", "content": "I live in Leeds"}], extractor=Mine())
    assert [o.action for o in out.outcomes] == ["added"]
    vault.observe(ME, [{"role": "user", "content": SAID_OF_SELF[1]}], extractor=Mine())
    assert _kept(vault) == ["The user lives in Leeds"]  # its own extract(): no unread lines


def test_the_threshold_is_the_strategy_s(make_vault: Callable[..., Vault]) -> None:
    strict = make_vault(strategy=Strategy.model_validate({"write": {"statement_score": 1.0}}))
    strict.observe(ME, [{"role": "user", "content": SAID_OF_SELF[0]}])
    assert _kept(strict) == []
    with pytest.raises(ValueError):
        Strategy.model_validate({"write": {"statement_score": 1.5}})


def test_the_score_reads_meaning_and_needs_its_embedder() -> None:
    emb = load_embedder("use-m3")
    said, greeting = emb.embed_documents(["我对猫毛过敏，家里不能养猫", "新年快乐！"])
    assert score({"use-m3": said}) > 0.6 > score({"use-m3": greeting})  # type: ignore[operator]
    # No model for another embedder (or a vector of another size): no score, nothing kept.
    assert score({"e5-small": said}) is None
    assert score({"use-m3": np.zeros(3)}) is None
    c = RuleExtractor().extract([Message(role="user", content=SAID_OF_SELF[0])],
                                unread=True)[0]
    assert judged(c, {"e5-small": said}, 0.6) is None
    assert judged(c, None, 0.6) is None
    assert judged(c, {"use-m3": said}, 1.0) is None  # 1 keeps none, whatever the score
    kept = judged(c, {"use-m3": emb.embed_documents([c.content])[0]}, 0.6)
    assert kept is not None and kept.flags == ["by_meaning"] and not kept.tentative
    other = RuleExtractor().extract([Message(role="user", content="I live in Leeds")])[0]
    assert judged(other, None, 0.6) is other  # what the rules read is not judged again


def test_an_llm_or_custom_extractor_is_not_asked_for_unread_sentences(vault: Vault) -> None:
    class Nothing:
        def extract(self, messages: list[Message]) -> list[object]:
            return []

    out = vault.observe(ME, [{"role": "user", "content": SAID_OF_SELF[0]}], extractor=Nothing())
    assert out.outcomes == [] and _kept(vault) == []


def test_a_statement_kept_by_meaning_that_says_it_is_one_more_is_added_beside(
        vault: Vault) -> None:
    # Close to "I'm learning French on Duolingo", and saying it is one more ("as well"):
    # beside it, the close memory left as it was.
    first = vault.observe(ME, [{"role": "user",
                                "content": "I'm learning French on Duolingo"}]).outcomes
    before = vault.get(ME, first[0].memory_id or "")
    line = "doing a bit of Italian on the side as well, mostly on Duolingo"
    out = vault.observe(ME, [{"role": "user", "content": line}]).outcomes
    assert [o.action for o in out] == ["added"]
    assert vault.get(ME, out[0].memory_id or "").metadata["flags"] == ["by_meaning"]
    after = vault.get(ME, before.id)
    assert (after.version, after.content) == (before.version, before.content)
    assert sorted(_kept(vault)) == sorted([before.content, out[0].content or ""])


@pytest.mark.parametrize("line", ["I get up at 6am", "I get in at 8:30"])
def test_a_time_is_something_a_statement_names(vault: Vault, line: str) -> None:
    # (issue 18, the eleventh set: a routine whose only named thing is its time was read
    # as naming nothing and not kept)
    out = vault.observe(ME, [{"role": "user", "content": line}]).outcomes
    assert [o.action for o in out] == ["added"]
    assert _kept(vault) == [line]
