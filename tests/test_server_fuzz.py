"""Schemathesis fuzz of the OpenAPI schema against a running server (SQLite): no 5xx, and
every response conforms to the schema (status code documented, content type, body).
Bounded: a few examples per operation and key, well under a minute."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from _server import Server, new_key
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]
EXAMPLES = 12


@schemathesis.serializer("application/x-ndjson")
def _ndjson(ctx: object, value: object) -> bytes:
    # The import body is JSONL text; the schema says string.
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else \
        str(value).encode()


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(str(tmp_path_factory.mktemp("fuzz") / "s.db"))
    yield s
    s.stop()


@pytest.mark.parametrize("role", ["admin", "user"])
def test_schema_fuzz(srv: Server, role: str, tmp_path: Path) -> None:
    assert srv.admin_key is not None
    with srv.client(srv.admin_key) as admin:
        key = srv.admin_key if role == "admin" else new_key(admin, role="user", user="fuzz")
        # Something to find: a memory with two versions for the fuzz user.
        admin.post("/v1/memories", params={"user": "fuzz"},
                   json={"slot": "report.format", "value": "CSV"})
        admin.post("/v1/memories", params={"user": "fuzz"},
                   json={"slot": "report.format", "value": "XLSX"})
    schema = schemathesis.openapi.from_url(srv.url + "/openapi.json")
    headers = {"Authorization": f"Bearer {key}"}
    ops = [r.ok() for r in schema.get_all_operations()]
    assert len(ops) >= 30
    for op in ops:
        @given(case=op.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, database=None,
                  phases=[Phase.explicit, Phase.generate],
                  suppress_health_check=list(HealthCheck))
        def run(case: schemathesis.Case) -> None:
            case.call_and_validate(base_url=srv.url, headers=headers, checks=CHECKS)

        run()
