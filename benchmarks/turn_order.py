"""LoCoMo recall with each conversation's turns written a few per call (issue 21).

`memvault eval locomo` writes a conversation in one `remember_many` call, so every turn
is keyed with its neighbours from the call's own list. A live app writes a session an
exchange at a time; with the eval's clock, which stays on one instant per conversation,
every turn of a conversation shares one timestamp, and each call must read the session's
last stored turns to key the new ones (turnctx.py). This runs the same eval with
`Vault.remember_many` split into calls of `--chunk` turns; the figures should equal the
one-call run's.

    python benchmarks/turn_order.py --chunk 2 [--data ../shared/datasets] [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memvault import Vault
from memvault.cli import app


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunk", type=int, default=2, help="turns per remember_many call")
    ap.add_argument("--data", default="../shared/datasets")
    ap.add_argument("--out", default="eval-results")
    args = ap.parse_args()
    whole = Vault.remember_many

    def chunked(self: Vault, items: list[dict[str, Any]], *a: Any, **kw: Any) -> list[Any]:
        out: list[Any] = []
        for i in range(0, len(items), args.chunk):
            out += whole(self, items[i:i + args.chunk], *a, **kw)
        return out

    Vault.remember_many = chunked  # type: ignore[method-assign]
    sys.argv = ["memvault", "eval", "locomo", "--data", args.data, "--out", args.out]
    app()


if __name__ == "__main__":
    main()
