"""What a user's short answer to the assistant says, read with the line it answers.

- `answered`: a short reply to the assistant's question for a value, read with what the
  user said before the question ("landlord's putting the rent up" / "by how much?" / "to
  1050 from next month");
- `beside_refusal`: what a reply that turns down the assistant's proposal says besides;
- `past_its_slip`: a reply that puts right a value the assistant's line got wrong
  ("porto, not lisbon"): the refusal is the assistant's slip, not the user's statement;
- `confirmation`: a bare "yes"/"嗯" to the assistant's guess about the user ("are you
  vegetarian?"): the guess, as a `system_inferred`, non-explicit candidate flagged
  `confirmation` (the user confirmed nothing in their own words).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..model import Kind
from ..understand.discourse import one_time
from ..understand.matchwords import NUMBER
from ..understand.offers import proposed, proposes, reads_back, turns_down
from ..understand.repair import owns_slip, refused_spans
from .candidate import CandidateMemory
from .cues import GUESS, ONCE, QUESTION, SECOND, is_affirmation, sentences
from .messages import Message
from .slotvalues import lang_of
from .statements import is_task

# The thing at hand: "this email", "that draft", "这封邮件", "这篇".
_AT_HAND = re.compile(r"\b(?:this|that|these)\s+(?:email|e-mail|message|letter|draft|post|text|"
                      r"reply|answer|doc|document|file|report|one)\b|这(?:一)?[封篇条份次个](?:邮件|消息|"
                      r"回复|文档|报告|稿)?", re.I)
_ASKS = re.compile(r"[?？]\s*$|[吗呢]\s*[?？]?\s*$")


def answered(msgs: Sequence[Message], i: int) -> Message | None:
    """A short reply to the assistant's question, read with what the user said before
    the question: "landlord's putting the rent up" / "by how much?" / "to 1050 from next
    month" says the rent goes to 1050, which neither line of the user's says alone. None
    when the reply is not such an answer. Only the user's own words are joined."""
    if i < 2 or msgs[i - 1].role != "assistant" or msgs[i - 2].role != "user":
        return None
    reply, asked, before = msgs[i].content.strip(), msgs[i - 1].content, msgs[i - 2].content
    if not _ASKS.search(asked.strip()) or proposes(asked) or len(reply) > 60 \
            or len(reply.split()) > 15:  # (a yes or a no to a proposal answers only it)
        return None
    if not before.strip() or QUESTION.search(before) or _ASKS.search(before.strip()) \
            or is_task(before):
        return None
    cjk = lang_of(before + reply) == "zh"
    joined = before.strip().rstrip("。.!！~～ ") + ("，" if cjk else ", ") + reply
    return Message(role="user", content=joined, id=msgs[i].id, at=msgs[i].at,
                   name=msgs[i].name)


def beside_refusal(asked: str, reply: str, found: list[CandidateMemory]
                   ) -> list[CandidateMemory]:
    """The candidates of `reply` not read from its first sentence, when that sentence
    turns down what the assistant's line `asked` proposes ("hmm not now, the boiler needs
    fixing", "不用 Python挺好的"): it keeps things as they are. All of them otherwise."""
    spans = sentences(reply)
    if not spans or not proposes(asked) or not turns_down(reply):
        return found
    first = reply[spans[0][0]:spans[0][1]]
    return [c for c in found if (c.source_text or c.content) not in first]


def past_its_slip(asked: str, found: list[CandidateMemory]) -> list[CandidateMemory]:
    """The candidates of a reply to the assistant's line `asked`, each without the values
    it refuses that the assistant said ("In Lisbon it'll be sunny" / "porto, not lisbon"
    -> "porto"): what is left says the value again, or changes it, on its own."""
    if reads_back(asked):
        return found  # what the assistant holds of the user: a refusal changes it
    out = []
    for c in found:
        text = c.source_text or c.content
        if owns_slip(text):
            out.append(c)  # "kilkenny, not galway — i mixed them up": the user's own slip
            continue
        slips = [(a, b) for a, b, old in refused_spans(text) if (
            re.search(rf"(?<![A-Za-z]){re.escape(old)}(?![A-Za-z])", asked, re.I))]
        if not slips or c.retraction is not None:
            out.append(c)
            continue
        for a, b in reversed(slips):
            text = text[:a] + text[b:]
        if text.strip(" ,，。.!！") and text != c.content:
            out.append(replace(c, content=text.strip(), source_text=text.strip()))
    return out


# A yes that opens a reply ("好 先中文吧", "yes 3 is plenty", "ok听你的").
_YES = re.compile(r"^\W*(?:yes|yeah|yep|yup|sure|ok(?:ay)?|fine|alright|好的?|行|可以|嗯+|对)"
                  r"(?![A-Za-z])[\s,，.。!！~～]*", re.I)
# What an acceptance says besides the proposal's own words: how good it is, when.
_PLAIN = frozenset("is are it that this then plenty enough works work fine good great perfect "
                   "please pls sounds makes sense fair do go for ok okay better best".split())
_PLAIN_ZH = re.compile(r"(?:那就|就|先|那|吧|啊|呀|了|哈|嘛|也行|也可以|行|可以|好|挺好|不错)+")


