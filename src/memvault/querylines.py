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


def query_lines(query: str, limit: int) -> list[str]:
    """The last `limit` non-empty lines of a multi-line query, speaker tags dropped;
    [] for a query of one line (or limit 0)."""
    if limit <= 0:
        return []
    lines = [t for line in query.splitlines() if (t := _TAG.sub("", line, count=1).strip())]
    return lines[-limit:] if len(lines) >= 2 else []
