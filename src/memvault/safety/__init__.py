"""Checks on memory text before it is stored: instruction-like content and sensitive data.

Both are pure functions of text (no I/O, no model); the write gate (`memvault.gate`) turns
their findings into decisions.
"""

from .instructions import (
    InstructionFinding,
    is_command_like,
    is_injection_like,
    normalize,
    normalize_with_map,
    scan,
)
from .pii import PLACEHOLDERS, PiiFinding, find_pii, luhn_ok, redact, resident_id_ok

__all__ = [
    "PLACEHOLDERS",
    "InstructionFinding",
    "PiiFinding",
    "find_pii",
    "is_command_like",
    "is_injection_like",
    "luhn_ok",
    "normalize",
    "normalize_with_map",
    "redact",
    "resident_id_ok",
    "scan",
]
