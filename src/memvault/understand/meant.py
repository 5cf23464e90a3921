"""Which of several memories close to a change is the one it changes.

In a store of many memories several are close to a line that says a change: ones that
share a word with it ("work" in "we moved to a 4 day week at work" and "I cycle to work"),
ones a shared word lifts above a closer one ("hours" in "my hours are 7 to 3 now" and "I
prefer trains for trips under 5 hours"), and one that already says the value the change
comes to ("I prefer window seats on flights" beside "I prefer aisle seats"). Evidence that
picks a memory must pick it over the others: a word only it shares, a lead in meaning, the
old value it alone holds. Each of these overwrote a bystander memory before
(BENCHMARKS.md, `--background`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .discourse import changes_mind, marks_change
from .matchwords import Match, Thresholds, in_common, named_words
from .stance import CLAUSE, denies, polarity

__all__ = ["holds_old", "meant", "names_alone"]


def _its_own(statement: str, memory: Match, among: Sequence[Match]) -> set[str]:
    """The words the statement shares with `memory` and with no other of `among`."""
    return in_common(statement, memory) - set().union(
        *(in_common(statement, m) for m in among if m is not memory))


def names_alone(statement: str, memory: Match, ranked: Sequence[Match], lead: float) -> bool:
    """Does the statement share a word with `memory` that no other of its matches has, or
    is `memory` ahead in meaning, by `lead`, of every other that has its words ("回答越短
    越好" and "用户希望回答详细" / "…回答先解释背景")? (A word shared only by a clipped form,
    "temps" / "temperatures", counts as its own.)"""
    mine = in_common(statement, memory)
    if not mine:
        return True
    others = [m for m in ranked if m is not memory and in_common(statement, m) & mine]
    return bool(_its_own(statement, memory, ranked)) \
        or all(memory.dense - m.dense >= lead for m in others)


def meant(statement: str, close: Sequence[Match], t: Thresholds) -> Match:
    """Of the memories plainly close to a change (best first), the one it changes: the
    closest in meaning; of two about as close (`margin`), the one that alone shares a word
    with it ("cancelled puregym…" and "My gym is PureGym", not "I go to the gym on
    weekends"), else the better score."""
    top = max(close, key=lambda m: m.dense)
    tied = [m for m in close if top.dense - m.dense < t.margin]
    if len(tied) < 2:
        return top
    alone = [m for m in tied if _its_own(statement, m, tied)]
    return alone[0] if len(alone) == 1 else tied[0]


def holds_old(statement: str, target: Match, ranked: Sequence[Match],
               t: Thresholds) -> Match | None:
    """The other memory of the same one-value topic class, nearly as close in meaning
    (`ratio`), that holds the value a change leaves, when `target` holds the value it
    comes to: the statement shares with `target` every word it shares with the other, and
    more (the new value: "window"), said in the clause that makes the change (not in its
    reason: "前一天晚上提醒我转头就忘，还是当天早上七点提醒吧"); the other has words neither
    says (the old value: "aisle"). Not when the line gives the target's value up ("no more
    tea, coffee only now"), nor when the stances differ, nor for a memory the conversation
    tied the line to."""
    if target.linked or not (target.topical and target.exclusive) \
            or denies(statement, target.content) \
            or polarity(statement) * polarity(target.content) < 0:
        return None
    mine = in_common(statement, target)
    clauses = CLAUSE.split(statement)
    changing = " ".join([c for c in clauses if marks_change(c)]
                        or [c for c in clauses if changes_mind(c)])
    for m in ranked:
        if m is target or m.score < t.match or m.linked or not (m.topical and m.exclusive) \
                or m.dense < t.ratio * target.dense:
            continue
        theirs = in_common(statement, m)
        new = mine - theirs
        old = named_words(m.content) - named_words(statement) - named_words(target.content)
        if theirs and new and theirs < mine and old and new <= named_words(changing) \
                and not _gives_up(statement, new):
            return m
    return None


_GIVES_UP = re.compile(r"\b(?:instead\s+of|rather\s+than|from|no\s+more|no|not|never|quit|"
                       r"cancell?(?:ed|ing)?|"
                       r"stopp?(?:ed)?|gave\s+up|give\s+up|dropped|ditched|over)\s+(?:\w+\s+){0,2}$"
                       r"|(?:不再|不要|不喝|不吃|不用|戒了?|放弃|别|从)\S{0,3}$", re.I)


def _gives_up(statement: str, words: set[str]) -> bool:
    """Is one of `words` said as what is given up ("instead of coffee", "不再喝咖啡")?"""
    low = statement.casefold()
    return any(_GIVES_UP.search(low[:at]) for w in words
               for at in (i for i in range(len(low)) if low.startswith(w, i)))
