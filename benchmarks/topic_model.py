"""Train the model that tells what a statement is about, whatever its value (issue 18;
topicscore.py): "I bank with Barclays" and "moved all my accounts over to Monzo" are both
about the user's bank, though they share no word and their sentence vectors are far apart.

    python benchmarks/topic_model.py [--embedder use-m3] [--l2 0.1] [--write]

Training lines: `benchmarks/topics/lines.jsonl` (topic, lang, text), written for this
purpose by a helper who read neither the project's code nor its other data sets. The
model is an L2-regularised softmax regression over the embedder's sentence vectors,
fitted by full-batch gradient descent (deterministic). Prints a 5-fold cross-validated
accuracy, then how well "same topic" separates, on the development half of the
generalisation set, the memory a case's last line changes from the memories the case says
stay (the held-out half is never read). With --write, stores the weights (float16) in
src/memvault/topicscore.json under the embedder's name, with the topics that hold one
value at a time (EXCLUSIVE).
"""

from __future__ import annotations

import argparse
import base64
import json
from pathlib import Path

import numpy as np
from generalisation import ROOT, half, load

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "src" / "memvault" / "topicscore.json"
# Topics a user holds one value of at a time: a new value replaces the old one (a home
# city, a routine, whether they drink). The others (cuisines liked, allergies, pets,
# sports played, shows watched…) hold several at once.
EXCLUSIVE = frozenset("""
residence housing_type employer job_role work_schedule commute bank grocery_store
phone_device computer_os code_editor work_language notes_app work_chat_app diet_type
coffee_tea_order sleep_schedule reply_length reply_tone reply_language name_address
notify_channel notify_timing file_format units time_format airline_seat budget car
education timezone cafe_workplace smoking weight_goal partner clothing_size
exercise_routine alcohol
""".split())


def lines() -> list[tuple[str, str]]:
    """(text, topic) for every training line."""
    rows = map(json.loads, (HERE / "topics" / "lines.jsonl").read_text(
        encoding="utf-8").splitlines())
    return list(dict.fromkeys((r["text"], r["topic"]) for r in rows))


def fit(x: np.ndarray, y: np.ndarray, k: int, l2: float = 0.1, steps: int = 3000,
        rate: float = 4.0) -> tuple[np.ndarray, np.ndarray]:
    n, d = x.shape
    w, b = np.zeros((d, k)), np.zeros(k)
    onehot = np.eye(k)[y]
    for _ in range(steps):
        z = x @ w + b
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = p - onehot
        w -= rate * (x.T @ g / n + l2 * w / n)
        b -= rate * g.mean(axis=0)
    return w, b


def probs(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    z = x @ w + b
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def dev_pairs() -> list[tuple[str, str, int]]:
    """(line, memory text, 1 when the line changes that memory) of the development
    half: a case's last line against each memory it sets up, where the case expects an
    update of it (1) or expects it unchanged (0)."""
    out = []
    for c in load(ROOT / "generalisation", ["en", "zh"]):
        if half(c["id"]) != "dev":
            continue
        said = [s for s in c["say"] if isinstance(s, str)]
        if not said:
            continue
        for s in c.get("given", []):
            text = s.get("say") or s.get("remember")
            if not isinstance(text, str) or "as" not in s:
                continue
            effect = c["expect"].get(s["as"], {}).get("effect", "same")
            if effect in ("update", "same"):
                out.append((said[-1], text, int(effect == "update")))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--embedder", default="use-m3")
    ap.add_argument("--l2", type=float, default=0.1)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    from memvault.embed import load_embedder

    data = lines()
    topics = sorted({t for _, t in data})
    emb = load_embedder(a.embedder)
    x = np.asarray(emb.embed_documents([t for t, _ in data]), dtype=np.float64)
    y = np.array([topics.index(t) for _, t in data])
    folds = np.arange(len(y)) % 5
    right = 0
    for k in range(5):
        w, b = fit(x[folds != k], y[folds != k], len(topics), a.l2)
        right += int((probs(x[folds == k], w, b).argmax(axis=1) == y[folds == k]).sum())
    print(f"{len(y)} lines, {len(topics)} topics, embedder {a.embedder}: 5-fold accuracy "
          f"{right / len(y):.3f}")
    w, b = fit(x, y, len(topics), a.l2)
    pairs = dev_pairs()
    pa = probs(np.asarray(emb.embed_documents([p[0] for p in pairs]), dtype=np.float64), w, b)
    pb = probs(np.asarray(emb.embed_documents([p[1] for p in pairs]), dtype=np.float64), w, b)
    label = np.array([p[2] for p in pairs])
    print(f"development pairs: {len(pairs)} ({int(label.sum())} changed, "
          f"{int((1 - label).sum())} unchanged)")
    print("| min p | same exclusive topic: changed | unchanged |")
    print("|---:|---:|---:|")
    excl = np.array([t in EXCLUSIVE for t in topics])
    for floor in (0.3, 0.4, 0.5, 0.6, 0.7):
        ta, tb = pa.argmax(axis=1), pb.argmax(axis=1)
        same = (ta == tb) & excl[ta] & (pa.max(axis=1) >= floor) & (pb.max(axis=1) >= floor)
        print(f"| {floor} | {int(same[label == 1].sum())} | {int(same[label == 0].sum())} |")
    if a.write:
        models = json.loads(OUT.read_text())["models"] if OUT.exists() else {}
        models[emb.name] = {
            "topics": topics, "exclusive": sorted(EXCLUSIVE & set(topics)),
            "weights": base64.b64encode(w.astype("<f2").tobytes()).decode(),
            "bias": [round(float(v), 5) for v in b], "lines": len(y), "l2": a.l2}
        OUT.write_text(json.dumps({"models": models}) + "\n")
        print(f"wrote {OUT.relative_to(HERE.parent)} ({emb.name})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
