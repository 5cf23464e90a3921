"""Option values given as text on the command line: JSON, slot values, shelf lives."""

from __future__ import annotations

import json
import re
from typing import Any

from .. import validate as v


def parse_json_opt(raw: str | None, field: str) -> Any:
    if raw is None:
        return None
    return v.parse_json(raw, field)


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
