"""What surrounds a change decides nothing by itself (understand/discourse.py, relate.py,
writepath.py): the reason given with a change is not a memory and does not change the
memory again; a story about the past changes nothing current; a clause that says a thing
stays keeps that memory out of what the rest of the line changes; "this one" is one
occasion; the user's own child is someone else."""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.discourse import (
    explains,
    kept_clauses,
    recounts,
    stays_only,
    stops_only,
)

ME = Scope("acme", "lin")


def _tell(vault: Vault, line: str) -> list[str]:
    return [o.action for o in vault.observe(ME, [{"role": "user", "content": line}]).outcomes]


def _active(vault: Vault) -> list[str]:
    return sorted(m.content for m in vault.list(ME, status="active", limit=50)
                  if m.kind != "turn")


@pytest.mark.parametrize(("line", "told"), [
    ("back when I lived in Dundee I biked everywhere", True),
    ("when I was 15 I was obsessed with skateboarding, switched to surfing at 18", True),
    ("growing up we only ever ate rice", True),
    ("高中那会儿天天喝可乐", True),
    ("刚工作那会儿每天加班到十点，后来换了组才好", True),
    ("大学的时候一周打三次球，现在想想真有精力", True),     # looking back, not how it is
    ("when I was a kid I hated olives, now I love them", False),
    ("I moved to Berlin back in March", False),            # a move that still holds
    ("I used Notion back then but switched to Obsidian", False),  # the change is now
    ("我戒咖啡了，当年就是喝太多才失眠的", False),            # the story is the reason
    ("when I was 30 I started running, still do", False),
    ("I used Vim for ten years before switching to VS Code", False),
    ("小时候不吃辣，现在无辣不欢", False),
    ("I switched to oat milk", False),
])
def test_a_story_about_the_past(line: str, told: bool) -> None:
    assert recounts(line) is told


@pytest.mark.parametrize(("line", "kept"), [
    ("new job at a brewery, still living in Leith though", ["still living in Leith though"]),
    ("还住在老地方没搬，不过换了家公司", ["还住在老地方没搬"]),
    ("changed teams - still the same manager though, oh and I'm learning Go",
     ["still the same manager though"]),
    ("still in Leith, freezing as ever", []),              # nothing else said: a restatement
    ("I still live in Leith", []),
    ("公司统一换成ThinkPad了🙄 机械键盘我还是自己带着用", ["机械键盘我还是自己带着用"]),
    ("switched to tea ☕ still drinking coffee on weekends though",
     ["still drinking coffee on weekends though"]),
    ("switched from Vim to VS Code, still love Vim keybindings though", []),  # a feeling
    ("switched to tea", []),
])
def test_what_a_line_says_stays(line: str, kept: list[str]) -> None:
    assert kept_clauses(line) == kept


@pytest.mark.parametrize(("line", "only"), [
    ("my elbow just can't take it anymore", True),
    ("路上太堵了，实在骑不动了", True),
    ("quit smoking", True),
    ("I can't wait to start at Stripe", False),            # "can't" is no stop
    ("can't stand cilantro", False),
    ("switched to tea, can't do coffee anymore", False),   # names what replaced it
    ("I quit keto, I'm doing Mediterranean now", False),   # and says what holds now
    ("我不吃素了，现在荤素都吃", False),
    ("换成地铁了，开不起车了", False),
    ("南京也不去了 改去合肥", False),                      # 改去: what replaces it
    ("改天再说吧，不去了", True),                          # 改天 is another day
    ("we're in Lisbon now", False),
])
def test_saying_only_what_stopped(line: str, only: bool) -> None:
    assert stops_only(line) is only


