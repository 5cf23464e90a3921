"""A reply that gives only the new value ("太早了，15 分钟吧", "ugh, too formal, just Beth")
changes the statement just before it (understand/ellipsis.py, extract/replies.py,
threadlinks.reply_change): the value of the same kind swapped in, through the gate."""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.ellipsis import is_reply, swap

ME = Scope("acme", "rui")


@pytest.mark.parametrize(("line", "statement", "becomes"), [
    ("太早了，15 分钟吧", "改成提前 30 分钟提醒", "改成提前 15 分钟提醒"),
    ("还是 9 点吧", "每天早上 8 点提醒我", "每天早上 9 点提醒我"),
    ("make it 8pm", "Remind me at 7pm every day", "Remind me at 8pm every day"),
    ("hmm, Excel actually, so I can filter", "The user wants reports exported as DOCX",
     "The user wants reports exported as Excel"),
    ("ok final: Brooks Ghost, those actually fit properly", "Switched to Hoka Cliftons",
     "Switched to Brooks Ghost"),
    ("还是ThinkPad吧", "我打算买MacBook Pro", "我打算买ThinkPad"),
    # a unit of the same kind comes with its number; a bare number keeps the old unit
    ("8am actually", "Remind me at 7pm every day", "Remind me at 8am every day"),
    ("i mean 150 lbs", "My target weight is 70 kg", "My target weight is 150 lbs"),
    ("嗯 9 点半吧", "每天晚上 10 点提醒我写日记", "每天晚上 9 点半提醒我写日记"),
    ("make it 20", "remind me 30 minutes before", "remind me 20 minutes before"),
    ("其实是 6 个小时", "我每天睡 7 个小时", "我每天睡 6 个小时"),
    # a day of the week, written as the one it replaces
    ("hmm, make it friday", "Send me the digest on Mondays", "Send me the digest on Fridays"),
    ("还是周四吧", "每周二下午打羽毛球", "每周四下午打羽毛球"),
])
def test_the_one_value_of_its_kind_is_swapped(line: str, statement: str, becomes: str) -> None:
    got = swap(line, statement)
    assert got is not None and got[0] == becomes


@pytest.mark.parametrize(("line", "statement"), [
    ("not 15 minutes, 20", "30 minutes before"),          # two values: which one?
    ("just 2 coffees a day", "I drink 3 coffees a day and 1 tea"),  # two to replace
    ("ok Tuesdays then, Mondays are busy", "Team sync on Mondays"),
    ("I love Paris", "I live in Rome"),                   # no mark of a choice
    ("just use Slack", "Send updates by email"),          # nothing of that kind there
    ("make it 30 minutes", "remind me 2 hours before"),   # another unit
    ("还是 9 点吧", "每天早上 9 点提醒我"),                 # the same value
    ("should I make it 8pm?", "Remind me at 7pm every day"),  # a question
    ("20% actually", "I want to save $20 each month"),    # money is not a share
    ("hmm my wife says 9pm instead", "Remind me at 7pm every day"),  # someone else's
    ("I just bought 2 new shoes", "I run 5 km every morning"),  # a statement of its own
    ("8点不行吧", "每天早上 7 点提醒我"),                   # refused after it
    ("8 点太晚了吧", "每天早上 7 点提醒我"),
    ("Thanks Sam, that's better", "The user's name is Elizabeth"),  # whom it speaks to
    ("make it 99", "Remind me at 7pm every day"),         # no hour of the day
    ("make it 0", "Remind me at 7pm every day"),
    ("make it 20", "I was born in 1990"),                 # not a year's size
    ("make it 8:30", "改成提前 30 分钟提醒"),               # a time of day, not minutes
    ("sleep ３ hours actually", "I sleep 7 hours"),       # full-width digits are no value
])
def test_no_single_value_of_one_kind_no_swap(line: str, statement: str) -> None:
    assert swap(line, statement) is None


@pytest.mark.parametrize("line", [
    "for this email to my cousin just sign it Manny, it's casual",  # one occasion
    "明天赶早班机，5 点叫我，就明天",
    'my friend texted "I just moved to Miami!!" and I\'m so jealous',  # a quotation
    "I moved to Lisbon last year and honestly the weather there is just so much better "
    "than anywhere I had lived before in my life, 10 out of 10",  # says far more
])
def test_not_a_bare_value_reply(line: str) -> None:
    assert not is_reply(line)


def _said(vault: Vault, line: str) -> list[str]:
    return [o.memory_id for o in vault.observe(ME, [{"role": "user", "content": line}]).outcomes
            if o.action in ("added", "updated")]


def _notes(vault: Vault) -> list[str]:
    return [m.content for m in vault.list(ME, status="active", limit=50) if m.kind != "turn"]


def test_a_reply_in_the_same_exchange_changes_what_was_just_changed(vault: Vault) -> None:
    mid = vault.remember(ME, "开会前 10 分钟提醒我").memory.id
    out = vault.observe(ME, [{"role": "user", "content": "改成提前 30 分钟提醒"},
                             {"role": "assistant", "content": "好的，30 分钟。"},
                             {"role": "user", "content": "太早了，15 分钟吧"}]).outcomes
    assert [(o.action, o.memory_id) for o in out] == [("updated", mid), ("updated", mid)]
    assert _notes(vault) == ["开会前 15 分钟提醒我"]  # the statement, its value swapped twice
    last = vault.history(ME, mid)[-1]
    assert last.trigger_text == "太早了，15 分钟吧" and last.to_version == 3


