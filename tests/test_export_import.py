"""Export / import: a lossless round trip of memories and their full history, all or
nothing on the way in."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from _util import ManualClock, build_history, check_consistent, dump, export_text

from memvault import ConflictError, Scope, ValidationError, Vault

ME = Scope("acme", "alice")


@pytest.fixture
def source(make_vault: Callable[..., Vault]) -> tuple[Vault, dict[str, str]]:
    clock = ManualClock()
    v = make_vault(clock=clock)
    return v, build_history(v, clock)


def test_round_trip_is_byte_identical(source: tuple[Vault, dict[str, str]],
                                      make_vault: Callable[..., Vault]) -> None:
    src, ids = source
    text = export_text(src, ME)
    lines = text.splitlines()
    assert json.loads(lines[0])["format"] == "memvault-export"
    assert len(lines) == 1 + 6  # header + every memory ever in the scope, purged included
    assert "zebracorn42" not in text and "紫色独角兽" not in text
    assert "Bob prefers tea" not in text

    dst = make_vault()
    assert dst.import_jsonl(text.splitlines(keepends=True)) == 6
    again = export_text(dst, ME)
    assert again == text

    for key, mid in ids.items():
        if key == "purged":
            continue
        sc = Scope("acme", "alice", "reporter", "s1") if key == "agent" else ME
        assert dst.get(sc, mid).to_dict() == src.get(sc, mid).to_dict(), key
        assert [r.to_dict() for r in dst.history(sc, mid)] == [
            r.to_dict() for r in src.history(sc, mid)], key
    assert [r.op for r in dst.history(ME, ids["purged"])] == ["create", "purge"]
    assert dst.get(ME, ids["frozen"]).frozen
    assert dst.get(ME, ids["forgotten"]).status == "deleted"
    # Imported memories are indexed: recall works on the imported store.
    assert [h.memory.value for h in dst.recall(ME, "导出格式", top_k=10)
            if h.memory.slot == "report.format"] == ["CSV"]
    assert dst.recall(ME, "dog named Bao")[0].memory.id == ids["plain"]
    c = check_consistent(dst)
    assert c["memories"] == c["text"] == c["vectors"] == 5


def test_import_conflicting_id_imports_nothing(source: tuple[Vault, dict[str, str]],
                                               make_vault: Callable[..., Vault]) -> None:
    src, ids = source
    text = export_text(src, ME)
    dst = make_vault()
    # The target already holds one memory of the export (imported earlier on its own).
    header, *records = text.splitlines()
    plain = next(r for r in records if json.loads(r)["id"] == ids["plain"])
    assert dst.import_jsonl([header, plain]) == 1
    before = dump(dst)
    with pytest.raises(ConflictError) as exc:
        dst.import_jsonl(text.splitlines())
    assert ids["plain"] in exc.value.message
    assert dump(dst) == before


def test_import_into_the_same_store_conflicts(source: tuple[Vault, dict[str, str]]) -> None:
    src, _ = source
    text = export_text(src, ME)
    before = dump(src)
    with pytest.raises(ConflictError):
        src.import_jsonl(text.splitlines())
    assert dump(src) == before


def test_import_of_purged_history_twice_conflicts(source: tuple[Vault, dict[str, str]],
                                                  make_vault: Callable[..., Vault]) -> None:
    """A purged memory exports as history only; importing it twice is a conflict too."""
    src, ids = source
    header, *records = export_text(src, ME).splitlines()
    purged = next(r for r in records if json.loads(r)["id"] == ids["purged"])
    assert json.loads(purged)["memory"] is None
    dst = make_vault()
    assert dst.import_jsonl([header, purged]) == 1
    before = dump(dst)
    with pytest.raises(ConflictError):
        dst.import_jsonl([header, purged])
    assert dump(dst) == before


def _mutations(header: str, record: str) -> dict[str, list[str]]:
    rec: dict[str, Any] = json.loads(record)
    no_kind = json.loads(record)
    del no_kind["memory"]["kind"]
    bad_rev = json.loads(record)
    del bad_rev["revisions"][0]["op"]
    extra_rev = json.loads(record)
    extra_rev["revisions"][0]["surprise"] = 1
    other_id = json.loads(record)
    other_id["memory"]["id"] = "m_other"
    bad_scope = json.loads(record)
    bad_scope["memory"]["scope"] = {"tenant": "acme"}
    foreign_rev = json.loads(record)
    foreign_rev["revisions"][0]["memory_id"] = "m_other"
    empty_content = json.loads(record)
    empty_content["memory"]["content"] = "  "

    def field(name: str, value: Any) -> str:
        bad = json.loads(record)
        bad["memory"][name] = value
        return json.dumps(bad)
    return {
        "bad_kind": [header, field("kind", "bogus")],
        "bad_status": [header, field("status", "weird")],
        "negative_version": [header, field("version", -3)],
        "date_as_text": [header, field("created_at", "yesterday")],
        "nan_confidence": [header, field("confidence", float("nan"))],
        "frozen_as_text": [header, field("frozen", "no")],
        "same_memory_twice": [header, record, record],
        "not_json": [header, record, "{not json"],
        "no_header": [record],
        "wrong_format": [json.dumps({"format": "other", "format_version": 1}), record],
        "future_version": [json.dumps({"format": "memvault-export", "format_version": 99}),
                           record],
        "empty": [],
        "no_revisions": [header, record, json.dumps({"id": rec["id"], "memory": None,
                                                     "revisions": []})],
        "a_list": [header, record, "[1, 2]"],
        "memory_without_kind": [header, json.dumps(no_kind)],
        "revision_without_op": [header, json.dumps(bad_rev)],
        "revision_with_unknown_field": [header, json.dumps(extra_rev)],
        "id_mismatch": [header, json.dumps(other_id)],
        "scope_without_user": [header, json.dumps(bad_scope)],
        "revision_of_other_memory": [header, json.dumps(foreign_rev)],
        "empty_content": [header, json.dumps(empty_content)],
        "header_scope_without_user": [json.dumps({**json.loads(header),
                                                  "scope": {"tenant": "acme"}}), record],
        "header_scope_not_an_object": [json.dumps({**json.loads(header), "scope": "acme"}),
                                       record],
    }


@pytest.mark.parametrize("case", [
    "not_json", "no_header", "wrong_format", "future_version", "empty", "no_revisions",
    "a_list", "memory_without_kind", "revision_without_op", "revision_with_unknown_field",
    "id_mismatch", "scope_without_user", "revision_of_other_memory", "empty_content",
    "bad_kind", "bad_status", "negative_version", "date_as_text", "nan_confidence",
    "frozen_as_text", "same_memory_twice", "header_scope_without_user",
    "header_scope_not_an_object"])
def test_malformed_input_imports_nothing(source: tuple[Vault, dict[str, str]],
                                         make_vault: Callable[..., Vault], case: str) -> None:
    src, ids = source
    header, *records = export_text(src, ME).splitlines()
    plain = next(r for r in records if json.loads(r)["id"] == ids["plain"])
    lines = _mutations(header, plain)[case]
    dst = make_vault()
    dst.remember(ME, "Already here")
    before = dump(dst)
    with pytest.raises(ValidationError) as exc:
        dst.import_jsonl(lines)
    assert exc.value.message.startswith(("import", "content", "scope"))
    assert dump(dst) == before


@pytest.mark.parametrize("batch", [1, 512])
def test_an_export_whose_memory_names_a_purged_one_loads_at_any_batch_size(
        make_vault: Callable[..., Vault], batch: int) -> None:
    """A note whose own metadata names a memory that was purged later travels with that
    memory's tombstone; the import accepts the pair in either order of batches."""
    import io

    src = make_vault()
    gone = src.remember(ME, "A note that will be purged").id
    src.remember(ME, "A note about it", metadata={"source_memory": gone})
    src.purge(ME, gone)
    buf = io.StringIO()
    src.export_jsonl(ME, buf)
    dst = make_vault()
    assert dst.import_jsonl(buf.getvalue().splitlines(), batch=batch) == 2
    assert [m.content for m in dst.list(ME)] == ["A note about it"]


def _deep(depth: int) -> Any:
    out: Any = "x"
    for _ in range(depth):
        out = {"a": out}
    return out


@pytest.mark.parametrize("value", ["a\x00b", 2**64, -(2**63) - 1, _deep(45)],
                         ids=["nul", "past-64-bits", "below-64-bits", "deep"])
def test_import_walks_a_line_its_text_cannot_clear(make_vault: Callable[..., Vault],
                                                   value: Any) -> None:
    """What no field check reads (a key of an older revision's state that no Memory field
    takes) is still walked for what a read could not hand back, when the line's text
    shows it may hold it (portability._plain)."""
    src = make_vault()
    r = src.remember(ME, "The user likes green tea")
    src.edit(ME, r.memory.id, content="The user likes black tea")
    header, line = export_text(src, ME).splitlines()
    rec = json.loads(line)
    rec["revisions"][0]["state"]["extra"] = {"k": value}
    dst = make_vault()
    with pytest.raises(ValidationError, match="import: line 2"):
        dst.import_jsonl([header, json.dumps(rec)])
    rec["revisions"][0]["state"]["extra"] = {"k": 2**62}  # 19 digits, inside 64 bits
    assert dst.import_jsonl([header, json.dumps(rec)]) == 1
