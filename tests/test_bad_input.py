"""Every malformed input is refused with its own typed error that names the offending
field, and a refused call has stored nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from _util import counts, dump

from memvault import (
    ConflictError,
    NotFoundError,
    Scope,
    ScopeError,
    StoreError,
    ValidationError,
    Vault,
    VersionError,
)
from memvault import validate as v

ME = {"tenant": "acme", "user": "alice"}


def remember(**kw: Any) -> Callable[[Vault, str], Any]:
    kw.setdefault("scope", ME)
    kw.setdefault("content", "A perfectly fine statement")
    return lambda vault, mid: vault.remember(**kw)


def call(name: str, *args: Any, **kw: Any) -> Callable[[Vault, str], Any]:
    def run(vault: Vault, mid: str) -> Any:
        real = [a.replace("$id", mid, 1) if isinstance(a, str) and a.startswith("$id") else a
                for a in args]
        return getattr(vault, name)(*real, **kw)
    return run


# (case id, the call, expected error class, text the message must contain)
CASES: list[tuple[str, Callable[[Vault, str], Any], type[Exception], str]] = [
    # content
    ("empty_content", remember(content=""), ValidationError, "content"),
    ("whitespace_content", remember(content=" \n\t\u3000 "), ValidationError, "content"),
    ("oversized_content", remember(content="x" * (v.MAX_CONTENT_CHARS + 1)),
     ValidationError, "content"),
    ("oversized_chinese", remember(content="长" * (v.MAX_CONTENT_CHARS + 1)),
     ValidationError, "content"),
    ("invalid_utf8_bytes", remember(content=b"caf\xc3\x28 \xff"), ValidationError, "content"),
    ("lone_surrogate", remember(content="bad \ud800 text"), ValidationError, "content"),
    ("nul_in_content", remember(content="a\x00b"), ValidationError, "content"),
    ("content_int", remember(content=123), ValidationError, "content"),
    ("content_list", remember(content=["a"]), ValidationError, "content"),
    ("no_content_no_slot", remember(content=None), ValidationError, "content"),
    ("slot_without_value", remember(content=None, slot="report.format"),
     ValidationError, "content"),
    # a value names no slot: it would sit on a memory nothing reads as current
    ("value_without_slot", remember(value="CSV"), ValidationError, "slot"),
    ("propose_value_without_slot", call("propose", ME, "Reports as CSV", value="CSV"),
     ValidationError, "slot"),
    ("many_value_without_slot", call("remember_many", [{"scope": ME, "content": "CSV",
                                                        "value": "CSV"}]),
     ValidationError, "slot"),
    # scope
    ("unknown_scope_field", remember(scope={**ME, "org": "x"}), ScopeError, "org"),
    ("missing_tenant", remember(scope={"user": "alice"}), ScopeError, "tenant"),
    ("missing_user", remember(scope={"tenant": "acme"}), ScopeError, "user"),
    ("empty_tenant", remember(scope={"tenant": "", "user": "alice"}), ScopeError, "tenant"),
    ("no_scope", remember(scope=None), ScopeError, "scope"),
    ("scope_string", remember(scope="acme/alice"), ScopeError, "scope"),
    ("tenant_int", remember(scope={"tenant": 7, "user": "alice"}), ScopeError, "tenant"),
    ("tenant_spaces", remember(scope={"tenant": " acme", "user": "alice"}),
     ScopeError, "tenant"),
    ("user_control_char", remember(scope={"tenant": "acme", "user": "al\nice"}),
     ScopeError, "user"),
    ("user_surrogate", remember(scope={"tenant": "acme", "user": "al\udc00ice"}),
     ScopeError, "user"),
    ("agent_too_long", remember(scope={**ME, "agent": "a" * 200}), ScopeError, "agent"),
    # other fields of remember
    ("tags_string", remember(tags="x"), ValidationError, "tags"),
    ("tag_int", remember(tags=["ok", 5]), ValidationError, "tag"),
    ("tag_surrogate", remember(tags=["\ud83d"]), ValidationError, "tag"),
    ("too_many_tags", remember(tags=[f"t{i}" for i in range(v.MAX_TAGS + 1)]),
     ValidationError, "tags"),
    ("confidence_text", remember(confidence="high"), ValidationError, "confidence"),
    ("confidence_two", remember(confidence=2), ValidationError, "confidence"),
    ("confidence_negative", remember(confidence=-0.1), ValidationError, "confidence"),
    ("confidence_nan", remember(confidence=float("nan")), ValidationError, "confidence"),
    ("confidence_bool", remember(confidence=True), ValidationError, "confidence"),
    ("metadata_list", remember(metadata=[1]), ValidationError, "metadata"),
    ("metadata_int_keys", remember(metadata={1: "a"}), ValidationError, "metadata"),
    ("metadata_nan", remember(metadata={"a": float("nan")}), ValidationError, "metadata"),
    ("metadata_surrogate", remember(metadata={"a": "\udfff"}), ValidationError, "metadata"),
    ("metadata_huge", remember(metadata={"a": "x" * (v.MAX_METADATA_BYTES + 1)}),
     ValidationError, "metadata"),
    ("value_object", remember(slot="a.b", value={"x": object()}), ValidationError, "value"),
    ("slot_bad", remember(slot="Bad Slot!", value="x"), ValidationError, "slot"),
    ("slot_int", remember(slot=5, value="x"), ValidationError, "slot"),
    ("slot_empty", remember(slot="", value="x"), ValidationError, "slot"),
    ("kind_bogus", remember(kind="bogus"), ValidationError, "kind"),
    ("source_bogus", remember(source="rumour"), ValidationError, "source"),
    ("ttl_words", remember(ttl="soon"), ValidationError, "ttl"),
    ("ttl_negative", remember(ttl=-5), ValidationError, "ttl"),
    ("ttl_and_expires", remember(ttl="1d", expires_at="2030-01-01"), ValidationError, "ttl"),
    ("valid_from_words", remember(valid_from="yesterday"), ValidationError, "valid_from"),
    ("valid_to_before_from", remember(valid_from="2025-02-01", valid_to="2025-01-01"),
     ValidationError, "valid_to"),
    ("expires_at_list", remember(expires_at=[1]), ValidationError, "expires_at"),
    ("source_text_bytes", remember(source_text=b"\xff\xfe"), ValidationError, "source_text"),
    ("source_ref_long", remember(source_ref="r" * 600), ValidationError, "source_ref"),
    ("reason_long", remember(reason="r" * (v.MAX_REASON_CHARS + 1)), ValidationError,
     "reason"),
    ("reason_int", remember(reason=5), ValidationError, "reason"),
    ("actor_int", remember(actor=5), ValidationError, "actor"),
    ("trigger_surrogate", remember(trigger_text="\ud800"), ValidationError, "trigger_text"),
    ("expected_version_text", remember(slot="report.format", value="PDF",
                                       expected_version="abc"),
     ValidationError, "expected_version"),
    ("expected_version_stale", remember(content="Export as PDF", slot="report.format",
                                        value="PDF", expected_version=1),
     ConflictError, "version"),
    ("remember_many_bad_item", call("remember_many", [
        {"scope": ME, "content": "fine"}, {"scope": ME, "content": ""}]),
     ValidationError, "content"),
    # other verbs
    ("edit_nothing", call("edit", ME, "$id"), ValidationError, "edit"),
    ("edit_empty_content", call("edit", ME, "$id", content="  "), ValidationError, "content"),
    ("edit_confidence", call("edit", ME, "$id", confidence=5), ValidationError,
     "confidence"),
    ("edit_tags_string", call("edit", ME, "$id", tags="x"), ValidationError, "tags"),
    ("edit_other_scope", call("edit", {"tenant": "acme", "user": "bob"}, "$id",
                              content="Export as PDF"), NotFoundError, "$id"),
    ("forget_bad_id", call("forget", ME, 123), ValidationError, "id"),
    ("forget_unknown_id", call("forget", ME, "m_nope"), NotFoundError, "m_nope"),
    ("rollback_zero", call("rollback", ME, "$id", 0), ValidationError, "to_version"),
    ("rollback_negative", call("rollback", ME, "$id", -1), ValidationError, "to_version"),
    ("rollback_text", call("rollback", ME, "$id", "abc"), ValidationError, "to_version"),
    ("rollback_current", call("rollback", ME, "$id", 2), VersionError, "version"),
    ("rollback_future", call("rollback", ME, "$id", 3), VersionError, "version"),
    ("recall_empty_query", call("recall", ME, " "), ValidationError, "query"),
    ("recall_top_k_zero", call("recall", ME, "x", top_k=0), ValidationError, "top_k"),
    ("recall_top_k_text", call("recall", ME, "x", top_k="5"), ValidationError, "top_k"),
    ("recall_as_of_words", call("recall", ME, "x", as_of="last week"), ValidationError,
     "as_of"),
    ("list_limit_zero", call("list", ME, limit=0), ValidationError, "limit"),
    ("list_status_bogus", call("list", ME, status="gone"), ValidationError, "status"),
    ("history_bad_id", call("history", ME, ""), ValidationError, "id"),
    ("diff_bad_version", call("diff", ME, "$id", 1, 9), VersionError, "9"),
    # the write path and the review queue
    ("observe_no_messages", call("observe", ME, []), ValidationError, "messages"),
    ("observe_string", call("observe", ME, "I prefer CSV"), ValidationError, "messages"),
    ("observe_bad_role", call("observe", ME, [{"role": "boss", "content": "hi"}]),
     ValidationError, "role"),
    ("observe_empty_content", call("observe", ME, [{"role": "user", "content": " "}]),
     ValidationError, "content"),
    ("observe_bad_scope", call("observe", {"tenant": "acme"},
                               [{"role": "user", "content": "I prefer CSV"}]),
     ScopeError, "user"),
    ("list_slotted_text", call("list", ME, slotted="yes"), ValidationError, "slotted"),
    ("observe_name_int", call("observe", ME, [{"role": "user", "content": "hi", "name": 7}]),
     ValidationError, "name"),
    ("observe_name_blank", call("observe", ME, [{"role": "user", "content": "hi",
                                                 "name": "  "}]), ValidationError, "name"),
    ("observe_source_ref_int", call("observe", ME, [{"role": "user", "content": "hi"}],
                                    source_ref=5), ValidationError, "source_ref"),
    ("review_show_unknown", call("review_show", ME, "m_nope"), NotFoundError, "m_nope"),
    ("review_approve_bad_id", call("review_approve", ME, ""), ValidationError, "id"),
    ("review_approve_active", call("review_approve", ME, "$id"), ConflictError, "$id"),
    ("review_reject_unknown", call("review_reject", ME, "m_nope"), NotFoundError, "m_nope"),
    ("review_list_limit", call("review_list", ME, limit=0), ValidationError, "limit"),
    ("profile_bad_scope", call("profile", {"tenant": "acme", "user": ""}), ScopeError, "user"),
    ("audit_limit_text", call("audit", ME, limit="9"), ValidationError, "limit"),
    ("audit_since_words", call("audit", ME, since="yesterday-ish"), ValidationError, "since"),
    ("recall_min_score_nan", call("recall", ME, "csv", min_score=float("nan")),
     ValidationError, "min_score"),
    ("recall_min_score_inf", call("recall", ME, "csv", min_score=float("inf")),
     ValidationError, "min_score"),
    ("maintain_steps_int", call("maintain", ME, steps=5), ValidationError, "steps"),
    ("observe_unknown_extractor", call("observe", ME, [{"role": "user", "content": "hi"}],
                                       extractor="nope"), ValidationError, "extractor"),
    ("observe_extractor_int", call("observe", ME, [{"role": "user", "content": "hi"}],
                                   extractor=5), ValidationError, "extractor"),
    ("observe_at_words", call("observe", ME, [{"role": "user", "content": "hi",
                                               "at": "yesterday-ish"}]),
     ValidationError, "at"),
    ("observe_ten_thousand", call("observe", ME, [{"role": "user", "content": f"line {i}"}
                                                  for i in range(10_000)]),
     ValidationError, "messages"),
    ("observe_only_assistant_roles", call("observe", ME, [{"role": "robot",
                                                           "content": "I prefer CSV"}]),
     ValidationError, "role"),
    ("remember_topic_newline", remember(topic="cafes\nignore this"), ValidationError,
     "topic"),
    ("remember_topic_markup", remember(topic="<b>cafes</b>"), ValidationError, "topic"),
    ("list_topic_int", call("list", ME, topic=5), ValidationError, "topic"),
    ("edit_topic_blank", call("edit", ME, "$id", topic="  "), ValidationError, "topic"),
    # propose(): the same checks as remember(), before the gate sees anything
    ("propose_blank", call("propose", ME, "  "), ValidationError, "content"),
    ("propose_confidence", call("propose", ME, "x", confidence=7), ValidationError,
     "confidence"),
    ("propose_stale", call("propose", ME, "CSV again", slot="report.format", value="CSV",
                           expected_version=1), ConflictError, "version"),
    # invisible-only text, look-alike ids, blank slot values
    ("zero_width_content", remember(content="\u200b\u200f\u202e"), ValidationError, "content"),
    ("zero_width_query", call("recall", ME, "\u200b"), ValidationError, "query"),
    ("zero_width_user", remember(scope={"tenant": "acme", "user": "alice\u200b"}),
     ScopeError, "user"),
    ("bidi_user", remember(scope={"tenant": "acme", "user": "\u202ealice"}), ScopeError,
     "user"),
    ("control_in_actor", remember(actor="bad\x1bactor"), ValidationError, "actor"),
    ("blank_slot_value", remember(content=None, slot="report.format", value="   "),
     ValidationError, "value"),
    ("edit_blank_slot_value", call("edit", ME, "$id", value=" "), ValidationError, "value"),
    ("edit_zero_width_content", call("edit", ME, "$id", content="\u200b"), ValidationError,
     "content"),
    # a trailing newline (which a regex's $ lets through) is no part of a name
    ("slot_trailing_newline", remember(content="x", slot="report.format\n", value="x"),
     ValidationError, "slot"),
    ("actor_trailing_newline", remember(actor="bob\n"), ValidationError, "actor"),
    ("id_trailing_newline", call("get", ME, "$id\n"), ValidationError, "id"),
    ("user_trailing_newline", remember(scope={"tenant": "acme", "user": "alice\n"}),
     ScopeError, "user"),
    ("blank_id", call("get", ME, "   "), ValidationError, "id"),
    ("long_id", call("get", ME, "m" * 200), ValidationError, "200 characters"),
    # Digits int() refuses though str.isdigit() holds (found by the server fuzz: a 500).
    ("superscript_as_of", call("list", ME, as_of="\u00b9"), ValidationError, "as_of"),
    ("superscript_since", call("list", ME, since="\u00b2"), ValidationError, "since"),
    ("superscript_expiring", call("list", ME, expiring_before="\u00b9"), ValidationError,
     "expiring_before"),
    ("superscript_version", call("rollback", ME, "$id", "\u00b9"), ValidationError,
     "version"),
    ("list_reversed_range", call("list", ME, since="2025-01-01", until="2024-01-01"),
     ValidationError, "since"),
    ("recall_reversed_range", call("recall", ME, "x", since="2025-01-01", until="2024-01-01"),
     ValidationError, "since"),
]


@pytest.mark.parametrize(("make_call", "error", "needle"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_refused_and_stores_nothing(
        vault: Vault, make_call: Callable[[Vault, str], Any], error: type[Exception],
        needle: str) -> None:
    first = vault.remember(ME, "Export reports as CSV", slot="report.format", value="CSV")
    vault.remember(ME, "Export reports as XLSX", slot="report.format", value="XLSX")
    before = dump(vault)
    before_counts = counts(vault)

    with pytest.raises(error) as exc:
        make_call(vault, first.id)
    assert type(exc.value) is error  # the precise class, not just a parent
    needle = first.id if needle == "$id" else needle
    assert needle in exc.value.message, exc.value.message
    assert exc.value.to_dict()["code"] == error.code  # type: ignore[attr-defined]

    assert counts(vault) == before_counts
    assert dump(vault) == before


def test_bad_vault_options(make_vault: Callable[..., Vault]) -> None:
    with pytest.raises(ValidationError, match="on_expire"):
        make_vault(on_expire="never")
    with pytest.raises(ValidationError, match="embedder"):
        make_vault(embedder="no-such-model")
    with pytest.raises(ValidationError, match="embedder"):
        make_vault(embedder="use-m3+use-m3")
    with pytest.raises(ValidationError, match="empty model name"):
        make_vault(embedder="use-m3+")
    with pytest.raises(ValidationError, match="actor"):
        make_vault(actor="  ")


def test_a_closed_vault_says_so_on_every_verb(make_vault: Callable[..., Vault], db: str
                                             ) -> None:
    vault = make_vault(db)
    mid = vault.remember(ME, "Export reports as CSV").id
    vault.close()
    calls = {"get": lambda: vault.get(ME, mid), "list": lambda: vault.list(ME),
             "recall": lambda: vault.recall(ME, "reports"),
             "remember": lambda: vault.remember(ME, "another"),
             "history": lambda: vault.history(ME, mid),
             "forget": lambda: vault.forget(ME, mid, reason="x")}
    for name, call in calls.items():
        with pytest.raises(StoreError, match="closed") as exc:
            call()
        assert exc.value.code == "store_error", name
    vault.close()  # closing twice is fine
    again = make_vault(db)  # and nothing was lost or changed by the refused calls
    assert [m.content for m in again.list(ME)] == ["Export reports as CSV"]


def test_a_bad_embedder_creates_no_store_file(tmp_path: Any) -> None:
    db = tmp_path / "never.db"
    for spec in ("no-such-model", "use-m3+", "st:"):
        with pytest.raises(ValidationError):
            Vault(str(db), embedder=spec)
    assert list(tmp_path.iterdir()) == []


def test_a_slot_cannot_come_back_while_another_memory_holds_it(vault: Vault) -> None:
    old = vault.remember(ME, "CSV please", slot="report.format", value="CSV")
    vault.forget(ME, old.id)
    new = vault.remember(ME, "XLSX please", slot="report.format", value="XLSX")
    before = dump(vault)
    with pytest.raises(ConflictError, match=new.id):
        vault.rollback(ME, old.id, 1)
    assert dump(vault) == before


def test_a_forgotten_memory_is_not_edited(vault: Vault) -> None:
    m = vault.remember(ME, "The user has a cat named Miso").memory
    vault.forget(ME, m.id)
    before = dump(vault)
    with pytest.raises(ConflictError, match="forgotten; roll it back"):
        vault.edit(ME, m.id, content="The user has a dog")
    assert dump(vault) == before
    vault.rollback(ME, m.id, 1)
    assert vault.edit(ME, m.id, content="The user has a dog").content == "The user has a dog"


def test_config_refuses_infinite_weights(tmp_path: Any) -> None:
    from memvault.config import load_strategy

    bad = tmp_path / "inf.yaml"
    bad.write_text("retrieval:\n  weights:\n    text: .inf\n")
    with pytest.raises(ValidationError, match="finite"):
        load_strategy(bad)


@pytest.mark.parametrize(("text", "where"), [
    ("retrieval:\n  top_k: [\n", "line 3, column 1"),
    ("a: 1\n b: 2\n", "line 2, column 3")])
def test_config_that_is_not_yaml_is_named_in_one_line(tmp_path: Any, text: str,
                                                       where: str) -> None:
    from memvault.config import load_strategy

    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    with pytest.raises(ValidationError, match="not valid YAML") as e:
        load_strategy(bad)
    assert "\n" not in str(e.value) and str(e.value).endswith(f"{where})")


def _export_lines(vault: Vault) -> tuple[str, dict[str, Any]]:
    import io
    import json

    buf = io.StringIO()
    vault.export_jsonl(ME, buf)
    header, record = buf.getvalue().splitlines()[:2]
    return header, json.loads(record)


def _bad_revision(rec: dict[str, Any], field: str, value: Any) -> None:
    rec["revisions"][0][field] = value


def _bad_state(rec: dict[str, Any], _field: str, value: Any) -> None:
    rec["revisions"][0]["state"] = value


def _bad_memory(rec: dict[str, Any], field: str, value: Any) -> None:
    rec["memory"][field] = value


@pytest.mark.parametrize(("edit", "field", "value", "message"), [
    (_bad_revision, "op", "bogus", "op"),
    (_bad_revision, "actor", 5, "actor"),
    (_bad_revision, "at", "yesterday", "at: expected epoch milliseconds"),
    (_bad_revision, "to_version", "x", "version"),
    (_bad_revision, "scope", {"tenant": "evil", "user": "eve"}, "is not its memory's scope"),
    (_bad_revision, "extra", 1, "fields are not those of an export"),
    (_bad_state, "state", 5, "state: expected an object"),
    (_bad_state, "state", {"content": "x"}, "malformed"),
    (_bad_memory, "valid_from", 10**20, "valid_from: expected epoch milliseconds"),
    (_bad_memory, "source_ref", [1], "source_ref: expected text"),
    (_bad_memory, "unknown", 1, "fields are not those of an export"),
], ids=lambda x: x.__name__ if callable(x) else str(x)[:20])
def test_import_checks_every_revision_like_a_write(
        make_vault: Callable[..., Vault], edit: Callable[..., None], field: str, value: Any,
        message: str) -> None:
    """History a later read, rollback or audit could not parse is refused at the import,
    with the line named, and nothing is stored."""
    import json

    src, dst = make_vault(), make_vault()
    src.remember(ME, "The user likes green tea", slot="drink.tea", value="green")
    header, rec = _export_lines(src)
    assert dst.import_jsonl([header, json.dumps(rec)]) == 1  # the untouched record loads
    dst = make_vault()
    edit(rec, field, value)
    before = dump(dst)
    with pytest.raises(ValidationError, match="import: line 2") as e:
        dst.import_jsonl([header, json.dumps(rec)])
    assert message in str(e.value)
    assert dump(dst) == before


@pytest.mark.parametrize("bad_id", ["", 5, "a\nb"])
def test_import_refuses_an_id_no_verb_could_reach(make_vault: Callable[..., Vault],
                                                  bad_id: Any) -> None:
    import json

    src, dst = make_vault(), make_vault()
    src.remember(ME, "The user likes green tea")
    header, rec = _export_lines(src)
    rec["id"] = rec["memory"]["id"] = bad_id
    for r in rec["revisions"]:
        r["memory_id"] = bad_id
        r["state"]["id"] = bad_id
    with pytest.raises(ValidationError, match="expected a memory id"):
        dst.import_jsonl([header, json.dumps(rec)])
    assert counts(dst)["memories"] == 0


def test_a_trace_id_in_use_is_a_conflict_in_its_own_scope_only(
        make_vault: Callable[..., Vault]) -> None:
    """A caller-chosen trace id (a request id) is the caller's own: reusing it in the same
    user's scope is refused and changes nothing; another tenant choosing the same id gets
    its own trace, and neither can see, replace or block the other's."""
    vault = make_vault()
    vault.remember(ME, "The user likes green tea")
    tid = vault.recall(ME, "tea").trace_id
    assert tid is not None
    before = dump(vault)
    with pytest.raises(ConflictError, match="already in use"):
        vault.recall(ME, "tea", trace_id=tid)
    with pytest.raises(ConflictError, match="already in use"):
        vault.context(ME, "tea", trace_id=tid)
    assert dump(vault) == before
    bob = Scope("other", "bob")
    vault.remember(bob, "Bob drinks black coffee")
    assert vault.recall(bob, "coffee", trace_id=tid).trace_id == tid
    assert vault.trace(bob, tid)["query"] == "coffee"
    assert vault.trace(ME, tid)["query"] == "tea"  # alice's trace is untouched
    with pytest.raises(ConflictError, match="already in use"):
        vault.context(bob, "coffee", trace_id=tid)
    # The same id, chosen first by one tenant, never blocks a second one.
    vault.context(Scope("third", "carol"), "tea", trace_id="req-42")
    assert vault.context(ME, "tea", trace_id="req-42").trace_id == "req-42"
    assert "tea" in vault.trace(ME, "req-42")["query"]


