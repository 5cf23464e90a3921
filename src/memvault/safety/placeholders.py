"""What a redacted value is replaced by, per kind, and how a placeholder is recognised in
text that was redacted already (redaction is idempotent). Shared by pii.py and
credentials.py, which pii.py imports."""

from __future__ import annotations

import re

PLACEHOLDERS: dict[str, str] = {
    "phone": "[PHONE]",
    "id_number": "[ID_NUMBER]",
    "card": "[CARD]",
    "email": "[EMAIL]",
    "secret": "[SECRET]",
}

PLACEHOLDER_RX = re.compile(r"\[(?:" + "|".join(v[1:-1] for v in PLACEHOLDERS.values())
                            + r")\]")
