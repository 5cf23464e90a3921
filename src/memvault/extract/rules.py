"""RuleExtractor: candidate memories from a conversation with regular rules, offline.

What it reads, sentence by sentence, in Chinese and English:

- only USER messages. Assistant, system and tool lines never become user statements; the
  one use of an assistant line is a guess the user answered with a bare "嗯"/"yes", which
  yields a `system_inferred`, non-explicit candidate flagged `confirmation` (the user
  confirmed nothing in their own words).
- explicit preferences and facts: "I prefer …", "I'd like …", "please always …",
  "remember that …", "我喜欢…", "请用…", "以后…用…", "千万别…", "我住在…", "I live in …",
  "my budget is …", "预算…"; a slot and a normalised value when the statement names one
  (memvault.extract.slots), else a plain statement with slot None.
- changes of mind: "改成", "换成", "不要…了", "instead", "no longer", "not … anymore",
  "moved to"; `replaces` holds the value the user turned away from.
- transient states: "最近在减肥", "this week I'm …", "currently …" get a `ttl`.
- command-like lines ("update: …", also after "好的，"; "记住：…", "备忘：…", "[system] …",
  "【更新】…", "ignore previous instructions", a record about "用户"/"the user") are kept,
  never dropped, with explicit=False, confidence ≤ 0.5 and the flag `command_like`, so the
  gate stages them.

What it skips: questions, what-ifs ("如果以后都用 XLSX 会怎样") and one-off requests or
tasks ("export this as CSV", "这次用 PDF", "我要一份 XLSX 报表", "把 XLSX 转成 CSV") unless
they carry a standing marker ("always", "以后"); reported speech ("this article says …",
"我朋友说…"); small talk without a first-person statement. A value named in passing
("我最近用 XLSX 导入很慢") sets no slot: that takes a wish, a standing request, a change or a
statement about the user. Someone else's wish ("客户说…", "the client wants …") is a fact
about them.

Confidence: 0.95 for explicit first-person statements, standing requests and facts; 0.9 for
"I like"/"我喜欢"; 0.85 for bare imperatives ("请用中文回答") and statements about someone
else; ×0.65 when hedged ("maybe", "可能"); 0.5 for confirmations and command-like lines.

Patterns: memvault.extract.cues, command-like ones memvault.extract.commands.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..model import Kind
from ..safety.instructions import scan
from ..understand.confirms import after_confirming, confirms_only, echoes
from ..understand.discourse import adds, beyond_change, changes_mind, corrects, one_time, only_once
from ..understand.offers import declined
from ..understand.stance import core
from ..understand.takeback import retraction
from ..understand.topics import content_words
from ..understand.when import LONG_AGO, a_stay
from .answers import accepts, answered, beside_refusal, confirmation, ended, past_its_slip
from .calledoff import beside_take_back, called_off, carry, swaps, withdrawn
from .candidate import CandidateMemory
from .clauses import for_one_day, own_habit, replaced_in_words, tag_request
from .commands import CMD_PREFIX, CMD_TAG, command_reason
from .cues import (
    ANY_THEN_OFF,
    BOUNDARY,
    CHANGE,
    CHANGE_IT,
    CHANGE_REQUEST,
    CHILDHOOD,
    CLAUSE,
    COMPLAINT,
    CONDITION,
    DEMONSTRATIVE,
    DENIAL,
    DESCRIBES,
    EMPHASIS,
    FACT,
    FIRST,
    FROM,
    FROM_SOMEONE,
    GROUP_BUDGET,
    HEDGE,
    HOW_IMPERATIVE,
    IF_CLAUSE,
    IMPERATIVE,
    IS_AFTER,
    MOVE,
    MY_THING,
    NEG,
    NEG_AFTER,
    NOW,
    OFF,
    OFF_WHAT,
    ONCE,
    OVER,
    OWN_CLAUSE,
    PAST,
    POLITE,
    PREF,
    PREFER_OVER,
    QUESTION,
    RECURRING,
    REPORTED,
    REQUEST,
    STANDING,
    STRIP_LEAD_EN,
    STRIP_LEAD_ZH,
    STRONG,
    THIRD,
    TO,
    TTL,
    UNIVERSAL,
    asks_a_not_a,
    is_affirmation,
    same_person,
)
from .messages import Message, as_messages
from .others import kept_about, theirs_after
from .readspans import opens_quote, read_spans
from .replies import read_repairs
from .requests import after_request, asked, asked_change
from .slots import SLOTS, SlotMatch, SlotRegistry, SlotSpec, lang_of
from .slotvalues import places_only
from .statements import is_task, open_statement, speaker_clauses, undecided, with_speaker
from .statements import standing as is_statement
from .whatifs import HYPOTHETICAL, SCENE


@dataclass(slots=True)
class _Decision:
    spec: SlotSpec
    value: Any
    replaces: Any
    multiple: bool = False


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _one_or_list(values: list[Any]) -> Any:  # one value alone, several as a list
    return (values[0] if len(values) == 1 else values) if values else None


class RuleExtractor:
    """Offline extractor; `registry` defaults to the shared vocabulary `slots.SLOTS`."""

    name = "rules"

    def __init__(self, registry: SlotRegistry | None = None,
                 place: Callable[[str, str], bool] | None = None) -> None:
        self.registry = registry if registry is not None else SLOTS
        self.place = place  # is a value read as a place one? (slotvalues.places_only)

    def _find(self, text: str) -> list[SlotMatch]:  # without a place that is not one
        return places_only(self.registry.find(text), self.place, text)

    def extract(self, messages: list[Message], *, unread: bool = False) -> list[CandidateMemory]:
        """The candidates the rules read; with `unread`, also each opening sentence they read
        neither way (flag "unread"), for the write path to judge by meaning."""
        msgs = as_messages(messages)
        out: list[CandidateMemory] = []
        for i, msg in enumerate(msgs):
            if msg.role != "user" or not msg.content.strip():
                continue
            prev = msgs[i - 1] if i > 0 and msgs[i - 1].role == "assistant" else None
            if prev and (thing := ended(prev.content, msg.content)) is not None:
                # "还要继续转吗？" / "不用了": the thing the assistant named is over
                out.append(self._retraction(msg, 0, len(msg.content), msg.content, thing))
                continue
            if is_affirmation(msg.content) or (prev and (echoes(msg.content, prev.content)
                                                         or accepts(msg.content, prev.content))):
                out.extend(confirmation(prev, msg, self._decide, self._find, self.name)
                           if prev else [])  # "yep saturday"
                continue
            found: list[CandidateMemory] = []
            said = answered(msgs, i) or msg
            whatif = scene = False
            for start, end, question in read_spans(said.content):
                text = said.content[start:end]
                scene = scene or bool(SCENE.search(text))  # "roleplay time! I'm a new hire…"
                if (whatif and _CONDITIONAL.search(text)) or confirms_only(text) or scene:
                    continue  # "imagine winning the lottery… I'd…"; "没说错"
                whatif = whatif or bool(HYPOTHETICAL.search(text))
                if (w := withdrawn(text, said.content, found)) is not None:  # "scratch that"
                    found, start = w[0], start + w[1]
                got = self._sentence(said, start, end, question) if start < end else []
                if (thing := called_off(said.content[start:end], question, got)) is not None:
                    got = [carry(c, thing)
                           for c in self._open(said, start, end, said.content[start:end])]
                found.extend(after_request(found, got))
            found = read_repairs(msg.content, beside_take_back(found))
            if i and msgs[i - 1].role == "assistant" and declined(msgs[i - 1].content):
                # "要不要我提醒你交房租？" / "那个就别管了 我已经交了": the offer is declined
                found = [c for c in found if "retraction" not in c.flags]
            # "Want to raise the savings goal?" / "hmm not now, the boiler needs fixing": the
            # proposal is turned down, and the sentence that does it changes nothing
            found = beside_refusal(msgs[i - 1].content if prev else "", msg.content, found)
            found = past_its_slip(prev.content, found) if prev else found  # "porto, not lisbon"
            if any("command_like" in c.flags for c in found) or any(
                    f.kind == "injection" for f in scan(msg.content)):
                # An instruction to the memory in it: nothing else is taken on trust either
                for c in found:
                    if "command_like" not in c.flags:
                        c.confidence = min(c.confidence, 0.5)
                        c.flags.append("suspicious_message")
            out.extend(found)
        return out if unread else [c for c in out if "unread" not in c.flags]

    # --- one user sentence -------------------------------------------------------------------
    def _sentence(self, msg: Message, start: int, end: int,
                  question: bool) -> list[CandidateMemory]:
        raw = msg.content[start:end]
        prefix = CMD_PREFIX.match(raw) or CMD_TAG.match(raw)
        body = raw[prefix.end():] if prefix else raw
        at = start + (prefix.end() if prefix else 0)  # where body starts in the message
        if not body.strip():
            return []
        if (cut := theirs_after(body)) is not None and not THIRD.match(body):
            # "I prefer tea; my colleague only drinks espresso": the colleague's clause is
            # theirs (others.py); the user's statement ends before it
            return self._sentence(msg, start, at + cut, question)
        reason = command_reason(raw) or command_reason(body)
        command = reason is not None
        standing = bool(STANDING.search(body)) and not own_habit(body)
        taken_back = retraction(body)
        # "scratch email, ping me on telegram": a change of the value, not a take-back
        swapped = bool(taken_back) and swaps(self._find(body), taken_back)
        taken_back = None if swapped else taken_back
        if taken_back is not None and not command and not HYPOTHETICAL.search(body) \
                and not corrects(body) \
                and not (question and not REQUEST.search(body)):
            return [self._retraction(msg, start, end, body, taken_back)]
        if not command:
            if REPORTED.search(body) or DENIAL.search(body):
                return []  # someone else's claim, or the user denying one: not a wish
            if HYPOTHETICAL.search(body) or (question and IF_CLAUSE.search(body)
                                             and not REQUEST.search(body)):
                return []  # imagining, or asking what would happen ("万一…，…怎么办？")
            if (question or QUESTION.search(body)) and (ask := asked_change(body)) and not any(
                    m.spec.needs_cue and m.via != "pattern" for m in self._find(ask[1])):
                # "can you push the briefing to 8:15?", "周报能不能改到周四发？": kept only if
                # it changes a memory it matches (the clauses before it: its reasons); not
                # one naming a setting's value with its cue ("can u switch to japanese")
                return asked(self._open(msg, at + ask[0], end, ask[1]))
            # "can you switch to answering in Spanish?": a change asked for as a question
            if (question or QUESTION.search(body) or asks_a_not_a(body)) and not standing \
                    and not tag_request(body) \
                    and not CHANGE_REQUEST.search(body):
                return self._beside_ask(msg, at, body)
            if ONCE.search(body) and not (standing or RECURRING.search(body)):
                return []  # its other clauses are its reasons ("I'm borrowing a kitchen")
        change = bool(CHANGE.search(body)) or swapped
        pref = PREF.search(body)
        fact = FACT.search(body)
        first = FIRST.search(body)
        polite = POLITE.search(body)
        # (an imperative after a clause that says why: "the essays are too much, keep
        # answers brief"; the thing at hand is looked for in the clause that asks)
        request = next((c for i, c in enumerate(CLAUSE.split(body)) if c and (
            (IMPERATIVE.search(c) if i == 0 else HOW_IMPERATIVE.match(c))
            or POLITE.search(c))), None)
        imperative = IMPERATIVE.search(body) or polite or request is not None
        asking = request or body
        ttl_cue = next(((m, ttl) for rx, ttl in TTL if (m := rx.search(body))), None)
        emphasis = bool(EMPHASIS.search(body) and not DEMONSTRATIVE.search(body)
                        and not (ttl_cue and ttl_cue[1] == "1d"))
        matches = self._find(body)
        if not any(m.via == "pattern" for m in matches):
            # "上个月搬到成都了", "living in Hackney now": the slot patterns name the speaker;
            # so does a Chinese clause after a space or a comma ("累瘫 现在住滨江了")
            for k in speaker_clauses(body):
                if not (said := with_speaker(body[k:]) or (k and (body[k:], 0))):
                    continue
                text, n = said
                found = [replace(m, start=m.start - n + k, end=m.end - n + k)
                         for m in self._find(text)
                         if m.via == "pattern" and m.start >= n and "的" not in m.surface]
                if found:
                    matches = sorted(matches + found, key=lambda m: (m.start, -m.end))
                    break
        if (not command and not pref and not standing and not fact and imperative
                and not any(m.via == "pattern" for m in matches)
                and DEMONSTRATIVE.search(asking) and not is_statement(body)
                and not (CHANGE_IT.search(body)
                         and any(self.registry.has_cue(m.spec, body) for m in matches))):
            return []  # "export it as CSV": about the thing at hand, not a standing wish
        progressive = bool(ttl_cue and re.match(r"\s*(?:正?在|I'm|I am)", body[ttl_cue[0].end():],
                                                re.I))
        # A slot value needs a wish, a standing request, a change or a statement about the
        # user; naming a format in passing ("我最近用 XLSX 导入很慢") sets nothing.
        wish = (command or standing or change or pref or imperative
                or any(m.via == "pattern" for m in matches)
                or ((first or progressive) and any(m.spec.stative for m in matches)))
        if PAST.search(body) and not (command or change or standing):
            wish = False  # "I was vegetarian for a year in college": not now
        if (CHILDHOOD.search(body) or LONG_AGO.search(body)) and not (
                command or standing or NOW.search(body)):
            wish = False  # "I moved to Leeds from Sheffield in 2015": history
        # A complaint names what went wrong ("每次导出 Excel 都报错"), not what to use,
        # unless another clause asks for something ("CSV 太慢了，以后用 XLSX").
        complaint = bool(COMPLAINT.search(body)) and not (command or change or pref
                                                            or imperative)
        if complaint and not any(STANDING.search(c) and not COMPLAINT.search(c)
                                 for c in CLAUSE.split(body)):
            wish = False
        if a_stay(body) and not (command or standing):
            # "moved to Lisbon for two weeks of holiday": a stay, not a new address; a
            # slot that may hold for a while takes the stay as its time to live instead
            matches = [m for m in matches if m.spec.transient]
        decisions = self._decide(body, matches) if wish else []
        if any(for_one_day(body, m.spec, command or standing) for m in matches) and not (
                decisions := [d for d in decisions if not for_one_day(body, d.spec, False)]):
            return []  # asked for that day only: how the assistant acts then
        given_up: _Decision | None = None
        if decisions and all(d.value is None for d in decisions) \
                and replaced_in_words(body, matches):
            # "I quit keto, I'm doing Mediterranean now", "我不吃素了，现在荤素都吃": the
            # value given up, and what holds now in words no slot value names. The whole
            # sentence is the statement; the slot's negation alone would lose the half
            # that says what the user does now. The slot stays as a pointer, value None,
            # flagged `replaced_in_words`: the write path changes the memory that holds
            # the slot with it (and drops the slot there), else matches it by meaning.
            given_up, decisions = decisions[0], []
        third = THIRD.match(body)
        # Any topic: the user speaking of themselves now, or asking how things should
        # be done from now on (statements.py), unless it only complains.
        statement = (is_statement(body) and not (complaint and not wish)
                     and not (PAST.search(body) and not (change or standing)))
        if statement and changes_mind(body) and not content_words(beyond_change(core(body))):
            statement = False  # "we moved!": kept only if it changes what it matches
        if only_once(body):
            return []  # "only today though": nothing to keep
        if is_task(body) and not standing and not command:
            # "can you explain …": nothing to keep, but a task in one clause does not void
            # a statement in another ("我上周调到广州分公司了，你帮我看看哪家早茶好吃").
            return self._beside_ask(msg, at, body)
        if one_time(body) and not standing and not (ttl_cue and first):
            # "明天早上的日程先别发了": one occasion, not how things stand
            change = statement = False
        triggered = (command or standing or change or pref or fact or third or emphasis
                     or statement
                     or any(m.via == "pattern" for m in matches)
                     or (first and any(m.spec.stative for m in matches))
                     or (ttl_cue and (first or progressive))
                     or (imperative and decisions))
        if not triggered:
            if open_statement(body) and not complaint and not question:
                # kept only if it changes what it matches; not one more thing ("烟也戒了")
                return self._open(msg, start, end, body, tentative=not (
                    adds(body) and not IMPERATIVE.search(body)))
            # No pattern reads it either way: its meaning decides (statementscore.py), for a
            # message's opening sentence only (a later one is most often said of it: "bit
            # private") and not the frame of a quotation ("菜单上写着：“…”").
            return self._open(msg, start, end, body, unread=True) if undecided(body) and not (
                complaint or question or PAST.search(body) or CHILDHOOD.search(body)
                or msg.content[:start].strip() or opens_quote(msg.content, end)) else []

        lang = lang_of(body)
        # A hedge in a clause of its own ("I'm a firefighter, so I might vanish") does not
        # make the statement itself uncertain.
        hedged = bool(HEDGE.search(CLAUSE.split(body)[0] if statement else body))
        if standing or change or fact or any(m.via == "pattern" for m in matches) or (
                pref and STRONG.search(body)):
            conf = 0.95
        elif pref or first or progressive or polite:
            conf = 0.9
        else:
            conf = 0.85  # a bare imperative may be meant for the task at hand
        if hedged:
            conf *= 0.65
        if command:
            conf = min(conf, 0.5)
        flags = (["command_like"] if command else []) + (["hedged"] if hedged else [])
        note = (f"command-like line ({reason}); stage for review, do not apply"
                if command else None)
        s, e = _trim(msg.content, start, end)
        common = {"source": "user_explicit", "source_text": msg.content[s:e],
                  "message_id": msg.id, "explicit": not command, "change_of_mind": change,
                  "at": msg.at, "extractor": self.name, "note": note}

        if third:
            who = same_person(next(g for g in third.groups() if g))
            # "我们老板喜欢 PDF，但我自己更喜欢 CSV": the user's own clause is theirs.
            own = OWN_CLAUSE.search(body, third.end())
            head = body[:own.start()] if own else body
            content = _clean(head)
            if not content:
                return []
            if not kept_about(head, who, third.end(), msg.content):
                # a friend's or a colleague's ways: the turn keeps them (others.py)
                return self._sentence(msg, at + own.end(), end, question) if own else []
            out = [CandidateMemory(content=content, kind=Kind.FACT.value, slot=None,
                                   value=None, confidence=min(conf, 0.85), subject=who,
                                   ttl=ttl_cue[1] if ttl_cue else None,
                                   flags=[*flags, "third_party"], **common)]
            if own:
                out += self._sentence(msg, at + own.end(), end, question)
            return out

        out: list[CandidateMemory] = []
        for d in decisions:
            f = list(flags)
            if d.value is None:
                f.append("negative_only")
            if d.multiple:
                f.append("multiple_values")
            ttl = ttl_cue[1] if (ttl_cue and d.spec.transient) else d.spec.default_ttl
            out.append(CandidateMemory(
                content=d.spec.render(d.value, lang, replaces=d.replaces), kind=d.spec.kind,
                slot=d.spec.key, value=d.value, replaces=d.replaces,
                confidence=round(min(conf, 0.8) if d.multiple else conf, 3),
                subject="user", ttl=ttl, flags=f, **common))
        if out:
            return out
        content = _clean(body)
        if not content:
            return []
        kind = (Kind.PREFERENCE.value if (pref or standing or emphasis) and not fact
                and not (complaint and not wish) else Kind.FACT.value)
        return [CandidateMemory(content=content, kind=kind,
                                slot=given_up.spec.key if given_up else None, value=None,
                                replaces=given_up.replaces if given_up else None,
                                confidence=round(conf, 3), subject="user",
                                ttl=ttl_cue[1] if ttl_cue else None,
                                flags=[*flags, "replaced_in_words"] if given_up else flags,
                                **common)]

    # --- what no rule names -------------------------------------------------------------
    def _retraction(self, msg: Message, start: int, end: int, body: str,
                    what: str) -> CandidateMemory:
        """The user takes a stored statement back: the candidate names what (its content);
        the gate finds the memory by meaning and forgets it, never stores this."""
        s, e = _trim(msg.content, start, end)
        # What is named, without the stance around it ("喜欢游泳" names swimming): the
        # lookup compares that with what is stored.
        named = core(what) or what
        return CandidateMemory(
            content=named or _clean(body) or body.strip(), kind=Kind.NOTE.value, slot=None,
            value=None, source="user_explicit", confidence=0.95,
            source_text=msg.content[s:e], message_id=msg.id, explicit=True,
            subject="user", flags=["retraction"], at=msg.at, extractor=self.name,
            retraction=what)

    def _open(self, msg: Message, start: int, end: int, body: str, tentative: bool = True,
              unread: bool = False) -> list[CandidateMemory]:
        if not (content := _clean(body)):
            return []
        (s, e), lead = _trim(msg.content, start, end), msg.content[:start].strip()
        return [CandidateMemory(
            content=content, kind=Kind.PREFERENCE.value if IMPERATIVE.search(body)
            else Kind.FACT.value, slot=None, value=None, source="user_explicit",
            confidence=0.85 if unread else 0.9, source_text=msg.content[s:e],
            message_id=msg.id, explicit=True, change_of_mind=not unread, subject="user",
            flags=["unread"] if unread else ["tentative", "opening"][:2 - bool(lead)]
            if tentative else [], at=msg.at, extractor=self.name, tentative=tentative)]

    # --- which value of which slot a sentence states ---------------------------------------
    def _decide(self, text: str, matches: list[SlotMatch]) -> list[_Decision]:
        bounds = [(m.start(), m.end()) for m in BOUNDARY.finditer(text)]
        changes = list(CHANGE.finditer(text))  # a change marker's span: what follows it
        prefer_over = bool(PREFER_OVER.search(text))
        by_spec: dict[str, list[SlotMatch]] = {}
        for m in matches:
            by_spec.setdefault(m.spec.key, []).append(m)
        # A negation before a universal word ("不要任何通知"): first negation vs last "any".
        first_neg = next((n.start() for n in NEG.finditer(text)), None)
        last_any = max((u.start() for u in UNIVERSAL.finditer(text)), default=None)
        universal_neg = (first_neg is not None and last_any is not None
                         and first_neg < last_any) or bool(ANY_THEN_OFF.search(text))
        for spec in self.registry:
            # "不要任何通知" names no channel; the universal negation is the value.
            if (spec.none_value and spec.key not in by_spec and universal_neg
                    and self.registry.has_cue(spec, text)):
                by_spec[spec.key] = []
        out: list[_Decision] = []
        for key, ms in by_spec.items():
            spec = self.registry.get(key)
            assert spec is not None
            pos, neg = [], []
            for m in ms:
                seg_start = max((b_end for _, b_end in bounds if b_end <= m.start), default=0)
                seg_end = min((b_start for b_start, _ in bounds if b_start >= m.end),
                              default=len(text))
                before, after = text[seg_start:m.start], text[m.end:seg_end]
                if THIRD.match(before.lstrip(" 但是而且不过")) or FROM_SOMEONE.match(after) \
                        or (spec.stative and DESCRIBES.match(after)) or GROUP_BUDGET.search(before):
                    # "…，但我老婆吃素", "calls from the bank", "我们组的预算是80万": someone
                    # else's; "the vegan cafe": a place described
                    continue
                negated = bool(NEG.search(before) or NEG_AFTER.search(after)
                               # "switch my reports from xlsx to csv"
                               or (FROM.search(before) and TO.match(after)
                                   and MOVE.search(text))
                               # "turn off email notifications", "scrap the PDFs,"
                               or (OFF.search(before) and OFF_WHAT.match(after))
                               or (prefer_over and OVER.search(before))
                               # the value a complaint is about is the one left behind
                               # (not "email me when the build fails")
                               or (COMPLAINT.search(text, seg_start, seg_end)
                                   and not CONDITION.search(text, seg_start, seg_end)))
                (neg if negated else pos).append(m)
            if changes and pos:
                later = [m for m in pos if m.start >= changes[-1].end()]
                pos = later or pos
            if len({_key(m.value) for m in pos}) > 1:
                # "Slack from now on, my phone is always on silent": the user's own device is
                # no second value; nor a word beside one said so ("answer in pt…, my english…")
                owned = [m for m in pos if (MY_THING.search(text, 0, m.start) and IS_AFTER.match(
                    text, m.end)) or (m.via == "word" and any(o.via != "word" for o in pos))]
                pos = [m for m in pos if m not in owned] or pos
            said_no = {_key(m.value) for m in neg}
            if pos and neg and all(_key(m.value) in said_no for m in pos) and not any(
                    c.start() >= max(m.end for m in neg) for c in changes):
                pos = []  # "别发邮件了，我最近邮箱满了": the reason names what is refused
            elif any(_key(m.value) not in said_no for m in pos):
                # "别发微信了，我微信消息太多看不过来，发邮件吧": a value refused is not also
                # asked for by naming it again while asking for another
                pos = [m for m in pos if _key(m.value) not in said_no]
            values = list({_key(m.value): m.value for m in pos}.values())
            rejected = [x for x in {_key(m.value): m.value for m in neg}.values()
                        if _key(x) not in {_key(y) for y in values}]
            if not values and spec.none_value and universal_neg:
                out.append(_Decision(spec, spec.none_value, None))
            elif values:
                out.append(_Decision(spec, _one_or_list(values), _one_or_list(rejected),
                                     multiple=len(values) > 1))
            elif rejected:
                out.append(_Decision(spec, None, _one_or_list(rejected)))
        return out

    def _beside_ask(self, msg: Message, at: int, body: str) -> list[CandidateMemory]:
        """A sentence that asks something now (a question, a task) may state
        something in another clause ("I moved to Berlin last month, can you recommend a
        gym nearby?"): each clause that asks nothing, sets no condition and states
        something or marks a change is read as a sentence of its own."""
        cuts = list(CLAUSE.finditer(body))
        if not cuts:
            return []
        starts = [0, *(m.end() for m in cuts)]
        ends = [*(m.start() for m in cuts), len(body)]
        out: list[CandidateMemory] = []
        for a, b in zip(starts, ends, strict=True):
            clause = body[a:b]
            if clause.strip() and not is_task(clause) and not QUESTION.search(clause) \
                    and not asks_a_not_a(clause) \
                    and not ONCE.search(clause) and not HYPOTHETICAL.search(clause) \
                    and not _CONDITION.match(clause) and (
                    is_statement(clause) or CHANGE.search(clause)):
                out += self._sentence(msg, at + a, at + b, False)
        return out

    # --- "嗯" after the assistant's guess ----------------------------------------------------


# The mood of what follows a what-if in the same message: it goes on imagining.
_CONDITIONAL = re.compile(r"\b(?:I|we|you|it)(?:'d|\s+would|\s+could|\s+might)\b|\bwould\b|"
                          r"我(?:就|会|肯定)|的话", re.I)
# A clause that sets a condition for what is asked ("if I'm free tomorrow, remind me…").
_CONDITION = re.compile(r"\s*(?:if|when|whenever|unless|once|as\s+soon\s+as|in\s+case|before|"
                        r"after|如果|要是|假如|万一|等|当|到时候)", re.I)

def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    chunk = text[start:end]
    s = start + len(chunk) - len(chunk.lstrip())
    return s, max(s, start + len(chunk.rstrip()))


def _clean(body: str) -> str:
    """A plain statement's content, without "remember that", "记住，", "你记得对，但…" …"""
    text = STRIP_LEAD_ZH.sub("", after_confirming(body) or body, count=1)
    text = STRIP_LEAD_EN.sub("", text, count=1).strip(" \t,，;；:：")
    return text[:1].upper() + text[1:] if text.isascii() else text
