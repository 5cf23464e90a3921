"""Online-evaluation samples and their judgements (migration 12/14), written once for both
backends and mixed into SQLStore. The rules (what is sampled, when a sample may be
judged, what counts as a rate) are onlineeval.py's; these are the rows."""

from __future__ import annotations

import json
from typing import Any

from .tablebase import TableAccess

EVAL_COLS = ("eval_id, tenant, user_id, trace_id, strategy_hash, sampled_at, question, "
             "memories, memory_count, answer, answered_at, status, claimed_at, judge, "
             "judged_at, attempts, used_count, wrong_count, prompt_tokens, "
             "completion_tokens, latency_ms, error")
# What the report and /metrics read: counts and costs, no text.
FIGURE_COLS = ("tenant, status, sampled_at, judged_at, memory_count, used_count, "
               "wrong_count, prompt_tokens, completion_tokens, latency_ms")


def sample_dict(r: Any) -> dict[str, Any]:
    out = {k: r[k] for k in EVAL_COLS.split(", ")}
    out["user"] = out.pop("user_id")
    out["memories"] = json.loads(out["memories"])
    return out


class OnlineEvalTables(TableAccess):
    _IntegrityError: type[Exception]

    def add_eval_sample(self, row: dict[str, Any]) -> bool:
        """Insert a sample (the EVAL_COLS it has; `memories` a list of {id, version,
        content}) and one item row per memory. False when the trace is sampled already."""
        ph = self._ph
        cols = ["eval_id", "tenant", "user_id", "trace_id", "strategy_hash", "sampled_at",
                "question", "memories", "memory_count", "answer", "answered_at", "status"]
        params = {**{c: row.get(c) for c in cols}, "user_id": row["user"],
                  "memories": json.dumps(row["memories"], ensure_ascii=False)}
        try:
            with self.transaction() as tx:
                tx.conn.execute(f"INSERT INTO online_evals ({', '.join(cols)}) VALUES "
                                f"({', '.join(ph(c) for c in cols)})", params)
                for n, m in enumerate(row["memories"]):
                    tx.conn.execute(
                        "INSERT INTO online_eval_items (eval_id, tenant, user_id, memory_id, "
                        f"position) VALUES ({ph('e')}, {ph('t')}, {ph('u')}, {ph('m')}, "
                        f"{ph('n')})", {"e": row["eval_id"], "t": row["tenant"],
                                        "u": row["user"], "m": m["id"], "n": n})
        except self._IntegrityError:
            return False
        return True

    def get_eval_sample(self, tenant: str, user: str, trace_id: str) -> dict[str, Any] | None:
        ph = self._ph
        rows = self._q(f"SELECT {EVAL_COLS} FROM online_evals WHERE tenant = {ph('t')} AND "
                       f"user_id = {ph('u')} AND trace_id = {ph('tr')}",
                       {"t": tenant, "u": user, "tr": trace_id})
        return sample_dict(rows[0]) if rows else None

    def answer_eval_sample(self, eval_id: str, answer: str, at: int) -> bool:
        """awaiting_answer -> pending, with the answer; False if it was not awaiting one."""
        ph = self._ph
        return self._execute(
            f"UPDATE online_evals SET answer = {ph('a')}, answered_at = {ph('at')}, "
            f"status = 'pending' WHERE eval_id = {ph('e')} AND status = 'awaiting_answer'",
            {"a": answer, "at": at, "e": eval_id}) == 1

    def claim_eval_samples(self, now: int, stale_before: int, limit: int
                           ) -> list[dict[str, Any]]:
        """Up to `limit` answered samples, oldest answer first, each claimed (-> judging)
        by one conditional update, so two judges never take the same one; a claim older
        than `stale_before` (its judge died) is taken again."""
        ph = self._ph
        open_ = (f"(status = 'pending' OR (status = 'judging' AND claimed_at < "
                 f"{ph('stale')}))")
        rows = self._q(f"SELECT {EVAL_COLS} FROM online_evals WHERE {open_} "
                       f"ORDER BY answered_at, eval_id LIMIT {int(limit)}",
                       {"stale": stale_before})
        out = []
        for r in rows:
            if self._execute(f"UPDATE online_evals SET status = 'judging', claimed_at = "
                             f"{ph('now')}, attempts = attempts + 1 WHERE eval_id = "
                             f"{ph('e')} AND {open_}",
                             {"now": now, "e": r["eval_id"], "stale": stale_before}) == 1:
                out.append(sample_dict(r))
        return out

    def finish_eval_judged(self, eval_id: str, verdicts: list[tuple[str, bool, bool]], *,
                           judge: str, at: int, prompt_tokens: int, completion_tokens: int,
                           latency_ms: int) -> bool:
        """Store the verdicts (memory id, used, wrong) and the figures, in one
        transaction; False (nothing stored) if the sample is no longer this judge's."""
        ph = self._ph
        with self.transaction() as tx:
            done = tx.conn.execute(
                f"UPDATE online_evals SET status = 'judged', judge = {ph('j')}, judged_at = "
                f"{ph('at')}, used_count = {ph('used')}, wrong_count = {ph('wrong')}, "
                f"prompt_tokens = {ph('pt')}, completion_tokens = {ph('ct')}, latency_ms = "
                f"{ph('ms')}, error = NULL WHERE eval_id = {ph('e')} AND status = 'judging'",
                {"j": judge, "at": at, "used": sum(u for _, u, _ in verdicts),
                 "wrong": sum(w for _, _, w in verdicts), "pt": prompt_tokens,
                 "ct": completion_tokens, "ms": latency_ms, "e": eval_id}).rowcount
            if done != 1:
                return False
            for mid, used, wrong in verdicts:
                tx.conn.execute(f"UPDATE online_eval_items SET used = {ph('u')}, wrong = "
                                f"{ph('w')} WHERE eval_id = {ph('e')} AND memory_id = "
                                f"{ph('m')}", {"u": int(used), "w": int(wrong),
                                               "e": eval_id, "m": mid})
        return True

    def release_eval_sample(self, eval_id: str) -> bool:
        """judging -> pending: the judge could not be reached; another round tries."""
        ph = self._ph
        return self._execute(f"UPDATE online_evals SET status = 'pending', claimed_at = NULL "
                             f"WHERE eval_id = {ph('e')} AND status = 'judging'",
                             {"e": eval_id}) == 1

    def finish_eval_failed(self, eval_id: str, *, judge: str, at: int, error: str) -> bool:
        ph = self._ph
        return self._execute(
            f"UPDATE online_evals SET status = 'failed', judge = {ph('j')}, judged_at = "
            f"{ph('at')}, error = {ph('err')} WHERE eval_id = {ph('e')} AND "
            "status = 'judging'", {"j": judge, "at": at, "err": error[:2000],
                                   "e": eval_id}) == 1

    def eval_items(self, eval_id: str) -> list[dict[str, Any]]:
        ph = self._ph
        rows = self._q(f"SELECT memory_id, used, wrong FROM online_eval_items WHERE "
                       f"eval_id = {ph('e')} ORDER BY position", {"e": eval_id})
        return [{"id": r["memory_id"],
                 "used": None if r["used"] is None else bool(r["used"]),
                 "wrong": None if r["wrong"] is None else bool(r["wrong"])} for r in rows]

    def eval_figures(self, tenant: str | None, since: int) -> list[dict[str, Any]]:
        """The counts and costs of the samples taken since `since` (tenant None: every
        tenant's, for /metrics), oldest first."""
        ph = self._ph
        where, params = f"sampled_at >= {ph('since')}", {"since": since}
        if tenant is not None:
            where += f" AND tenant = {ph('t')}"
            params["t"] = tenant
        rows = self._q(f"SELECT {FIGURE_COLS} FROM online_evals WHERE {where} "
                       "ORDER BY sampled_at", params)
        return [{k: r[k] for k in FIGURE_COLS.split(", ")} for r in rows]

    def drop_eval_samples(self, *, unanswered_before: int, before: int) -> int:
        """Retention: samples still awaiting an answer sampled before `unanswered_before`,
        and every sample before `before`, with their items."""
        ph = self._ph
        cond = (f"(status = 'awaiting_answer' AND sampled_at < {ph('ua')}) OR "
                f"sampled_at < {ph('b')}")
        params = {"ua": unanswered_before, "b": before}
        with self.transaction() as tx:
            tx.conn.execute("DELETE FROM online_eval_items WHERE eval_id IN (SELECT eval_id "
                            f"FROM online_evals WHERE {cond})", params)
            return int(tx.conn.execute(f"DELETE FROM online_evals WHERE {cond}",
                                       params).rowcount)