def test_a_later_reply_changes_the_slot_its_swapped_words_set(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "Call me Liz"}])
    vault.observe(ME, [{"role": "user", "content": "actually call me Elizabeth"}])
    (o,) = vault.observe(ME, [{"role": "user",
                               "content": "ugh that feels too formal, just Beth"}]).outcomes
    assert o.action == "updated"
    (m,) = [m for m in vault.list(ME, status="active", limit=50) if m.kind != "turn"]
    assert (m.slot, m.value, m.version) == ("user.name", "Beth", 3)


def test_a_reply_the_extractor_keeps_as_a_line_swaps_the_value_instead(vault: Vault) -> None:
    """"Hmm make it 8pm" read on its own is a correction whose content is those words; as
    a reply it changes the value and keeps the rest of what was said."""
    (mid,) = _said(vault, "Remind me at 7pm every day")
    (o,) = vault.observe(ME, [{"role": "user", "content": "Hmm make it 8pm"}]).outcomes
    assert (o.action, o.memory_id) == ("updated", mid)
    assert _notes(vault) == ["Remind me at 8pm every day"]


@pytest.mark.parametrize("line", ["nah, just Beth", "太正式了，Beth 就行"])
def test_a_reply_cannot_go_around_a_frozen_name(vault: Vault, line: str) -> None:
    vault.observe(ME, [{"role": "user", "content": "actually call me Elizabeth"}])
    (m,) = [m for m in vault.list(ME, status="active", limit=50) if m.kind != "turn"]
    vault.freeze(ME, m.id, reason="confirmed")
    out = vault.observe(ME, [{"role": "user", "content": line}]).outcomes
    assert [(o.action, o.memory_id) for o in out] == [("block", m.id)]
    assert _notes(vault) == [m.content]


def test_a_reply_to_a_frozen_memory_is_blocked(vault: Vault) -> None:
    (mid,) = _said(vault, "Remind me at 7pm every day")
    vault.freeze(ME, mid, reason="confirmed")
    (o,) = vault.observe(ME, [{"role": "user", "content": "make it 8pm"}]).outcomes
    assert (o.action, o.memory_id) == ("block", mid)
    assert _notes(vault) == ["Remind me at 7pm every day"]


@pytest.mark.parametrize("before", [None, "I like green tea"])
def test_a_reply_with_no_value_to_swap_stores_nothing(vault: Vault, before: str | None) -> None:
    if before:
        assert _said(vault, before)
    out = vault.observe(ME, [{"role": "user", "content": "make it 8pm"}]).outcomes
    assert out == []
    assert _notes(vault) == ([before] if before else [])


def test_a_reply_is_about_the_line_just_before_it_only(vault: Vault) -> None:
    """A statement two lines back, or one stored by the app, is not what a bare value
    replies to."""
    vault.remember(ME, "Remind me at 7pm every day")
    assert vault.observe(ME, [{"role": "user", "content": "make it 8pm"}]).outcomes == []
    (mid,) = _said(vault, "My manager is Tom Baker")
    vault.observe(ME, [{"role": "user", "content": "what a week"}])
    out = vault.observe(ME, [{"role": "user", "content": "nah, Anna Lee actually"}]).outcomes
    assert mid not in [o.memory_id for o in out]
    assert (vault.get(ME, mid).version, vault.get(ME, mid).content) == (
        1, "My manager is Tom Baker")
    assert "Remind me at 7pm every day" in _notes(vault)


def test_a_one_off_does_not_touch_the_standing_wish(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "Sign my professional emails as Dr. Reyes"}])
    before = _notes(vault)
    vault.observe(ME, [{"role": "user",
                        "content": "for this email to my cousin just sign it Manny, it's casual"}])
    assert _notes(vault) == before


def test_another_extractors_reading_stands(vault: Vault) -> None:
    """A caller's extractor that reads nothing in a line is not second-guessed by the
    rules' bare-value reading."""

    class Nothing:
        name = "nothing"

        def extract(self, messages: list) -> list:
            return []

    (mid,) = _said(vault, "Remind me at 7pm every day")
    out = vault.observe(ME, [{"role": "user", "content": "make it 8pm"}],
                        extractor=Nothing()).outcomes
    assert out == [] and vault.get(ME, mid).version == 1


def test_within_a_call_a_reply_is_about_the_user_line_just_before_it(vault: Vault) -> None:
    """A line between (even one that stored nothing) cuts a reply off from an older
    statement, in one call as across calls."""
    (mid,) = _said(vault, "My manager is Tom Baker")
    out = vault.observe(ME, [{"role": "user", "content": "what a week"},
                             {"role": "assistant", "content": "Sounds rough!"},
                             {"role": "user", "content": "nah, Anna Lee actually"}]).outcomes
    assert mid not in [o.memory_id for o in out]
    out = vault.observe(ME, [{"role": "user", "content": "Remind me at 7pm every day"},
                             {"role": "user", "content": "what a week"},
                             {"role": "user", "content": "make it 8pm"}]).outcomes
    assert [o.action for o in out] == ["added"]
    assert vault.get(ME, mid).version == 1
    assert "Remind me at 7pm every day" in _notes(vault)


def test_a_reply_quoted_by_the_assistant_first_is_the_users_turn(vault: Vault) -> None:
    """Without message ids, the reply is the user's line, not an assistant line that
    quotes it: purging the user's turn erases what it changed."""
    res = vault.observe(ME, [
        {"role": "user", "content": "Remind me at 7pm every day"},
        {"role": "assistant", "content": "Done. If that's too early just say: make it 8pm"},
        {"role": "user", "content": "make it 8pm"}])
    (mid,) = {o.memory_id for o in res.outcomes}
    m = vault.get(ME, mid)
    assert (m.content, m.metadata.get("turn_id")) == ("Remind me at 8pm every day",
                                                      res.turns[2])