@pytest.mark.parametrize(("line", "why"), [
    ("Too crowded, too loud.", True),
    ("been binging a podcast on the commute now", True),
    ("we mostly cook at home now", False),                 # the speaker's own: kept
    ("My birthday is March 3 btw", False),
    ("Allergic to peanuts, by the way.", False),           # one more thing, said at its end
    ("生日是5月3号，记一下", False),
    ("Wife and I are expecting a baby in May.", False),
    ("Me and Tom got married in June.", False),
    ("it was wrecking my sleep, can't do it anymore", True),
    ("I work from a café now", False),                     # led by the speaker: its own
    ("ok so I'm training for a half marathon", False),
    ("also, my sister moved in", False),                   # one more thing
    ("unrelated but my birthday is in May", False),
    ("跟这个没关系哈，我下个月生日", False),
    ("switched to tea instead", False),                    # a change of its own
    ("please forget my old address", False),               # a retraction
])
def test_a_sentence_that_only_explains(line: str, why: bool) -> None:
    assert explains(line) is why


@pytest.mark.parametrize(("stored", "line", "now"), [
    ("I play tennis every weekend",
     "honestly I've started to hate tennis now. the elbow just can't take it anymore",
     "Honestly I've started to hate tennis now"),
    ("I drink a lot of coffee", "I quit coffee. coffee was wrecking my sleep, can't do it anymore",
     "I quit coffee"),
    ("我每天骑车上班", "现在不骑车了。路上太堵了，实在骑不动了", "现在不骑车了"),
    ("I love board games", "board games bore me now. too long, too many rules",
     "Board games bore me now"),
])
def test_the_reason_for_a_change_neither_stays_nor_overwrites_it(
        vault: Vault, stored: str, line: str, now: str) -> None:
    mid = vault.remember(ME, stored).memory.id
    acts = _tell(vault, line)
    assert acts[0] == "updated" and "added" not in acts
    assert _active(vault) == [now]
    history = vault.history(ME, mid)
    # v2 was made by the change, its trigger the sentence that said it, not the reason
    assert [r.to_version for r in history] == [1, 2]
    assert line.startswith(history[-1].trigger_text or "-")


@pytest.mark.parametrize(("line", "only"), [
    ("still fully remote, so the job didn't change at all", True),
    ("组没变 还是支付组", True),
    ("跳槽去网易了！还是住滨江", False),                   # opens with news
    ("最后还是决定买ThinkPad", False),                     # a decision, not what stays
    ("still in Leith but switched to oat milk now", False),
    ("还是决定搬去成都了", False),                          # what was done after all
    ("还在滨江上班，老婆怀孕了，预产期十月", False),          # news after what stays
    ("nothing changed except I'm on nights now", False),
    ("didn't change my number but I'm on Vodafone now", False),
    ("still in Leith, freezing as ever", True),
])
def test_a_sentence_that_says_only_what_stays(line: str, only: bool) -> None:
    assert stays_only(line) is only


def test_what_stays_after_a_change_confirms_and_changes_nothing(vault: Vault) -> None:
    home = vault.remember(ME, "I live in Denver").memory.id
    remote = vault.remember(ME, "I work remotely").memory.id
    _tell(vault, "we moved to Boulder! still fully remote so the job didn't change at all")
    assert "Boulder" in (vault.get(ME, home).content or "")
    m = vault.get(ME, remote)
    assert (m.version, m.content) == (1, "I work remotely")


def test_a_kept_thing_beside_an_emoji_is_not_what_the_line_changes(vault: Vault) -> None:
    keyboard = vault.remember(ME, "I use a mechanical keyboard").memory.id
    vault.remember(ME, "I use a MacBook for work")
    _tell(vault, "work switched us all to thinkpads 🙄 kept my mechanical keyboard tho")
    assert vault.get(ME, keyboard).version == 1


def test_a_new_statement_of_the_speaker_after_a_change_is_kept(vault: Vault) -> None:
    vault.remember(ME, "I drink black coffee")
    assert _tell(vault, "I switched to green tea now. I'm training for a half marathon "
                        "in May.") == ["updated", "added"]
    assert _active(vault) == ["I switched to green tea now",
                              "I'm training for a half marathon in May"]


