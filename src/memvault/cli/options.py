"""Option values given as text on the command line: JSON, slot values, shelf lives."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from .. import validate as v
from ..errors import ValidationError

STDIN = "-"

# Valid time (validtime.py): when a memory held in the world, apart from --as-of (what
# the store knew then). recall/context/graph take --since/--until as the valid-time range;
# list keeps --since/--until for when a memory last changed, so there only the
# --valid-since/--valid-until spellings name the range.
_AT_HELP = ("Valid time: only what held in the world then, even if it no longer holds "
            "(ISO time or epoch ms). A memory without valid_from/valid_to holds always.")
_SINCE_HELP = "Valid-time range start: only what held at some point from then."
_UNTIL_HELP = "Valid-time range end (exclusive): only what held at some point before then."
ValidAt = Annotated[str | None, typer.Option("--valid-at", help=_AT_HELP)]
ValidSince = Annotated[str | None, typer.Option("--since", "--valid-since", help=_SINCE_HELP)]
ValidUntil = Annotated[str | None, typer.Option("--until", "--valid-until", help=_UNTIL_HELP)]
ListValidSince = Annotated[str | None, typer.Option("--valid-since", help=_SINCE_HELP)]
ListValidUntil = Annotated[str | None, typer.Option("--valid-until", help=_UNTIL_HELP)]


def parse_json_opt(raw: str | None, field: str) -> Any:
    if raw is None:
        return None
    return v.parse_json(raw, field)


def slot_value_opt(slot: str | None, raw: str | None) -> Any:
    """--value for remember/propose: a value belongs to a slot, so without --slot it is
    refused (the core would keep it on a memory no slot names)."""
    if raw is not None and slot is None:
        raise ValidationError("--value needs --slot: a value is the value of a slot "
                              "(e.g. --slot report.format --value CSV)")
    return value_opt(raw)


def value_opt(raw: str | None) -> Any:
    """A slot value on the command line: JSON when it parses (42, true, {"a": 1}), else
    the text itself (CSV)."""
    if raw is None:
        return None
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        return raw
    except (RecursionError, ValueError):  # JSON, but past what Python reads
        return v.parse_json(raw, "value")
    return parsed


def ttl_opt(raw: str | None) -> int | str | None:
    """A bare number on the command line is seconds, as the core's int; the rest ("90d",
    "12h") goes to the core as text, which parses and checks it."""
    if raw is not None and re.fullmatch(r"[+-]?[0-9]+", raw.strip()):
        return int(raw.strip())
    return raw


def read_input(path: Path | str | None, what: str) -> str:
    """The text of a file, or of stdin when the path is "-" or not given: input too large
    for a command line (content up to the core's limits, an export) comes through a pipe."""
    try:
        if path is None or str(path) == STDIN:
            data = sys.stdin.buffer.read()
            return data.decode("utf-8")
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        where = "stdin" if path is None or str(path) == STDIN else str(path)
        raise ValidationError(f"{what}: cannot read {where} ({e})") from None


def content_arg(content: str | None) -> str | None:
    """A content argument: "-" reads it from stdin, without the one line break that ends
    piped text."""
    if content != STDIN:
        return content
    text = read_input(STDIN, "content")
    return text[:-2] if text.endswith("\r\n") else text[:-1] if text.endswith("\n") else text
