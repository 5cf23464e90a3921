"""A change said about someone of the user's changes what is stored about that person
(gate.py, issue 18), on both backends. Before, a statement about a sister, a wife or a
manager was never related to anything stored: "my sister eats fish again now" was added
beside "My sister is vegan", and the stale value stayed current. It still changes nothing
the user holds of themselves, and nothing stored about someone else.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault

ME = Scope("acme", "lin")


def _say(vault: Vault, line: str) -> None:
    vault.observe(ME, [{"role": "user", "content": line}])


def _active(vault: Vault) -> dict[str, int]:
    return {m.content: m.version for m in vault.list(ME, limit=50)
            if m.kind != "turn" and m.status == "active"}


@pytest.mark.parametrize(("before", "change", "word"), [
    ("My sister is vegan.", "my sister eats fish again now, she's pescatarian", "pescatarian"),
    ("我老婆在腾讯上班", "我老婆现在换到阿里了", "阿里"),
    ("My manager's name is Katherine.", "my manager is called Catherine now", "Catherine"),
    # one person by two words, and a parent named without "my"/"我"
    ("My mum is vegan.", "Mom eats fish again now, she's pescatarian", "pescatarian"),
    ("我爸妈住在成都", "爸妈今年搬来北京跟我们一起住了", "北京"),
    ("我老公在银行上班", "我丈夫现在换到保险公司上班了", "保险"),
])
def test_a_change_about_someone_of_the_users_updates_their_memory(
        vault: Vault, before: str, change: str, word: str) -> None:
    _say(vault, before)
    _say(vault, change)
    active = _active(vault)
    assert len(active) == 1, active  # the stale value is no longer current beside it
    [(content, version)] = active.items()
    assert word in content and version == 2


@pytest.mark.parametrize(("line", "who"), [
    ("老妈最近开始跳广场舞了", "妈妈"),
    ("我妈对芒果过敏", "妈妈"),
    ("Mum switched to oat milk", "mother"),
    ("my mother hates coriander", "mother"),
])
def test_a_parent_is_one_person_whatever_word_names_them(line: str, who: str) -> None:
    from memvault.extract import Message
    from memvault.extract.rules import RuleExtractor
    (c,) = RuleExtractor().extract([Message("user", line)])
    assert c.subject == who


def test_the_users_own_memory_is_not_changed_by_a_relatives(vault: Vault) -> None:
    _say(vault, "I'm vegetarian.")
    _say(vault, "my sister is pescatarian now")
    active = _active(vault)
    mine = [(c, v) for c, v in active.items() if "vegetarian" in c]
    assert len(mine) == 1 and mine[0][1] == 1, active


def test_what_is_stored_about_another_person_stays(vault: Vault) -> None:
    _say(vault, "My brother lives in Leeds.")
    _say(vault, "my sister lives in York now")
    active = _active(vault)
    assert active.get("My brother lives in Leeds") == 1, active
    assert any("York" in c for c in active)