def accepts(reply: str, asked: str) -> bool:
    """Is `reply` a yes to what the assistant's line `asked` proposes, naming nothing of
    its own ("Shall I cap summaries at 3 bullet points?" / "yes 3 is plenty", "要不先用中文
    回复？" / "好 先中文吧", "ok听你的")? A bare yes is `is_affirmation`'s."""
    if (yes := _YES.match(reply)) is None or not proposes(asked):
        return False
    rest, low = reply[yes.end():], asked.casefold()
    for tok in re.findall(r"[A-Za-z]+|\d+|[\u4e00-\u9fff]+", rest):
        if tok.isdigit():
            ok = re.search(rf"(?<!\d){tok}(?!\d)", asked) is not None
        elif tok.isascii():
            ok = tok.casefold() in _PLAIN or tok.casefold() in low
        else:
            tok = _PLAIN_ZH.sub("", tok)
            ok = not tok or tok in asked or is_affirmation(tok)
        if not ok:
            return False
    return True


# A proposal that something stay as it is ("还要继续转吗？", "还要照常提醒你…吗？", "should I
# keep the 7am alarm?") or that it end ("should I stop the morning reminders?", "要不要取消
# 周五的提醒？"): its verb, without which the rest names the thing.
_GOES_ON = re.compile(r"还要|还需要|还得|继续|照常|照旧|"
                      r"\b(?:keep(?:ing)?|still|continue|carry\s+on)\b", re.I)
_ENDS = re.compile(r"\b(?:stop|cancel|turn\s+off|switch\s+off)\b|取消|停掉|停了|关掉|"
                   r"不再|别再", re.I)


def ended(asked: str, reply: str) -> str | None:
    """What the user ends by answering the assistant's proposal `asked`: "no" to keeping it
    ("那给你弟的生活费还要继续转吗？" / "不用了 他自己能养活自己了"), or "yes" to ending it
    ("Should I stop the morning reminders for it?" / "yes pls"); the thing, as the
    assistant named it. None otherwise, or when the reply gives a value of its own ("no,
    make it 8")."""
    last = next((x for x in reversed(sentences(asked)) if x[2]), None)
    if last is None or (said := proposed((q := asked[last[0]:last[1]]) + "?")) is None:
        return None
    if _GOES_ON.search(q) and turns_down(reply) and not NUMBER.search(reply) \
            and not _CHANGE_REQUEST.search(reply):
        verb = _GOES_ON
    elif _ENDS.search(q) and (is_affirmation(reply) or accepts(reply, asked)):
        verb = _ENDS
    else:
        return None
    return verb.sub(" ", said).strip() or None


_CHANGE_REQUEST = re.compile(r"\b(?:make\s+it|instead|change|move|switch)\b|改|换|挪", re.I)


def confirmation(guess: Message, reply: Message, decide: Callable[[str, Any], list[Any]],
                 find: Callable[[str], Any], extractor: str) -> list[CandidateMemory]:
    """What a bare yes (`reply`) to the assistant's line (`guess`) says: a proposal or a
    read-back of a change ("Want me to bump your plan to 4 runs a week?", "So Wednesdays at
    2pm going forward?"), accepted: the user's own decision, in the assistant's words
    (flag `accepted`); a guess about the user ("are you vegetarian?"), confirmed: the
    assistant's inference (`system_inferred`, not explicit, flag `confirmation`). A slot
    value when `decide` reads one in it (over the slots `find` names)."""
    out: list[CandidateMemory] = []
    answer = repr(reply.content.strip()) + (f" (message {reply.id})" if reply.id else "")
    for start, end, question in sentences(guess.content):
        text = guess.content[start:end]
        if question and (said := proposed(text + "?")) is not None:
            if one_time(said) or ONCE.search(said) or _AT_HAND.search(said):
                continue  # a task for now ("make this email formal?", "remind you tonight?")
            common = {"source": "user_explicit", "source_text": said, "message_id": guess.id,
                      "explicit": True, "confidence": 0.9, "change_of_mind": True,
                      "flags": ["accepted"],
                      "note": f"the assistant proposed this; the user accepted with {answer}"}
        elif GUESS.search(text) and SECOND.search(text):
            said = text
            common = {"source": "system_inferred", "source_text": text,
                      "message_id": guess.id, "explicit": False, "confidence": 0.5,
                      "flags": ["confirmation"],
                      "note": f"the assistant guessed this; the user only answered {answer}"}
        else:
            continue
        common |= {"subject": "user", "at": reply.at, "extractor": extractor}
        decisions = decide(said, find(said))
        for d in decisions:
            if d.value is None:
                continue
            out.append(CandidateMemory(
                content=d.spec.render(d.value, lang_of(said)), kind=d.spec.kind,
                slot=d.spec.key, value=d.value, replaces=d.replaces,
                ttl=d.spec.default_ttl, **common))  # type: ignore[arg-type]
        if not decisions:
            out.append(CandidateMemory(content=said, kind=Kind.PREFERENCE.value, slot=None,
                                       value=None, **common))  # type: ignore[arg-type]
    return out
