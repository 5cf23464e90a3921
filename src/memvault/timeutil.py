"""Time at the edges: parse what callers give us into epoch milliseconds, and back."""

from __future__ import annotations

import math
import re
import time
from datetime import UTC, datetime, timedelta

from .errors import ValidationError

TimeLike = int | float | str | datetime | None

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w|y)\s*$")
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000,
            "w": 7 * 86_400_000, "y": 365 * 86_400_000}


# 9999-12-31T23:59:59.999Z. Beyond it neither datetime nor the stores' 64-bit integers cope:
# a larger time is a ValidationError, not an OverflowError deep in a driver.
MAX_MS = 253_402_300_799_999
MIN_MS = -62_135_596_800_000  # 0001-01-01T00:00:00Z: the earliest a datetime can say


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def to_ms(value: TimeLike, *, field: str = "time", historic: bool = False) -> int | None:
    """Accept epoch ms (int), a datetime, or an ISO-8601 string; naive means UTC.
    `historic`: a time in the world (valid time: "lived in Rome from 1965"), which may be
    before 1970 (negative epoch ms, down to the year 1); the system's own times may not."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValidationError(f"{field}: expected a time, got a boolean")
    if isinstance(value, int | float):
        if value < (MIN_MS if historic else 0):
            raise ValidationError(f"{field}: time {value} is before "
                                  f"{'the year 1' if historic else '1970'}")
        if not value <= MAX_MS:  # also NaN and infinity
            raise ValidationError(f"{field}: time {value} is after the year 9999")
        return int(value)
    if isinstance(value, datetime):
        dt = value if value.tzinfo else value.replace(tzinfo=UTC)
        # The same range as a number: 1970 to 9999 (an offset can push past either end).
        return to_ms(math.floor(dt.timestamp() * 1000), field=field, historic=historic)
    if isinstance(value, str):
        text = value.strip()
        # ASCII only: str.isdigit() also holds for "¹" or "²", which int() refuses.
        if text.isascii() and text.isdigit():
            return to_ms(int(text), field=field, historic=historic)
        if historic and text.startswith("-") and text[1:].isascii() and text[1:].isdigit():
            return to_ms(-int(text[1:]), field=field, historic=historic)
        try:
            dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ValidationError(
                f"{field}: cannot parse {value!r}; use ISO-8601 (2026-05-01T12:00:00Z) "
                "or epoch milliseconds") from None
        return to_ms(dt, field=field, historic=historic)
    raise ValidationError(f"{field}: expected a time, got {type(value).__name__}")


def duration_ms(value: int | float | str | timedelta | None, *, field: str = "ttl") -> int | None:
    """A duration: seconds (number), a timedelta, or '90d', '12h', '30m', '500ms'."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValidationError(f"{field}: expected a duration, got a boolean")
    if isinstance(value, timedelta):
        ms = int(value.total_seconds() * 1000)
    elif isinstance(value, int | float):
        if not -MAX_MS <= value <= MAX_MS:  # also NaN and infinity
            raise ValidationError(f"{field}: duration {value} is out of range")
        ms = int(value * 1000)
    elif isinstance(value, str):
        m = _DURATION.match(value)
        if not m:
            raise ValidationError(f"{field}: cannot parse {value!r}; use e.g. 90d, 12h, 30m, 45s")
        ms = int(float(m.group(1)) * _UNIT_MS[m.group(2)])
    else:
        raise ValidationError(f"{field}: expected a duration, got {type(value).__name__}")
    if ms <= 0:
        raise ValidationError(f"{field}: duration must be positive")
    if ms > MAX_MS:
        raise ValidationError(f"{field}: duration is longer than the calendar")
    return ms


def iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")