@pytest.mark.parametrize(("stored", "line"), [
    ("I live in Glasgow",
     "back when I lived in Dundee I cycled along the Tay every day, switched to running later"),
    ("我现在喝茶", "大学那会儿一天两罐红牛，后来才戒掉的"),
    ("I prefer tea over coffee",
     "growing up I drank coffee every day, switched to tea in my twenties"),
])
def test_a_story_about_the_past_changes_nothing_current(vault: Vault, stored: str,
                                                       line: str) -> None:
    mid = vault.remember(ME, stored).memory.id
    _tell(vault, line)
    m = vault.get(ME, mid)
    assert (m.status, m.version, m.content) == ("active", 1, stored)


@pytest.mark.parametrize(("home", "job", "line"), [
    ("我住在杭州西湖区", "我在滨江上班", "换工作了，现在在萧山上班，不过家还在西湖区没动"),
    ("I live in Leith", "I work at a bakery in Leith",
     "changed jobs, I'm at a brewery now, still living in Leith though"),
])
def test_what_a_clause_says_stays_is_not_what_the_line_changes(
        vault: Vault, home: str, job: str, line: str) -> None:
    home_id = vault.remember(ME, home).memory.id
    vault.remember(ME, job)
    _tell(vault, line)
    m = vault.get(ME, home_id)
    assert (m.status, m.version) == ("active", 1)


@pytest.mark.parametrize(("stored", "line"), [
    ("回复请用中文", "这一条用英文回复吧，我要转给国外的同事"),
])
def test_this_one_is_one_occasion(vault: Vault, stored: str, line: str) -> None:
    mid = vault.remember(ME, stored).memory.id
    assert _tell(vault, line) == []
    assert vault.get(ME, mid).version == 1 and _active(vault) == [stored]


def test_the_users_child_is_someone_else(vault: Vault) -> None:
    # ("娃" is one of the words for the user's child: stored as "孩子", the one name of them)
    mid = vault.remember(ME, "我不吃香菜").memory.id
    _tell(vault, "我们家娃倒是特别爱吃香菜")
    assert vault.get(ME, mid).version == 1
    (kid,) = [m for m in vault.list(ME, status="active", limit=50)
              if m.kind != "turn" and m.id != mid]
    assert kid.metadata["subject"] == "孩子" and "third_party" in kid.metadata["flags"]


@pytest.mark.parametrize(("label", "slot"), [
    ("称呼", "user.name"),
    ("住在哪", "user.location"),
    ("where I live", "user.location"),
    ("工作时间", "work.hours"),
    ("报表格式", "report.format"),
    ("the meeting one", None),                             # no slot holds meetings
    ("我的猫", None),
    ("那个闹钟", None),
])
def test_a_label_names_the_slot_whose_description_it_means(label: str,
                                                           slot: str | None) -> None:
    from types import SimpleNamespace

    from memvault.embed import load_embedder
    from memvault.extract.slots import SLOTS
    from memvault.slotnames import named_slot

    eng = SimpleNamespace(core=SimpleNamespace(embedders=[load_embedder("use-m3")]))
    assert named_slot(eng, label, SLOTS) == slot


@pytest.mark.parametrize(("stored", "line"), [
    ("我希望你叫我小李", "称呼那条删掉吧"),
    ("I live in Porto", "please forget where I live, I'd rather you didn't keep it"),
])
def test_a_retraction_by_the_slot_it_names_forgets_its_holder(vault: Vault, stored: str,
                                                              line: str) -> None:
    mid = vault.observe(ME, [{"role": "user", "content": stored}]).outcomes[0].memory_id
    assert mid is not None and vault.get(ME, mid).slot is not None
    other = vault.remember(ME, "I like oolong tea").memory.id
    assert _tell(vault, line) == ["forget"]
    assert vault.get(ME, mid).status == "deleted" and vault.get(ME, other).version == 1
    vault.rollback(ME, mid, to_version=1)
    assert vault.get(ME, mid).status == "active"


