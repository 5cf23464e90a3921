"""Input checks shared by every entry point. A call that fails here has stored nothing."""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from .errors import ScopeError, ValidationError
from .model import Kind, Scope, Source, Status
from .timeutil import MAX_MS

MAX_CONTENT_CHARS = 16_000
MAX_SOURCE_TEXT_CHARS = 16_000
MAX_REASON_CHARS = 2_000
MAX_TAGS = 32
MAX_TAG_CHARS = 64
MAX_METADATA_BYTES = 16_384
MAX_ID_CHARS = 128

_ID = re.compile(r"^[^\x00-\x1f\x7f]{1,128}\Z")
_SLOT = re.compile(r"^[a-z0-9_]+(?:[.\-][a-z0-9_]+)*\Z")
# A team's memories live under the user id "team:<name>" (docs/teams.md): a form no
# personal user id may take (personal_user refuses it wherever a person is named).
TEAM_PREFIX = "team:"
_TEAM = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,62}\Z")


def text(value: Any, field: str, *, max_chars: int, required: bool = True) -> str | None:
    """A UTF-8 clean string. bytes are decoded strictly; lone surrogates are refused."""
    if value is None:
        if required:
            raise ValidationError(f"{field}: required")
        return None
    if isinstance(value, bytes | bytearray):
        try:
            value = bytes(value).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValidationError(f"{field}: not valid UTF-8 ({e.reason} at byte {e.start})") \
                from None
    if not isinstance(value, str):
        raise ValidationError(f"{field}: expected text, got {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError(f"{field}: not valid UTF-8 (contains lone surrogates)") from None
    if "\x00" in value:
        raise ValidationError(f"{field}: contains a NUL character")
    if required and not visible(value):
        raise ValidationError(f"{field}: must not be empty (only spaces or invisible "
                              "characters)" if value else f"{field}: must not be empty")
    if len(value) > max_chars:
        raise ValidationError(f"{field}: {len(value)} characters, the limit is {max_chars}")
    return value


def visible(value: str) -> bool:
    """Holds a character that shows: not only white space and format characters (zero
    width spaces, bidirectional marks), which would make an empty-looking record."""
    return any(not c.isspace() and unicodedata.category(c) != "Cf" for c in value)


def actor(value: Any, field: str = "actor") -> str:
    """Who did it, as recorded in every revision: printable, like a scope id."""
    out = str(text(value, field, max_chars=MAX_ID_CHARS))
    if not _ID.match(out) or any(unicodedata.category(c) == "Cf" for c in out):
        raise ValidationError(f"{field}: {out!r} is not a valid id (printable characters, no "
                              "control or invisible ones)")
    return out


def label(value: Any, field: str, *, max_chars: int = MAX_ID_CHARS) -> str:
    """A caller's name for something (a message id, a speaker, a key's name): one line of
    printable text. Control characters and line or paragraph separators would forge or
    break the lines it is printed on (logs, the context section, the admin page)."""
    out = str(text(value, field, max_chars=max_chars))
    # The joiners (U+200C, U+200D) stay: emoji sequences and Indic scripts are written
    # with them.
    bad = next((c for c in out if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")
                and c not in "\u200c\u200d"), None)
    if bad is not None:
        raise ValidationError(f"{field}: contains the control or invisible character "
                              f"U+{ord(bad):04X}")
    return out


def scope(value: Any) -> Scope:
    """A Scope from a Scope or a mapping. tenant and user are required; no other keys."""
    if isinstance(value, Scope):
        fields = value.as_dict()
    elif isinstance(value, Mapping):
        unknown = sorted(set(value) - set(Scope.FIELDS))
        if unknown:
            raise ScopeError(f"scope: unknown field(s) {', '.join(map(str, unknown))}; "
                             f"allowed: {', '.join(Scope.FIELDS)}")
        fields = {k: value.get(k) for k in Scope.FIELDS}
    elif value is None:
        raise ScopeError("scope: required (tenant and user)")
    else:
        raise ScopeError(f"scope: expected a Scope or a mapping, got {type(value).__name__}")
    out: dict[str, str] = {}
    for name in Scope.FIELDS:
        v = fields.get(name)
        if v is None or v == "":
            if name in ("tenant", "user"):
                raise ScopeError(f"scope: {name} is required")
            out[name] = ""
            continue
        if not isinstance(v, str):
            raise ScopeError(f"scope: {name} must be text, got {type(v).__name__}")
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            raise ScopeError(f"scope: {name} is not valid UTF-8 (contains lone surrogates)") \
                from None
        # Invisible characters would make "u\u200b" a second user that looks like "u".
        if not _ID.match(v) or v != v.strip() or any(unicodedata.category(c) == "Cf"
                                                     for c in v):
            raise ScopeError(f"scope: {name} {v!r} is not a valid id (1-128 printable "
                             "characters, no invisible ones, no surrounding spaces)")
        out[name] = v
    if out["user"].startswith(TEAM_PREFIX) and not _TEAM.match(out["user"][len(TEAM_PREFIX):]):
        raise ScopeError(f"scope: user {out['user']!r}: the prefix {TEAM_PREFIX!r} is "
                         "reserved for team scopes (team:<name>, name: 1-63 of a-z 0-9 _ . -)")
    return Scope(**out)


def team_name(value: Any, field: str = "team") -> str:
    """A team's name: 1-63 characters of a-z, 0-9, '_', '.', '-', starting with a letter
    or digit (it becomes part of the team scope's user id)."""
    if not isinstance(value, str) or not _TEAM.match(value):
        raise ValidationError(f"{field}: {value!r} is not a valid team name (1-63 "
                              "characters of a-z 0-9 _ . -, starting with a letter or digit)")
    return value


def team_of(user: str) -> str | None:
    """The team whose shared scope this user id is, or None for a person."""
    return user[len(TEAM_PREFIX):] if user.startswith(TEAM_PREFIX) else None


def personal_user(value: Any, field: str = "user") -> str:
    """A person's user id: a valid scope id that is not a team scope's."""
    if isinstance(value, str) and value.startswith(TEAM_PREFIX):
        raise ScopeError(f"{field}: {value!r} names a team scope; the prefix "
                         f"{TEAM_PREFIX!r} is reserved for teams (use the team verbs)")
    return scope({"tenant": "-", "user": value}).user


def enum_value(value: Any, enum: type, field: str) -> str:
    try:
        return enum(value).value
    except ValueError:
        allowed = ", ".join(e.value for e in enum)
        raise ValidationError(f"{field}: {value!r} is not one of {allowed}") from None


def kind(value: Any) -> str:
    return enum_value(value, Kind, "kind")


def source(value: Any) -> str:
    return enum_value(value, Source, "source")


def status(value: Any) -> str:
    return enum_value(value, Status, "status")


def slot(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(f"slot: expected text, got {type(value).__name__}")
    if len(value) > MAX_ID_CHARS or not _SLOT.match(value):
        raise ValidationError(f"slot: {value!r} is not a slot key (lowercase words joined by "
                              "dots, e.g. report.format)")
    return value


# One observe() call: a conversation's worth of messages, not a bulk import (that is
# remember_many / import, which batch their transactions).
MAX_MESSAGES = 1000
MAX_TOPIC_CHARS = 64
_TOPIC = re.compile(r"^[^\x00-\x1f\x7f\u2028\u2029<>]{1,64}\Z")


def topic(value: Any) -> str | None:
    """What a memory is about, in a few words ("quiet cafes"): one line of visible text,
    without angle brackets (it is printed in the context section like a slot)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(f"topic: expected text, got {type(value).__name__}")
    text(value, "topic", max_chars=MAX_TOPIC_CHARS, required=False)  # lone surrogates
    if not _TOPIC.match(value) or not visible(value) or value != value.strip():
        raise ValidationError(f"topic: {value!r} is not a topic (one line of at most "
                              f"{MAX_TOPIC_CHARS} visible characters, no < or >, no "
                              "surrounding spaces)")
    return value


def slot_value(slot_: str | None, value: Any) -> None:
    """A slot's value must show: a blank one would look like a cleared slot but keep it."""
    if slot_ is not None and isinstance(value, str) and not visible(value):
        raise ValidationError(f"value: empty for slot {slot_} (to clear a slot, forget its "
                              "memory)")


def confidence(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(f"confidence: expected a number, got {type(value).__name__}")
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise ValidationError(f"confidence: {value} is outside 0..1")
    return float(value)


def tags(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, list | tuple | set | frozenset):
        raise ValidationError(f"tags: expected a list of text, got {type(value).__name__}")
    out: dict[str, None] = {}
    for t in value:
        t = text(t, "tag", max_chars=MAX_TAG_CHARS)
        assert t is not None
        out[t] = None
        if len(out) > MAX_TAGS:
            raise ValidationError(f"tags: more than {MAX_TAGS} tags, the limit is {MAX_TAGS}")
    return list(out)


# What every face can hand back: JSON nested deeper than this (pydantic's serialiser stops
# near 255 levels, Python's json near 1,000) or integers past 64 bits (JavaScript clients
# and PostgreSQL's jsonb readers disagree on them) would be stored and then fail to read.
MAX_JSON_DEPTH = 32
MAX_JSON_INT = 2**63 - 1


def json_shape(value: Any, field: str, *, max_bytes: int = MAX_METADATA_BYTES,
               max_depth: int = MAX_JSON_DEPTH) -> None:
    """Refuse what could be stored but not returned: nesting past MAX_JSON_DEPTH, integers
    outside 64 bits, NUL characters (PostgreSQL's jsonb refuses them) and non-text keys.
    Walks with its own stack, so a 100,000-level structure is refused, not a RecursionError."""
    stack: list[tuple[Any, int, str]] = [(value, 1, field)]
    nodes = 0
    while stack:
        item, depth, where = stack.pop()
        nodes += 1
        if nodes > max_bytes:  # every node takes at least a byte of JSON
            raise ValidationError(f"{field}: larger than {max_bytes} bytes as JSON")
        if isinstance(item, dict | list | tuple):
            if depth > max_depth:
                raise ValidationError(f"{field}: nested deeper than {max_depth} levels")
            if isinstance(item, dict):
                for k, x in item.items():
                    if not isinstance(k, str):
                        raise ValidationError(f"{where}: keys must be text, got "
                                              f"{type(k).__name__}")
                    if "\x00" in k:
                        raise ValidationError(f"{where}: a key contains a NUL character")
                    # (a lone surrogate shown escaped: the message must itself be sendable)
                    shown = k[:40].encode("utf-8", "backslashreplace").decode("utf-8")
                    stack.append((x, depth + 1, f"{where}.{shown}"))
            else:
                stack.extend((x, depth + 1, f"{where}[{i}]") for i, x in enumerate(item))
        elif isinstance(item, int) and not isinstance(item, bool) and not (
                -MAX_JSON_INT - 1 <= item <= MAX_JSON_INT):
            raise ValidationError(f"{where}: integer outside the 64-bit range "
                                  f"(±{MAX_JSON_INT})")
        elif isinstance(item, str) and "\x00" in item:
            raise ValidationError(f"{where}: contains a NUL character")


def parse_json(text: str | bytes, field: str) -> Any:
    """json.loads that fails with a ValidationError, also for text nested past Python's
    recursion limit (RecursionError) or holding an integer too long to convert
    (ValueError)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValidationError(f"{field} is not JSON ({e.msg})") from None
    except RecursionError:
        raise ValidationError(f"{field} is nested too deeply to read") from None
    except ValueError as e:  # an integer past Python's 4,300-digit conversion limit
        raise ValidationError(f"{field} is not readable JSON ({e})") from None


def json_value(value: Any, field: str, *, max_bytes: int = MAX_METADATA_BYTES) -> Any:
    json_shape(value, field, max_bytes=max_bytes)
    try:
        encoded = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ValidationError(f"{field}: not JSON-serialisable ({e})") from None
    try:
        size = len(encoded.encode("utf-8"))
    except UnicodeEncodeError:
        raise ValidationError(f"{field}: not valid UTF-8 (contains lone surrogates)") from None
    if size > max_bytes:
        raise ValidationError(f"{field}: larger than {max_bytes} bytes as JSON")
    return json.loads(encoded)


def metadata(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValidationError(f"metadata: expected an object, got {type(value).__name__}")
    if any(not isinstance(k, str) for k in value):
        raise ValidationError("metadata: keys must be text")
    out = json_value(dict(value), "metadata")
    # Keys memvault itself reads (derived.py, summaries, review): their shape is fixed.
    for key in ("covers", "covers_summaries"):
        if key in out and (not isinstance(out[key], list)
                           or not all(isinstance(x, str) for x in out[key])):
            raise ValidationError(f"metadata.{key}: expected a list of memory ids")
    for key in ("turn_id", "source_memory"):
        if key in out and not isinstance(out[key], str):
            raise ValidationError(f"metadata.{key}: expected a memory id")
    if "review" in out and not isinstance(out["review"], dict):
        raise ValidationError("metadata.review: expected an object")
    return out


def version(value: Any, field: str = "version") -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
            value = int(value)
        else:
            raise ValidationError(f"{field}: expected a whole number, got {value!r}")
    if value < 1:
        raise ValidationError(f"{field}: must be >= 1, got {value}")
    return value


def memory_id(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or not _ID.match(value):
        shown = repr(value) if not isinstance(value, str) or len(value) <= 40 else (
            f"{len(value)} characters (at most {MAX_ID_CHARS})")
        raise ValidationError(f"id: expected a memory id, got {shown}")
    text(value, "id", max_chars=MAX_ID_CHARS)  # lone surrogates
    return value


def caller_metadata(value: Any) -> None:
    """metadata.review is the gate's record of why a candidate waits: a caller may not
    write it (a forged "approved" note would mislead the reviewer)."""
    if isinstance(value, Mapping) and "review" in value:
        raise ValidationError("metadata.review is written by the gate, not by callers")


def caller_value(slot_: Any, value: Any) -> None:
    """A caller's value is the value of a slot: without one it would be kept on a memory
    nothing names, and never read as current (the graph layer's structured values are
    written below the verbs, not through them)."""
    if value is not None and slot_ is None:
        raise ValidationError("value: a value belongs to a slot; give slot too (e.g. "
                              "slot 'report.format', value 'CSV'), or say it in content")


def epoch_ms(value: Any, field: str) -> int:
    """A stored time: whole epoch milliseconds from 1970 to the year 9999 (what a write
    would have stored; an import or an extractor must not bring anything else)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_MS:
        raise ValidationError(f"{field}: expected epoch milliseconds up to the year 9999")
    return value


def batch_size(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100_000:
        raise ValidationError("batch: expected a whole number in 1..100000")
    return value


def callback(value: Any, field: str) -> None:
    if value is not None and not callable(value):
        raise ValidationError(f"{field}: expected a function or None")


def port(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 65536:
        raise ValidationError("port: expected a whole number in 1..65535")
    return value


MAX_EVENT_ID = 2**63 - 1  # both stores keep event ids as signed 64-bit integers


def event_id(value: Any, field: str = "since", *, least: int = 0) -> int:
    """An event id (or a cursor: the last id seen, 0 for none), as the stores can hold it."""
    if isinstance(value, bool) or not isinstance(value, int) \
            or not least <= value <= MAX_EVENT_ID:
        raise ValidationError(f"{field}: expected an event id, a whole number in "
                              f"{least}..{MAX_EVENT_ID}")
    return value


def workers(value: Any) -> int:
    """How many server processes: 1..64 (more than the machine's cores only queues)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= 64:
        raise ValidationError("workers: expected a whole number of processes in 1..64")
    return value


def host(value: Any) -> str:
    """An address to bind: an IP address or a host name that could resolve (checked for
    form only; binding reports the rest)."""
    import ipaddress

    if not isinstance(value, str) or not value.strip():
        raise ValidationError("host: expected an address such as 127.0.0.1 or localhost")
    try:
        ipaddress.ip_address(value)
        return value
    except ValueError:
        pass
    labels = value.rstrip(".").split(".")
    if len(value) > 253 or not all(
            0 < len(x) <= 63 and x.isascii() and x.replace("-", "").isalnum()
            and not x.startswith("-") and not x.endswith("-") for x in labels):
        raise ValidationError(f"host: {value!r} is neither an IP address nor a host name")
    return value


MAX_MERGE = 32  # memories in one merge, statements in one split (writes/merging.py)


def memory_ids(value: Any) -> list[str]:
    """The memories of a merge: two or more distinct ids."""
    if not isinstance(value, list | tuple):
        raise ValidationError("ids: expected a list of memory ids")
    out = [memory_id(i) for i in value]
    if len(out) < 2:
        raise ValidationError("ids: a merge needs at least two memories")
    if len(set(out)) != len(out):
        raise ValidationError("ids: each memory may be named once")
    if len(out) > MAX_MERGE:
        raise ValidationError(f"ids: at most {MAX_MERGE} memories per merge")
    return out


def statements(value: Any) -> list[str]:
    """The parts of a split: two or more non-empty statements."""
    if not isinstance(value, list | tuple):
        raise ValidationError("parts: expected a list of statements")
    if not 2 <= len(value) <= MAX_MERGE:
        raise ValidationError(f"parts: a split needs 2..{MAX_MERGE} statements")
    return [str(text(p, "parts", max_chars=MAX_CONTENT_CHARS)) for p in value]
