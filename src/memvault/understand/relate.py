"""How a new statement relates to the stored memories it matches.

`relate(statement, matches, thresholds)` is pure: the matches come from the semantic
lookup (reads/related.py) with their closeness, and the statement's own words say which
move it makes:

    retraction  "forget that I…", "那条不用记了"   -> FORGET the one memory it names,
                                                    AMBIGUOUS when two are as close,
                                                    NO_TARGET when none is close
    restatement same stance, (nearly) no word the old one lacks -> SAME (the memory is confirmed)
    contradiction  opposite stance on the same thing (like / hate, 要 / 不要)
                                                  -> UPDATE that memory
    change of mind "now…", "switch me to…", "还是…吧", "不再…"
                                                  -> UPDATE that memory
    addition    "also", "too", "也", "还"          -> NEW, beside it
    otherwise   a statement of the same kind that cannot hold twice (where I live, what
                I use, prefer or am) -> UPDATE; one that can (what I like) -> NEW

The gate (gate.py) takes the relation and applies its rules to the target: a frozen one
blocks, a change that is not the user's own explicit, newer statement is staged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from .changeobject import announced_only, changed_thing, names_object
from .confirms import after_confirming, confirmed, confirms
from .discourse import (
    SPEAKER,
    adds,
    beyond_change,
    changes_mind,
    kept_clauses,
    marks_change,
    one_time,
    only_said_again,
    opens_one_more,
    recounts,
    replaces,
    restating,
    says_new_value,
    settles,
    stays_only,
    stops_only,
    supposes,
    without_restating,
    without_stays,
)
from .matchwords import WHEN, Match, Thresholds, in_common, named_words
from .meant import holds_old, meant, names_alone
from .planoff import planned
from .saidagain import ELABORATES, elaborates, restates, words_of
from .stance import CLAUSE as _CLAUSE
from .stance import core, denies, polarity
from .thingnews import how_it_is_doing, of_the_thing
from .topicnames import adds_up, names_class
from .topics import content_words
from .when import plans_ahead, used_to_clauses


class Relation(StrEnum):
    NEW = "new"              # about nothing stored (or beside it): add
    SAME = "same"            # restates the target: confirm it
    UPDATE = "update"        # changes the target: its next version
    FORGET = "forget"        # takes the target back
    AMBIGUOUS = "ambiguous"  # takes back or changes one of several: a person decides
    NO_TARGET = "no_target"  # takes back something nothing stored says


@dataclass(frozen=True, slots=True)
class Related:
    relation: Relation
    target_id: str | None = None
    links: tuple[str, ...] = ()
    # False when only the target's rank names it and the policy asks a person to confirm
    # such a guess: the gate stages the change with the target linked, and approving it
    # applies it there. A retraction by rank is always such a guess.
    sure: bool = True
    # The target is the one memory of the statement's topic class (topicscore.py), not a
    # memory that shares its words or is plainly close.
    by_topic: bool = False
    # A change of the target said to be coming, its new value not said yet: staged, and
    # the line that says the value goes past it.
    unsaid: bool = False


def relate(statement: str, matches: Sequence[Match], *, retraction: str | None = None,
           soft: bool = False, thresholds: Thresholds | None = None) -> Related:
    """The relation of `statement` to its matches (best first). `retraction`: what the
    statement takes back (takeback.retraction), None when it takes nothing back. `soft`:
    it takes back only a memory that names the same thing (a plan said to be off:
    planoff.py); when none does, the statement is related as any other."""
    t = thresholds or Thresholds()
    ranked = sorted(matches, key=lambda m: -m.score)
    if soft and retraction:
        # No guess by rank or by closeness alone: "the yoga class got cancelled" must not
        # forget the dentist appointment because both are appointments.
        named = [m for m in ranked if m.score >= t.second and m.names(retraction)
                 and planned(m.said or m.content)]
        if named:
            # ("7点那个提醒取消掉" and two reminders at 7: nearly as close in meaning too)
            close = [m for m in named if named[0].score - m.score < t.margin
                     or m.dense >= max(t.second, t.ratio * named[0].dense)]
            if len(close) > 1 and (one := _picked(statement, close)) is None:
                return Related(Relation.AMBIGUOUS, links=tuple(m.id for m in close[:5]))
            return Related(Relation.FORGET, (one if len(close) > 1 else named[0]).id)
        retraction = None
    if retraction is not None:
        # Named by meaning, or by a specific word of what is taken back ("住在哪" / "用户
        # 住在上海浦东").
        # What a label is about is its head: "my brother's wedding" is a wedding, not my
        # brother ("My emergency contact is my brother Raj" is not meant).
        # A memory that shares only the owner is named by meaning alone, not by that word.
        owned = _OWNED.search(statement)
        head = owned[1] if owned else retraction or statement
        named = [m for m in ranked if (m.dense if owned else m.score) >= t.retract or (
            m.score >= t.second and m.names(head))]
        by_rank = not named and bool(retraction.strip()) and _leads(ranked, t)
        if by_rank:
            named = ranked[:1]
        kin = [m for m in ranked if m.topical] if t.by_topic and retraction.strip() else []
        if len(kin) > 1 and names_class(retraction, kin[0].topic):
            # "forget my medications" and two memories of medication: a person picks (an
            # audit: the closer one was deleted)
            return Related(Relation.AMBIGUOUS, links=tuple(m.id for m in kin[:5]))
        if len(kin) == 1 and names_class(retraction, kin[0].topic) and all(
                m is kin[0] for m in named) and not says_new_value(statement) and all(
                m is kin[0] or m.dense < t.ratio * kin[0].dense for m in ranked[:5]):
            # The label is the class's own name ("my medication", "用药那条", "the pets
            # info": topicnames.py) and one memory is of that class ("I take sertraline
            # every morning"), none other nearly as close: all the label can mean, though
            # no word is shared. Not with a second memory nearly as close (two cars, one
            # below the class's floor), nor with a new value said beside it ("称呼那条删掉
            # 吧，以后叫我老王就行"): a person confirms those.
            return Related(Relation.FORGET, kin[0].id, by_topic=True)
        if not named and len(kin) == 1:
            # What the label names is the topic of one memory only, by a thing of the
            # class: staged, never applied: "forget what I said about my cat" shares the
            # class of "I have a dog named Rex".
            return Related(Relation.FORGET, kin[0].id, sure=False, by_topic=True)
        if not named:
            # A label said, and memories about as close as any, though none plainly ("delete
            # the exercise one" and the gym and the run; "forget my medication" and "I take
            # sertraline"): a person picks, rather than the take-back being dropped.
            near = [m for m in ranked[:5] if retraction.strip() and m.dense >= t.hint
                    and m.dense >= t.ratio * ranked[0].dense]
            if near and (one := _picked(statement, near)) is not None:
                return Related(Relation.FORGET, one.id, sure=False)  # "delete the 8pm one"
            if near:
                return Related(Relation.AMBIGUOUS, links=tuple(m.id for m in near))
            return Related(Relation.NO_TARGET)
        # Forgetting the wrong memory is the costly mistake: a second memory close to the
        # best, or nearly as close in meaning (`ratio` of it), makes it a person's choice,
        # unless a value of the line picks one (`_picked`).
        top = named[0]
        close = [m for m in ranked[:5] if m is top or top.score - m.score < t.margin
                 or m.dense >= max(t.second, t.ratio * top.dense)]
        if not retraction.strip() and top.linked:
            # "…I'm not allergic to penicillin at all. please forget that": what the same
            # message just changed is what "that" is.
            return Related(Relation.FORGET, top.id)
        one = _picked(statement, close) if len(close) > 1 else top
        if one is None or not retraction.strip():
            # Nothing named ("那条不用记了"), or two as close and no word of the line
            # that only one has: a person picks.
            return Related(Relation.AMBIGUOUS, links=tuple(m.id for m in close[:5]))
        return Related(Relation.FORGET, one.id, sure=not by_rank)
    if confirms(statement):
        # "对 朵朵就是我闺女 你记得没错" confirms the memory it is about; "你记得对，但我最近
        # 改喝拿铁了" is the change after its confirmation, read without it.
        rest = after_confirming(statement)
        if (one := _confirmed(statement, rest, ranked, t)) is not None:
            return Related(Relation.SAME, one.id)
        statement = rest or statement
    if kept := kept_clauses(statement):
        # "还在西湖区没搬，不过我最近换工作了": what a clause says stays is not what the
        # rest of the line changes. When nothing else is close, the line may change another
        # part of the same memory ("still at Acme, but switched to the PM role"): a person
        # decides.
        held = [m for m in ranked if any(_holds(k, m) for k in kept)]
        ranked = [m for m in ranked if m not in held]
        if held and not any(m.score >= t.match for m in ranked) and not (
                adds(statement) or opens_one_more(_after(statement, kept))):
            return Related(Relation.AMBIGUOUS, links=tuple(m.id for m in held[:5]))
    if ranked and stays_only(statement) and (named := [
            m for m in ranked if m.names(statement) and not _other_value(statement, m)]):
        # "still fully remote so the job didnt change at all": what stays is confirmed
        return Related(Relation.SAME, named[0].id)
    if not ranked or one_time(statement):
        # Nothing close, or about one occasion ("only today", "明天先别发了"): a
        # standing memory is not changed by it.
        return Related(Relation.NEW)
    best = ranked[0]
    # The evidence that a memory is the one the statement changes: plainly close in
    # meaning, or naming the same thing in a specific word ("notion" in "ditched notion
    # for obsidian"). When only the word says so, the closest memory that names it is the
    # one meant, not a closer one that merely resembles the statement.
    naming = [m for m in ranked if m.names(statement)]
    # A word names one memory only when no other close memory has it too: "work" in "we
    # moved to a 4 day week at work" is in "I cycle to work" and "I use a MacBook at work"
    # alike, and says which of them changes no more than rank does.
    telling = [m for m in naming if names_alone(statement, m, ranked, t.lead)]
    # A thing said to change, the speaker nowhere ("the office moved to Leeds"), that shares
    # with the closest memory only a name it gives ("The user lives in Leeds"): that memory
    # is about something else with the same value, at most a guess for a person. One that
    # shares a thing ("the council is putting the permit up" / "My parking permit costs
    # 40") is about it.
    foreign = bool(_THING_FIRST.match(statement)) and not SPEAKER.search(statement) \
        and _names_only(statement, best)
    mine, theirs = polarity(statement), polarity(best.content)
    # The opposite stance counts only on the same thing ("I love quiet cafés" / "I can't
    # stand quiet cafés"): both name it, and they are close.
    flip = bool(mine and theirs and mine != theirs and best in naming
                and best.score >= t.match and not _another_of_kind(statement, best)) or (
                    best.score >= t.match and (
                    denies(statement, best.content)
                    or (bool(best.said) and denies(statement, best.said))))
    target = best
    # A change said in so many words ("switched to", "改成", "final answer") or a time
    # word ("now", "最近"): a change of a plainly close memory, or of one that names the
    # same thing (close enough for a time word, hardly at all for an explicit marker).
    strong = weak = by_rank = by_topic = False
    elsewhere = not best.linked and any(m.linked for m in ranked) and not marks_change(statement)
    # What the conversation just changed, and a line that says only what stopped: the
    # change's reason ("I quit coffee. it was wrecking my sleep, can't do it anymore",
    # "现在不骑车了。路上太堵了，实在骑不动了"), not a change of it again.
    said_why = best.linked and stops_only(statement)
    if said_why:
        pass
    elif best.linked and changes_mind(statement) and (
            best.names(statement) or not (opens_one_more(statement) or adds(statement))):
        # "Dropped Spanish. It's Japanese on Duolingo now"; not a sentence that opens as
        # one more thing ("…instead? also, I started learning the cello"), or says it is
        # one ("搬到杭州了。烟也戒了"), unless it names what was changed ("南京也不去了")
        strong = True
    elif best.score >= t.close and not foreign and (marks_change(statement)
                                                     or changes_mind(statement)):
        # Of several plainly close, the one closest in meaning: a word in common lifts a
        # memory's score ("hours" in "I prefer trains for trips under 5 hours" and "my
        # hours are 7 to 3 now") more than it tells what the change is about.
        strong, target = True, meant(statement, [m for m in ranked if m.score >= t.close], t)
    elif marks_change(statement) and telling and telling[0].score >= t.second:
        strong, target = True, telling[0]
    elif elsewhere:
        # The message already changed another memory: a time word in its next sentence is
        # a reason given for that change, not a change of this one ("Could focus mode kick
        # in at 8am instead? Early morning is the only quiet time I get now.")
        pass
    elif changes_mind(statement) and telling and telling[0].score >= t.match:
        weak, target = True, telling[0]
    elif (marks_change(statement) or replaces(statement)) and not restating(statement) \
            and t.by_topic and len(kin := [m for m in ranked if m.exclusive]) == 1:
        # A change said in so many words, and one memory in the statement's topic, a topic
        # that holds one value at a time ("moved my accounts to Monzo" / "I bank with
        # Barclays", "switched to Neovim" / "I use VS Code"): the classes say what the
        # vectors of two different values do not. A time word alone is not enough: "I'm
        # on holiday in Crete now" is in the class of "I live in Leeds".
        weak, target, by_topic = True, kin[0], True
    elif (changes_mind(statement) and not restating(statement) and best.dense >= t.match
          and not best.linked and _leads(ranked, t)):
        # A time word ("now", "these days", "最近开始") about the one memory plainly close
        # in meaning and clearly ahead of the rest: "I've started drinking coffee again"
        # and "I avoid caffeine", "现在 9 点半就睡" and "我一般晚上 11 点睡觉". Closer than a
        # replacement needs (`match`, not `floor`): a time word says less. (A linked
        # memory's closeness is the link's, decided above.)
        weak = by_rank = True
    elif replaces(statement) and _leads(ranked, t):
        # Replacing something, and one memory is clearly the closest (a new city and
        # "I live in Porto", "Kotlin all day now" and "my main language is Java" share
        # no word): that memory is likely what is replaced. Likely only: a sentence
        # vector puts "switched to a standing desk" as close to "I go climbing on
        # Sundays" (.27) as "moved my savings to Revolut" to "I bank with Lloyds" (.31),
        # so the change is staged against it (`sure`), never applied unreviewed.
        strong = by_rank = True
    if not flip and (strong or weak or best.score >= t.match) and not supposes(statement) \
            and announced_only(statement, target.content):
        # A change said to be coming, its value not yet said ("my standup is moving btw",
        # "钢琴课要换时间了"): the memory's value holds until it is; a person sees the
        # announcement beside it (staged), and the line that says the value changes it.
        return Related(Relation.UPDATE, target.id, sure=False, unsaid=True)
    if (strong or weak) and not flip and (
            of_the_thing(statement, target) or how_it_is_doing(statement, target)) and not (
            replaces(statement) or stops_only(statement) or settles(statement)):
        # News of a thing the user has or uses: a part of it ("spotify's shuffle has gotten
        # so bad lately", "美团的配送费又涨了") or how it is doing ("work has been brutal
        # lately", "印象笔记又涨价了"), not news of the user ("I listen to music on
        # Spotify" holds). thingnews.py.
        return Related(Relation.NEW)
    if best.score < t.match and not (flip or strong or weak):
        if restating(statement) and not changes_mind(statement) and not adds(statement) \
                and len(ranked) > 1 and _leads(ranked, t):
            # Said to be said again ("daily sync is still half nine, same as always",
            # "kilometres and kilos please, like I said before"), in other words than the
            # memory clearly closest: that memory, confirmed; not a second copy. Clearly
            # closest of several: the only memory is ahead of nothing ("I'm allergic to
            # peanuts, like I said before" and "I drink oat milk" are .33 close).
            return Related(Relation.SAME, best.id)
        return Related(Relation.NEW)
    if adds(statement) and not flip and not (best.linked and (strong or weak)):
        # "I also…", "我也…": beside it; but what the conversation tied it to it changes
        # ("我不吃素了，现在也吃肉" and the diet it gives up)
        return Related(Relation.NEW)
    if restating(statement) and not by_rank and not (strong and replaces(statement)) \
            and _said_again_of(statement, best):
        # "as I mentioned", "一直都…"; but "running is out, I swim laps instead now, still
        # 3x a week" replaces, and its "still" is about what stays.
        return Related(Relation.SAME, best.id)
    if (flip or strong or weak) and (supposes(statement) or recounts(statement)
                                     or plans_ahead(statement)):
        # "If the iPhone gets cheaper I might switch to it", "要是明年工资涨了，我可能会搬去
        # 上海": nothing has changed yet; "switched to bass at 16", "读研那几年一天三杯咖
        # 啡": what changed then is history.
        return Related(Relation.NEW)
    if (by_rank or weak) and restates(statement, target.content):
        return Related(Relation.SAME, target.id)  # "我现在还是住在长沙"
    if (flip or strong or weak) and _used_to_other(statement, target):
        return Related(Relation.NEW)  # "I used to live in York" beside "I live in Leeds"
    if (strong or weak) and (held := holds_old(statement, target, ranked, t)) is not None:
        # The memory picked already says what the change says ("I prefer window seats on
        # flights" and "window seat from now on"), and another about the same thing holds
        # a value the line leaves ("I prefer aisle seats"): that one is what changes.
        target = held
    if (strong or weak) and not flip and not target.linked and target.topical \
            and adds_up(target.topic, in_common(statement, target)) \
            and polarity(statement) * polarity(target.content) >= 0 \
            and not any(_NEGATED.search(x) for x in (statement, target.content)) \
            and not replaces(statement):
        # A time word alone ("now", "最近发现") in a class whose values add up (allergies,
        # medications, pets): "turns out I'm allergic to mango now" is one more allergy
        # beside "I'm allergic to pollen", not a change of it; "doc upped my sertraline to
        # 100mg" names the same one as "I take 50mg of sertraline". (Not a line or a memory
        # that says not: "I'm NOT allergic to penicillin after all", "还是不养狗了".)
        return Related(Relation.NEW)
    if flip or strong or weak:
        # A guess by rank is applied only when the memory is plainly close in meaning
        # (`match`): below it, sentence vectors put unrelated statements of the same shape
        # as close ("我换了一家理发店" / "我养了一只猫" .35 against "I bank with Barclays" /
        # "Moved all my accounts over to Monzo" .30), so a person confirms.
        # A memory named by its topic class alone is a guess too: the generalisation set's
        # held-out half counted two more silent overwrites per language when such changes
        # were applied (BENCHMARKS.md), so they are applied only when plainly close, as a
        # guess by rank is, and staged otherwise. Not when both are confidently of the
        # class either: "moved my mortgage to Nationwide" is as surely of the class of "I
        # bank with Lloyds" as "moved my current account to Nationwide" (an audit, BENCHMARKS.md).
        sure = (not (by_rank or by_topic) or (t.apply_ranked and target.dense >= t.match)) \
            and not (foreign and target is best) \
            and (target.dense >= t.close or _names_its_object(statement, target))
        return Related(Relation.UPDATE, target.id, sure=sure, by_topic=by_topic)
    if changes_mind(statement) and not restates(statement, best.content):
        return Related(Relation.NEW)  # "now…" about something else it resembles
    if restates(statement, best.content) or (best.dense >= ELABORATES
                                              and elaborates(statement, best.content)):
        return Related(Relation.SAME, best.id)
    # Same topic, no marker of change: both can hold ("I use a Mac" and "I use Windows at
    # work", "my car is a Model 3" and "I plan to buy a Model Y"). Replacing one without
    # the user saying so would be a silent overwrite; keeping both loses nothing.
    return Related(Relation.NEW)


def _confirmed(statement: str, rest: str, ranked: Sequence[Match], t: Thresholds
               ) -> Match | None:
    """The memory a confirmation confirms: the closest, when it is plainly close or shares
    a word or the topic class with it ("thats right, i told u that b4 — leeds", "没说错，
    我就住那儿"), is clearly ahead of any other, holds the same stance ("你说得对，我讨厌
    咖啡" does not confirm "我喜欢咖啡") and is said again with nothing changed or added."""
    if not ranked:
        return None
    best = ranked[0]
    theirs = best.said or best.content  # `rest`: the statement after its confirmation
    if not (best.score >= t.match or best.names(statement) or best.topical) or (
            len(ranked) > 1 and best.dense - ranked[1].dense < t.lead):
        return None
    if polarity(rest) * polarity(theirs) < 0 or denies(rest, theirs):
        return None
    return best if confirmed(statement, theirs) else None


def _used_to_other(statement: str, memory: Match) -> bool:
    """Does the statement only tell what used to be, of a value the memory does not hold?
    "I used to drink coffee" gives up "I drink coffee every morning"; "I used to work at
    Amazon" tells history beside "I work at Google" (an audit found it replaced)."""
    past, rest = used_to_clauses(_CLAUSE.split(statement))
    return bool(past) and not any(changes_mind(p) for p in rest) and not any(
        restates(p, x) for p in past for x in (memory.content, memory.said) if x)


def _names_its_object(statement: str, memory: Match) -> bool:
    """Does the memory name what the statement says it changes, or does the statement
    name no such thing? "Switched my work laptop to a MacBook Air" and "My main language at
    work is Java" share a word, not the laptop (changeobject.py). (Asked only of a memory
    not plainly close in meaning: "把闹钟改到7点" and "每天早上6点半叫我起床" name one
    thing in two words.)"""
    changed = changed_thing(statement)
    # (or names the memory's own value, the one given up: "switched my main current
    # account to Starling, monzo kept freezing my card" and "I bank with Monzo")
    return changed is None or any(names_object(x, *changed)
                                  for x in (memory.content, memory.said) if x) \
        or _names_only(statement, memory)


def _said_again_of(statement: str, memory: Match) -> bool:
    """Is a statement that says it is said again that memory said again? Not when the rest
    of it makes a change ("I've said this before, but I prefer coffee in the mornings now"
    and "…tea in the mornings"), nor, said again only by a marker of repetition, when it
    says a word the memory does not ("once more for the record: I'm allergic to
    shellfish" and "…peanuts")."""
    rest = without_restating(statement)
    if changes_mind(rest) and not restates(statement, memory.content):
        return False
    return not only_said_again(statement) or any(
        restates(rest, x) for x in (memory.content, memory.said) if x)


def frozen_in_question(statement: str, matches: Sequence[Match],
                       thresholds: Thresholds | None = None) -> Match | None:
    """A frozen memory that `statement`, related as new, may still be changing: it says
    it is a change ("I live in Marseille now", "use am/pm times from now on") and the
    frozen memory is the one of its topic class (one that holds one value at a time) or
    plainly close. Evidence too weak to change an ordinary memory is enough to keep a
    second, newer statement from standing beside a frozen one and contradicting it in the
    prompt; rank alone is not ("I now volunteer at a shelter" is not a change of a frozen
    "I work as a nurse" because nothing else is stored)."""
    t = thresholds or Thresholds()
    if not changes_mind(statement) or adds(statement) or restating(statement) \
            or supposes(statement) or recounts(statement) or one_time(statement) \
            or plans_ahead(statement):
        return None
    ranked = sorted(matches, key=lambda m: -m.score)
    kin = [m for m in ranked if m.exclusive]
    for m in ranked:
        if m.frozen and ((len(kin) == 1 and kin[0] is m) or m.score >= t.match):
            return m
    return None


_NEGATED = re.compile(r"\b(?:not|no|never|nor)\b|n['’]t\b|[不没别未]", re.I)

_OWNED = re.compile(r"\b(?!(?:it|that|he|she|there|what|who|let|here|where)['’])"
                    r"[a-z]+['’]s\s+([a-z]{3,})\b", re.I)

_THING_FIRST = re.compile(r"^\s*(?:the|this|that)\s+(?!(?:one|ones|week|weekend|month|year|"
                          r"morning|evening|time)\b)[a-z]", re.I)


def _names_only(statement: str, memory: Match) -> bool:
    """Is every word the statement shares with the memory a name, capitalised by either
    ("Leeds"; "the portland trail blazers" and "I live in Portland")?"""
    theirs = f"{memory.content} {memory.said}"
    shared = named_words(statement) & (named_words(memory.content)
                                       | (named_words(memory.said) if memory.said else set()))
    names = {w.casefold() for w in re.findall(r"\b[A-Z][a-z]+\b", statement[1:])} | {
        w.casefold() for w in re.findall(r"(?<=\w\s)[A-Z][a-z]+\b", theirs)}
    return bool(shared) and all(any(w.startswith(n[:4]) or n.startswith(w) for n in names)
                                for w in shared)


def _leads(ranked: Sequence[Match], t: Thresholds) -> bool:
    """Is the closest memory clearly the one meant: at least `floor` in meaning, and
    ahead of every other by `lead`? Rank, not absolute closeness: a change or a
    retraction often shares little with its memory ("Monzo" / "I bank with Barclays"),
    yet nothing else the user said is nearly as close."""
    if not ranked:
        return False
    best = ranked[0]
    second = max((m.dense for m in ranked[1:]), default=0.0)
    return best.dense >= t.floor and best.dense - second >= t.lead


_AMOUNT = re.compile(r"(?:\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|once|"
                     r"twice|x|times?|days?|hours?|minutes?|weeks?|months?|cups?|glass(?:es)?|"
                     r"miles?|km|kms|kg|kgs|lbs?|pounds?|mg|ml|liters?|litres?|steps?|reps?|"
                     r"sets?|pages?|[一二两三四五六七八九十几\d]+[天次个小时分钟周月杯公里斤克页]*)+")


def _another_of_kind(statement: str, memory: Match) -> bool:
    """Do the two name things of one kind by different words, each one its own ("horror
    films" / "sci-fi films", "Thai food" / "Italian food", "恐怖电影" / "科幻电影")? Then
    liking one and disliking the other is no change of stance on either."""
    a, b = (content_words(core(_CLAUSE.split(x, maxsplit=1)[0])) for x in (statement,
                                                                         memory.content))
    if len(a) == len(b) == 1 and a[0] != b[0] and a[0][0] >= "\u2e80":
        # one compound each, one head: "科幻电影" / "恐怖电影"
        head = next((n for n in (3, 2) if a[0][-n:] == b[0][-n:]), 0)
        return bool(head) and len(a[0]) > head and len(b[0]) > head
    return bool(a and b) and a[-1] == b[-1] and 1 < len(a) <= 3 and 1 < len(b) <= 3 \
        and not set(a[:-1]) & set(b[:-1])


def _other_value(statement: str, memory: Match) -> bool:
    """Do the statement and the memory each name a thing the other does not, the
    statement's in Chinese ("我还是用印象笔记" / "我用语雀记笔记")? Then "still" keeps
    another value than the memory's. (Named words are case-folded: no capital to go by.)"""
    mine = _whole_words(without_stays(statement))
    theirs = _whole_words(memory.content)
    return any(w[0] >= "\u2e80" for w in mine - theirs) and bool(theirs - mine)


def _whole_words(text: str) -> set[str]:
    """The words a statement names things by, whole (no two-character pieces across
    words: "在南" of "在南山"), without the ones that stand for any thing ("地方")."""
    return {w for w in content_words(beyond_change(core(text) or text))
            if len(w) >= (2 if w[0] >= "\u2e80" else 3) and w not in WHEN} - _ANY_THING


_ANY_THING = frozenset("地方 东西 事情 事儿 情况 place thing things stuff".split())


def _after(statement: str, kept: list[str]) -> str:
    """What the statement says after its last clause that says a thing stays."""
    at = max(statement.find(k) + len(k) for k in kept)
    return statement[at:].lstrip(" ,，。.;；:—–-")


def _holds(clause: str, memory: Match) -> bool:
    """Does a clause that says something stays name a thing of `memory` ("家还在西湖区没动"
    / "用户住在杭州西湖区"), not only how many or how often?"""
    return any(not _AMOUNT.fullmatch(w) for w in named_words(clause)
               & (named_words(memory.content) | named_words(memory.said)))


def _picked(statement: str, close: Sequence[Match]) -> Match | None:
    """The one of `close` that has every value of the statement any of them has ("cancel
    the 7pm reminder": the 7pm one, not the 9am one), or None unless exactly one has. A
    value only (a number, a time, a day): things go by other words too ("the restaurant"
    is also "the ramen place")."""
    said = {w for w in words_of(statement) & set().union(*(_said_of(m) for m in close))
            if w in WHEN or any(c.isdigit() for c in w)}
    fits = [m for m in close if said <= _said_of(m)]
    return fits[0] if said and len(fits) == 1 else None


def _said_of(memory: Match) -> set[str]:
    """Every word of a memory, values included, as stored and as said: what a label
    ("7点那个提醒") may pick it by."""
    return words_of(memory.content) | (words_of(memory.said) if memory.said else set())


def adds_to(statement: str) -> bool:
    """Does the statement present itself as one more thing ("also", "too", "也")?"""
    return adds(statement)
