"""A conversation as the query: each of its lines votes.

Apps often recall with the recent conversation as the query. One vector of the whole
excerpt blurs its topics together; a memory that bears on one line (the exam, the chess
game) is found when each line is embedded on its own and a memory scores its best line.
That best-line similarity is one more relevance part (`lines`, weight `weights.lines`,
docs/retrieval.md); a one-line query has no line votes.
"""

from __future__ import annotations

import re

# A speaker tag that opens a line: "<Lisa>:", "[bot]:", "Alice:", "Anna Lee：" (a bare
# tag must not start with a digit: "10:30 the meeting" keeps its time).
_TAG = re.compile(r"^\s*(?:<[^<>\n]{1,40}>|\[[^\[\]\n]{1,40}\]|(?!\d)[^\s:：<>\[\]]{1,24}"
                  r"(?: [^\s:：<>\[\]]{1,24}){0,2})\s*[:：]\s*")


def spoken_lines(query: str) -> list[str]:
    """The query's non-empty lines with their speaker tags dropped (a line that is only a
    tag is no line)."""
    return [t for line in query.splitlines() if (t := _TAG.sub("", line, count=1).strip())]


def is_conversation(query: str) -> bool:
    """Two or more spoken lines. This one test decides both which queries get line votes
    and which get coverage (wordmatch.py), so no query gets both and none falls between."""
    return len(spoken_lines(query)) >= 2


def query_lines(query: str, limit: int) -> list[str]:
    """The last `limit` spoken lines of a conversation query; [] for a query of one line
    (or limit 0)."""
    if limit <= 0:
        return []
    lines = spoken_lines(query)
    return lines[-limit:] if len(lines) >= 2 else []
