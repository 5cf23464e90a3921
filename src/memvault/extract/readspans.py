"""The sentences of a user's message that the rule extractor reads: not the words inside
quotation marks, nor the clause that only introduces them ("我同事在群里说：", "my boss
emailed me:"); a sentence that names nothing but what came before joins it."""

from __future__ import annotations

import re

from ..understand.discourse import beyond_change
from ..understand.stance import core
from ..understand.takeback import retraction
from ..understand.topics import content_words
from .cues import CLAUSE, sentences

# Where a clause starts: what comes before the clause that introduces a quotation stays.
_CLAUSE_OR_AND = re.compile(CLAUSE.pattern + r"|\band\b|\bso\b|然后|而且|结果", re.I)
# A verb of saying or writing right before a quotation: the clause introduces it.
_INTRODUCES = re.compile(
    r"(?:(?<![小常])说|写了?|回了|(?<!开)发了?|问了?|道|讲|留言|评论|回复|发我|发给我|跟我说|"
    r"告诉我)(?:了|过)?(?:一?句|一?段|一?条)?(?:话)?\s*[:：,，]?\s*$"
    r"|\b(?:said|says|wrote|writes|texted|messaged|emailed|replied|asked|sent|forwarded|"
    r"told\s+(?:me|us|him|"
    r"her|them)|(?:texted|messaged|emailed|wrote\s+to)\s+(?:me|us|him|her|them))"
    r"(?:\s+(?:this|back))?(?:\s+(?:in|on|at|into|under)\s+(?:[\w'’-]+\s+){0,4}?[\w'’-]+)?"
    r"\s*[:,]?\s*$", re.I)  # "wrote in his school essay"


# Words inside quotation marks are someone else's (a line of an e-mail, a T-shirt's
# slogan, what the barista said), never the user's statement.
# (An apostrophe between two letters is inside a single-quoted line: "'… I'd paint …'".)
_QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|\"[^\"]*\"|"
                     r"(?:(?<=^)|(?<=[\s:(\[]))'(?:[^'\n]|(?<=[A-Za-z])'(?=[A-Za-z])){3,}?'"
                     r"(?=[\s.,;:!?)\]]|$)")
_CJK_CHAR = re.compile(r"[\u4e00-\u9fff]")


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """Quotations (a quoted phrase of several words), and the lines of a chat the user
    pastes or retells; a quoted single term ("don't call me 'buddy'") is the user's own
    word for something."""
    # (five Chinese characters are a sentence, "“跑步伤膝盖”"; "“躺平”" is a term)
    return sorted([(m.start(), m.end()) for m in _QUOTED.finditer(text)
                   if len(m.group()) > 12 or " " in m.group().strip()
                   or len(_CJK_CHAR.findall(m.group())) >= 5]
                  + transcript_spans(text))


# A speaker's label opening a line of a chat: "A：", "Mom:", "小王：", "C: @bot …".
_SPEAKER = re.compile(r"(?:^|(?<=[\s。！？!?.…~）):：]))"
                      r"([A-Za-z][\w.]{0,11}|[\u4e00-\u9fff]{1,4}[A-Za-z0-9]?)"  # "同事A："
                      r"\s*[:：](?=\s*\S)")
# A chat announced as one: "给你看个群聊", "聊天记录", "our family group chat", "texts:".
_A_CHAT = re.compile(r"群|聊天记录|对话|截图|\b(?:group\s*chat|chat|conversation|"
                     r"thread|transcript|texts|messages)\b", re.I)
# Where the pasted chat ends and the user speaks again: a dash rule.
_CHAT_END = re.compile(r"\s(?:——|--+|—)\s?")


def transcript_spans(text: str) -> list[tuple[int, int]]:
    """The lines of a chat pasted or retold in the message ("给你看个群聊：A：我又胖了 B：…
    C：@小助手 从现在开始…"): each speaker's words are theirs, not the user's. A chat
    when the message announces one before the first of two or more labels, or when a
    speaker's label comes back (a dialogue); field labels said once each ("住址：杭州
    电话：…") are not a chat."""
    labels = list(_SPEAKER.finditer(text))
    if len(labels) < 2:
        return []
    names = [m.group(1).casefold() for m in labels]
    if _A_CHAT.search(text, 0, labels[0].end()):
        # Announced ("群聊截图：老王：…"): the chat starts at the first speaker's label.
        labels = [m for m in labels if not _A_CHAT.search(m.group(1))]
    elif len(set(names)) == len(names):
        return []
    if len(labels) < 2:
        return []
    stop = _CHAT_END.search(text, labels[-1].end())
    return [(labels[0].start(), stop.start() if stop else len(text))]


# Dropping, switching off or on a thing named only by a pronoun: "drop them", "turn it
# off", "get rid of those". (In Chinese, "把它们都去掉吧" reads as a take-back.)
_BACK = re.compile(
    r"\b(?:drop|ditch|kill|mute|disable|enable|cut|skip|scrap|bin|lose|stop|"
    r"get\s+rid\s+of|turn|switch|leave)\s+(?:them|it|those|these)\b"
    r"(?!\s+(?:to|into|for|as|with|from|at|in)\b)", re.I)


_LAST_CLAUSE = re.compile(r"[,.;，。；]\s*")


def read_spans(text: str) -> list[tuple[int, int, bool]]:
    """The sentences of a message to read: not those inside quotation marks; a sentence
    that names nothing but what came before ("I hate them.") joins the one before."""
    quoted = quoted_spans(text)
    out: list[tuple[int, int, bool]] = []
    for start, end, question in sentences(text):
        if any(q0 <= start < q1 for q0, q1 in quoted):
            continue
        # What is said before a quotation is the user's; the quotation is not, nor are the
        # words that only introduce it ("我同事在群里说：", "my boss emailed me:").
        cut = min([end, *(q0 for q0, _ in quoted if start < q0 < end)])
        if cut < end and _INTRODUCES.search(text, start, cut):
            # Only the clause that introduces it goes; what the sentence said before stays.
            # (after a comma; before an "and", which belongs to neither clause)
            cut = max([start, *(m.start() if m.group()[:1].isalpha() else m.end()
                                for m in _CLAUSE_OR_AND.finditer(text, start, cut))])
        end = cut
        if not text[start:end].strip(" \t,，:：\"'“‘「『"):
            continue
        # "the emoji are a bit much, leave them out?": a request in a question's tune
        question = question and not _BACK.match(_LAST_CLAUSE.split(text[start:end])[-1].strip())
        if out and not out[-1][2] and (not content_words(
                beyond_change(core(text[start:end]))) or _BACK.search(text, start, end)) \
                and retraction(text[start:end]) is None:
            # "I hate them.", "Final answer.": about the sentence before; so is one that
            # drops or switches off a thing it names only by a pronoun ("the emojis are a
            # bit much. drop them entirely, plain text only")
            out[-1] = (out[-1][0], end, question)
            continue
        out.append((start, end, question))
    return out


_QUOTE_NEXT = re.compile(r"\s*[:：,，]?\s*[\"“「『']")


def opens_quote(text: str, end: int) -> bool:
    """Does a quotation follow the sentence ending at `end` ("外卖菜单上写着：“…”")? The
    sentence is then its frame."""
    return bool(_QUOTE_NEXT.match(text, end))