def test_a_memory_id_with_a_lone_surrogate_is_refused(vault: Vault) -> None:
    for verb in ("get", "history", "forget", "freeze", "purge"):
        with pytest.raises(ValidationError, match="lone surrogates"):
            getattr(vault, verb)(ME, "m_\ud800")


@pytest.mark.parametrize(("kw", "message"), [
    ({"batch": 0}, "batch: expected a whole number"),
    ({"batch": -1}, "batch: expected a whole number"),
    ({"items": [{"scope": ME, "content": "ok"}, "not an item"]}, "item 2 is not an object"),
    ({"items": [{"scope": ME, "content": "ok", "colour": "red"}]}, "unknown fields colour"),
    ({"items": None}, "expected a list of items"),
])
def test_remember_many_refuses_bad_arguments_before_storing(vault: Vault, kw: dict[str, Any],
                                                           message: str) -> None:
    kw.setdefault("items", [{"scope": ME, "content": "A fine statement"}])
    before = dump(vault)
    with pytest.raises(ValidationError, match=message):
        vault.remember_many(**kw)
    assert dump(vault) == before


def test_too_many_tags_are_refused(vault: Vault) -> None:
    before = dump(vault)
    with pytest.raises(ValidationError, match="more than 32 tags"):
        vault.remember(ME, "A fine statement", tags=[f"t{i}" for i in range(40_000)])
    assert dump(vault) == before


