"""Helper for test_atomicity: write memories forever, print each acknowledged write.

    python crash_writer.py DB START [HANG_AT]      (DB: a SQLite path or a postgresql:// URI)

One line per acknowledged write, flushed after the call returned:
    ACK <memory id> <version> <user>
The test kills this process with SIGKILL somewhere in the stream. With HANG_AT, write
number HANG_AT stops inside its transaction, after every row of the write (memory, index
entries, vectors, revision) was sent and before the commit, prints `IN_TX <n>` and waits
there to be killed: the store must then show none of it.
"""

from __future__ import annotations

import sys
import time

from memvault import Scope, Vault


def contents(i: int) -> list[str]:
    """The content(s) that write number i stores."""
    if i % 7 == 6:
        return [f"batch {i} item {k}: 用户喜欢第 {k} 号物品" for k in range(8)]
    if i % 3 == 2:
        return [f"Export reports as format {i}"]
    return [f"memory {i}: the user likes item {i} 用户喜欢物品 {i}"]


def main() -> None:
    path, start = sys.argv[1], int(sys.argv[2])
    hang_at = int(sys.argv[3]) if len(sys.argv) > 3 else None
    vault = Vault(path, embedder="use-m3")
    print("READY", flush=True)
    i = start
    while True:
        if i == hang_at:
            def hang(point: str, n: int = i) -> None:
                if point == "after_revision":
                    print(f"IN_TX {n}", flush=True)
                    time.sleep(3600)
            vault.store.fault_hook = hang
        user = f"user{i % 3}"
        sc = Scope("acme", user)
        texts = contents(i)
        if i % 7 == 6:
            # A bigger transaction: several memories committed together.
            items = [{"scope": sc, "content": t, "tags": [f"b{k}"]}
                     for k, t in enumerate(texts)]
            for r in vault.remember_many(items):
                print(f"ACK {r.id} {r.version} {user}", flush=True)
        elif i % 3 == 2:
            r = vault.remember(sc, texts[0], slot="report.format", value=f"F{i}",
                               reason=f"update {i}")
            print(f"ACK {r.id} {r.version} {user}", flush=True)
        else:
            r = vault.remember(sc, texts[0], tags=[f"t{i % 5}"], metadata={"i": i})
            print(f"ACK {r.id} {r.version} {user}", flush=True)
        i += 1


if __name__ == "__main__":
    main()
