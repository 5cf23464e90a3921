"""Helper for test_concurrency: one of several processes writing the same slots.

    python conc_writer.py DB WORKER WRITES SLOTS GO_FILE

DB is a SQLite path or a postgresql:// URI whose slots s.00 .. s.<SLOTS-1> of acme/shared
already exist. After printing READY the process waits for GO_FILE to appear (so that all
writers start together), then makes WRITES writes. Each write reads the slot's current
version and remembers a new value with expected_version=<that version>; on any error it
reports the exception's class name, re-reads and retries (at most MAX_TRIES times).
One JSON object per line, flushed as soon as the call returned:

    {"ack": [memory_id, version, slot, content, action]}   an acknowledged write
    {"error": "ConflictError", "slot": ..., "expected": n, "message": ...}
    {"gave_up": slot}                                   MAX_TRIES errors in a row
    {"done": WORKER}
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

from memvault import Scope, Vault

SCOPE = Scope("acme", "shared")
MAX_TRIES = 50


def slot_name(i: int) -> str:
    return f"s.{i:02d}"


def emit(obj: object) -> None:
    print(json.dumps(obj, ensure_ascii=False), flush=True)


def main() -> None:
    db, worker, writes, slots, go = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                     int(sys.argv[4]), sys.argv[5])
    vault = Vault(db, embedder="use-m3")
    emit({"ready": worker})
    deadline = time.monotonic() + 120
    while not os.path.exists(go):
        if time.monotonic() > deadline:
            raise SystemExit("no GO file")
        time.sleep(0.01)
    rng = random.Random(worker)
    for i in range(writes):
        slot = slot_name(rng.randrange(slots))
        content = f"Value of {slot} is W{worker}N{i}"
        for _ in range(MAX_TRIES):
            current = vault.list(SCOPE, slot=slot)
            assert len(current) == 1, (slot, [m.id for m in current])
            expected = current[0].version
            try:
                r = vault.remember(SCOPE, content, slot=slot, value=f"W{worker}N{i}",
                                   expected_version=expected)
            except Exception as e:  # reported by class name; the test says which are fine
                emit({"error": type(e).__name__, "slot": slot, "expected": expected,
                      "message": str(e)[:300]})
                continue
            emit({"ack": [r.id, r.version, slot, content, r.action]})
            break
        else:
            emit({"gave_up": slot})
    vault.close()
    emit({"done": worker})


if __name__ == "__main__":
    main()