@pytest.mark.parametrize(("stored", "line", "now"), [
    ("请用深色模式", "以后一直用浅色模式", "浅色"),  # "from now on always": no restatement
    ("我的血型是 O 型", "搞错了，我是 A 型血", "A 型"),  # a correction with the right version
    ("I take 50mg of sertraline every morning",
     "doc upped my sertraline to 100mg as of this week", "100mg"),  # from this week on
])
def test_a_change_in_words_that_looked_like_something_else(vault: Vault, stored: str,
                                                            line: str, now: str) -> None:
    mid = vault.remember(ME, stored).memory.id
    assert _tell(vault, line) == ["updated"]
    assert now in (vault.get(ME, mid).content or "")
    # frozen, the same line is blocked and the memory stays
    other = vault.remember(ME, stored + "!").memory.id
    vault.freeze(ME, other)
    vault.forget(ME, mid)
    assert _tell(vault, line) == ["block"]
    assert vault.get(ME, other).version == 1


def test_admitting_a_mistake_after_a_retraction_is_no_correction(vault: Vault) -> None:
    mid = vault.remember(ME, "我对花生过敏").memory.id
    assert _tell(vault, "花生过敏那条你别记了，是我搞错了") == ["forget"]
    assert vault.get(ME, mid).status == "deleted"


def test_a_stop_of_the_speakers_own_after_a_change_is_kept_but_changes_nothing(
        vault: Vault) -> None:
    mid = vault.remember(ME, "I play tennis every weekend").memory.id
    acts = _tell(vault, "honestly I've started to hate tennis now. my elbow just can't "
                        "take it anymore")
    assert acts == ["updated", "added"]
    assert vault.get(ME, mid).content == "Honestly I've started to hate tennis now"


@pytest.mark.parametrize(("stored", "line", "new"), [
    ("I live in Leeds", "Moved to Edinburgh. Allergic to peanuts, by the way.", "peanuts"),
    ("我住在上海", "我搬到杭州了。我们上周领证了", "领证"),
])
def test_a_new_fact_after_a_change_is_kept(vault: Vault, stored: str, line: str,
                                           new: str) -> None:
    vault.observe(ME, [{"role": "user", "content": stored}])
    _tell(vault, line)
    assert any(new in m for m in _active(vault))


def test_a_change_that_keeps_an_amount_changes_the_memory(vault: Vault) -> None:
    mid = vault.remember(ME, "I drink 2 cups of coffee a day").memory.id
    assert _tell(vault, "switched to decaf, still 2 cups a day") == ["updated"]
    assert "decaf" in (vault.get(ME, mid).content or "")


@pytest.mark.parametrize("line", ["moved to nights. sleeping all day is weird ngl",
                                  "I moved to a new team last month",
                                  "just moved to part-time, 3 days a week"])
def test_a_shift_or_a_team_is_no_place_to_live(vault: Vault, line: str) -> None:
    home = vault.remember(ME, "I live in Leith").memory.id
    _tell(vault, line)
    assert vault.get(ME, home).version == 1
    assert not [m for m in vault.list(ME, status="active", limit=50)
                if m.slot == "user.location" and m.id != home]


@pytest.mark.parametrize(("stored", "line"), [
    ("我希望你叫我小李", "forget what my husband is called"),   # someone else's name
    ("I live in Porto", "forget where I grew up"),              # the past
    ("我是素食者", "我儿子吃什么那条删了吧"),                   # a child's
    ("我希望你叫我小李", "称呼那条删掉吧，以后叫我老王就行"),     # a new value: a person decides
])
def test_a_label_about_someone_else_or_the_past_forgets_no_slot(vault: Vault, stored: str,
                                                               line: str) -> None:
    mid = vault.observe(ME, [{"role": "user", "content": stored}]).outcomes[0].memory_id
    assert mid is not None
    acts = _tell(vault, line)
    assert "forget" not in acts and vault.get(ME, mid).status == "active"


