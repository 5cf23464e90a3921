"""Valid time: when a memory's fact held in the world, asked of a read apart from `as_of`.

A memory's validity is the half-open interval [valid_from, valid_to); a missing bound is
open, so a memory with neither holds always. `as_of` is system time (what the store knew
then, read from the revisions); valid time is what a read asks about the world: "where
did Gina work in 2022" is `valid_since=2022-01-01, valid_until=2023-01-01`, whatever the
store knows now, or `as_of` some day, what it knew then. Without a valid-time filter a
read serves what is valid at its own time point (now, or `as_of`).

- `valid_at=T`: the memories whose interval contains T.
- `valid_since=A`, `valid_until=B` (either may be left open): the memories whose
  interval overlaps [A, B).

A memory that is no longer valid (its valid_to has passed) is history, not stale: a
valid-time filter that reaches back to when it held serves it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import ValidationError
from .timeutil import TimeLike, to_ms


@dataclass(frozen=True, slots=True)
class ValidWindow:
    """[lo, hi) in epoch ms, either end open (None). A point T is [T, T + 1)."""

    lo: int | None
    hi: int | None
    point: bool = False

    def holds(self, valid_from: int | None, valid_to: int | None) -> bool:
        """Whether [valid_from, valid_to) overlaps the window."""
        return ((self.hi is None or valid_from is None or valid_from < self.hi)
                and (self.lo is None or valid_to is None or valid_to > self.lo))

    def to_dict(self) -> dict[str, Any]:
        """The filter as the caller gave it (traces, JSON)."""
        if self.point:
            return {"valid_at": self.lo}
        return {"valid_since": self.lo, "valid_until": self.hi}


def valid_window(valid_at: TimeLike = None, valid_since: TimeLike = None,
                 valid_until: TimeLike = None) -> ValidWindow | None:
    """The valid-time filter of a read, checked; None when none is given. A point and a
    range together, or a range that ends before it starts, is a ValidationError."""
    at = to_ms(valid_at, field="valid_at", historic=True)
    lo = to_ms(valid_since, field="valid_since", historic=True)
    hi = to_ms(valid_until, field="valid_until", historic=True)
    if at is not None:
        if lo is not None or hi is not None:
            raise ValidationError("valid_at: give a point (valid_at) or a range "
                                  "(valid_since/valid_until), not both")
        return ValidWindow(at, at + 1, point=True)
    if lo is None and hi is None:
        return None
    if lo is not None and hi is not None and lo >= hi:
        raise ValidationError("valid_since: must be before valid_until")
    return ValidWindow(lo, hi)