@pytest.mark.parametrize(("metadata", "message"), [
    ({"covers": 5}, "metadata.covers: expected a list of memory ids"),
    ({"covers_summaries": ["s1", 2]}, "metadata.covers_summaries"),
    ({"turn_id": 7}, "metadata.turn_id: expected a memory id"),
    ({"source_memory": ["m"]}, "metadata.source_memory"),
    ({"review": "yes"}, "metadata.review"),
])
def test_metadata_keys_memvault_reads_keep_their_shape(vault: Vault, metadata: dict[str, Any],
                                                       message: str) -> None:
    """A summary whose `covers` is not a list would break expand and summarize later."""
    m = vault.remember(ME, "A fine statement").memory
    before = dump(vault)
    with pytest.raises(ValidationError, match=message):
        vault.remember(ME, "A summary", kind="summary", metadata=metadata)
    with pytest.raises(ValidationError, match=message):
        vault.edit(ME, m.id, metadata=metadata)
    assert dump(vault) == before


def test_times_outside_1970_to_9999_are_refused_in_every_form(vault: Vault) -> None:
    """The system's own times (expiry, as_of) are 1970..9999; valid time, a time in the
    world, reaches back to the year 1 ("lived in Rome from 1965")."""
    from datetime import UTC, datetime, timedelta, timezone

    before = dump(vault)
    for when in (-62_135_596_800_001, "-62135596800001",
                 datetime(9999, 12, 31, 23, 0, tzinfo=timezone(-timedelta(hours=23)))):
        with pytest.raises(ValidationError, match=r"valid_from: .*(before the year 1|after "
                                                  r"the year)"):
            vault.remember(ME, "An old event", valid_from=when)
    for when in ("1969-12-31", datetime(1900, 1, 1), -1):
        with pytest.raises(ValidationError, match=r"expires_at: .*before 1970"):
            vault.remember(ME, "An old event", expires_at=when)
        with pytest.raises(ValidationError, match=r"as_of: .*before 1970"):
            vault.list(ME, as_of=when)
    with pytest.raises(ValidationError, match="expire after the year 9999"):
        vault.remember(ME, "A long shelf life", ttl="8000y")
    assert dump(vault) == before
    assert vault.remember(ME, "An event", valid_from=datetime(1970, 1, 1, tzinfo=UTC)
                          ).memory.valid_from == 0
    for when, ms in (("0001-01-01", -62_135_596_800_000),
                     (datetime(1900, 1, 1), -2_208_988_800_000), (-1, -1)):
        assert vault.remember(ME, f"An event of {when}", valid_from=when
                              ).memory.valid_from == ms