def test_admitting_a_mistake_with_a_particle_is_still_a_retraction(vault: Vault) -> None:
    mid = vault.remember(ME, "我对花生过敏").memory.id
    assert _tell(vault, "花生过敏那条删了吧，我搞错了哈") == ["forget"]
    assert vault.get(ME, mid).status == "deleted"


def test_for_the_rest_of_this_week_is_one_occasion(vault: Vault) -> None:
    mid = vault.observe(ME, [{"role": "user", "content": "Please reply in English"}]) \
        .outcomes[0].memory_id
    assert mid is not None
    _tell(vault, "reply in Spanish for the rest of this week")
    assert vault.get(ME, mid).version == 1


@pytest.mark.parametrize("line", [
    "growing up I moved schools a lot, anyway I moved to Lisbon last month",
    "大学那会儿一直用安卓，上周换回苹果了",
])
def test_a_story_that_turns_to_now_is_no_story(line: str) -> None:
    assert recounts(line) is False


def test_a_clause_with_the_speaker_after_the_child_is_the_speakers() -> None:
    from memvault.extract import Message, RuleExtractor

    (c,) = RuleExtractor().extract([Message("user", "我们家娃出生后我就不喝酒了")])
    assert c.subject in (None, "user") and "third_party" not in c.flags


def test_still_with_another_value_is_no_restatement(vault: Vault) -> None:
    mid = vault.remember(ME, "我用语雀记笔记").memory.id
    assert _tell(vault, "我还是用印象笔记") != ["noop"]
    assert vault.get(ME, mid).version == 1


def test_what_stays_and_what_changes_in_one_memory_goes_to_a_person(vault: Vault) -> None:
    mid = vault.remember(ME, "I drink 2 cups of coffee a day").memory.id
    assert _tell(vault, "switched to decaf, still 2 cups of coffee a day") == ["stage"]
    assert vault.get(ME, mid).version == 1
    (item,) = vault.review_list(ME)
    assert mid in item.metadata["review"]["links"]


def test_one_more_thing_after_a_change_is_kept(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "我住在上海"}])
    assert _tell(vault, "搬到杭州了。烟也戒了") == ["updated", "added"]
    assert "烟也戒了" in _active(vault)


@pytest.mark.parametrize(("stored", "line", "now"), [
    ("I'm learning Spanish on Duolingo", "Dropped Spanish. It's Japanese on Duolingo now",
     "It's Japanese on Duolingo now"),
    ("I drink oat milk", "It's almond milk now, oat was too sweet",
     "It's almond milk now, oat was too sweet"),
])
def test_its_x_now_gives_the_new_value(vault: Vault, stored: str, line: str,
                                       now: str) -> None:
    mid = vault.remember(ME, stored).memory.id
    _tell(vault, line)
    # The new value is the memory's; a sentence after the change in the same message adds
    # to it ("Dropped Spanish. It's Japanese on Duolingo now": test_change_extended.py).
    assert vault.get(ME, mid).content.endswith(now)
    assert [m.id for m in vault.list(ME, limit=20) if m.kind != "turn"] == [mid]


def test_its_x_now_about_nothing_stored_keeps_nothing(vault: Vault) -> None:
    mid = vault.remember(ME, "I work from home").memory.id
    assert _tell(vault, "It's sunny now") == ["noop"]
    assert _active(vault) == ["I work from home"] and vault.get(ME, mid).version == 1


def test_a_request_that_says_also_is_still_only_a_request(vault: Vault) -> None:
    vault.remember(ME, "I like tea")
    assert _tell(vault, "can you also push the briefing to 9?") == ["noop"]
    assert _active(vault) == ["I like tea"]
