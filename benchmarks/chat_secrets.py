"""The secrets-in-chat set (benchmarks/chat_secrets/README.md): how many credentials a user
gives in chat the redactor removes, and how many look-alikes it leaves alone.

    python benchmarks/chat_secrets.py [--data benchmarks/chat_secrets] [--failures]
                                      [--adversarial]

Only the `secret` kind counts (safety/pii.py, safety/credentials.py): a phone number in a
negative line is personal data, redacted by its own kind, not a credential. A positive
line passes when its secret strings are gone; a negative one when it is left as it was.
Split by a fixed rule (held-out when the first byte of sha256(id) is odd); `--failures`
lists the development half's failures only. `--adversarial` also times find_pii on
16,000-character inputs built to make a regex retry (runs of spaces after a label,
"sk-sk-…", slashes, "a.a.…"): the redactor runs on every message.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent


def half(line_id: str) -> str:
    return "heldout" if hashlib.sha256(line_id.encode()).digest()[0] % 2 else "dev"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=HERE / "chat_secrets")
    ap.add_argument("--failures", action="store_true")
    ap.add_argument("--adversarial", action="store_true")
    a = ap.parse_args()
    from memvault.safety.pii import redact

    seen: Counter[tuple[str, ...]] = Counter()
    for line in (a.data / "lines.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        out, _ = redact(r["text"], {"secret"})
        secrets = [s for s in (r.get("secret"), r.get("secret2")) if s]
        ok = all(s not in out for s in secrets) if secrets else out == r["text"]
        key = (r["lang"], half(r["id"]), "secret" if secrets else "none")
        seen[(*key, "n")] += 1
        seen[(*key, "ok")] += ok
        if a.failures and not ok and key[1] == "dev":
            print(f"- {r['id']} {key[2]}: {r['text'][:120]!r} -> {out[:120]!r}")
    print("| lang | half | secrets redacted | look-alikes left alone |")
    print("|---|---|---:|---:|")
    for lang in ("en", "zh"):
        for h in ("dev", "heldout"):
            cells = [f"{seen[(lang, h, k, 'ok')]}/{seen[(lang, h, k, 'n')]}"
                     for k in ("secret", "none")]
            print(f"| {lang} | {h} | {cells[0]} | {cells[1]} |")
    if a.adversarial:
        from memvault.safety.pii import find_pii

        inputs = {"label, spaces": "code for" + " " * 16000 + "x",
                  "key label, spaces": "api" + " " * 16000 + "x", "sk-sk-…": "sk-" * 5334,
                  "slashes": "/" * 16000, "a.a.…": "a." * 8000, ":::": ":" * 16000,
                  "x:@@@": "x:" + "@" * 16000, "密码密码…": "密码" * 8000,
                  "a sentence, repeated": "the code for the door is " * 640}
        print("\n| 16,000-character input | find_pii (s) |\n|---|---:|")
        for name, text in inputs.items():
            t0 = time.perf_counter()
            find_pii(text[:16000])
            print(f"| {name} | {time.perf_counter() - t0:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