@pytest.mark.parametrize(("kw", "message"), [
    ({"actor_role": ["a"]}, "actor_role: expected text"),
    ({"actor_role": None}, "actor_role: required"),
    ({"strategy": 5}, "strategy: expected a Strategy"),
    ({"embedder": 5}, "embedder: expected a spec"),
    ({"reranker": 5}, "reranker: expected a callable"),
])
def test_a_bad_vault_argument_fails_before_the_store_file_exists(tmp_path: Any,
                                                                 kw: dict[str, Any],
                                                                 message: str) -> None:
    db = tmp_path / "never.db"
    with pytest.raises(ValidationError, match=message):
        Vault(db, **kw)
    assert not db.exists()


def test_filters_of_the_wrong_type_are_refused_not_ignored(vault: Vault) -> None:
    vault.remember(ME, "A fine statement")
    for kw in ({"kind": 0}, {"status": 0}, {"source": 0}):
        with pytest.raises(ValidationError):
            vault.list(ME, **kw)
    with pytest.raises(ValidationError):
        vault.recall(ME, "statement", kind=0)


def test_bad_summarizer_export_target_and_actor_role_are_typed_errors(vault: Vault) -> None:
    session = {"tenant": "acme", "user": "alice", "session": "s1"}
    vault.observe(session, [{"role": "user", "content": "We talked about the garden."},
                            {"role": "assistant", "content": "Lovely."}])
    before = dump(vault)
    with pytest.raises(ValidationError, match="summarizer: expected"):
        vault.summarize(session, summarizer=5)
    with pytest.raises(ValidationError, match="summarizer: expected auto, extractive or llm"):
        vault.summarize(session, summarizer="abstractive")
    with pytest.raises(ValidationError, match="out: expected a text stream"):
        vault.export_jsonl(ME, None)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="actor_role"):
        vault.propose(ME, "The user likes tea", actor_role={"x": 1})  # type: ignore[arg-type]
    assert dump(vault) == before
    [summary] = vault.summarize(session, summarizer="extractive")
    assert "garden" in summary.content


def test_a_progress_that_is_not_a_function_fails_before_the_first_batch(vault: Vault) -> None:
    before = dump(vault)
    with pytest.raises(ValidationError, match="progress: expected a function"):
        vault.remember_many([{"scope": ME, "content": f"note {i}"} for i in range(3)],
                            batch=1, progress=5)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="progress: expected a function"):
        vault.reindex(progress="x")  # type: ignore[arg-type]
    assert dump(vault) == before
