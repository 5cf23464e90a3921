"""Helper for test_atomicity: write memories forever, print each acknowledged write.

    python crash_writer.py DB_PATH START

One line per acknowledged write, flushed after the call returned:
    ACK <memory id> <version> <user>
The test kills this process with SIGKILL somewhere in the stream.
"""

from __future__ import annotations

import sys

from memvault import Scope, Vault


def main() -> None:
    path, start = sys.argv[1], int(sys.argv[2])
    vault = Vault(path, embedder="use-m3")
    print("READY", flush=True)
    i = start
    while True:
        user = f"user{i % 3}"
        sc = Scope("acme", user)
        if i % 7 == 6:
            # A bigger transaction: several memories committed together.
            items = [{"scope": sc, "content": f"batch {i} item {k}: 用户喜欢第 {k} 号物品",
                      "tags": [f"b{k}"]} for k in range(8)]
            for r in vault.remember_many(items):
                print(f"ACK {r.id} {r.version} {user}", flush=True)
        elif i % 3 == 2:
            r = vault.remember(sc, f"Export reports as format {i}", slot="report.format",
                               value=f"F{i}", reason=f"update {i}")
            print(f"ACK {r.id} {r.version} {user}", flush=True)
        else:
            r = vault.remember(sc, f"memory {i}: the user likes item {i} 用户喜欢物品 {i}",
                               tags=[f"t{i % 5}"], metadata={"i": i})
            print(f"ACK {r.id} {r.version} {user}", flush=True)
        i += 1


if __name__ == "__main__":
    main()
