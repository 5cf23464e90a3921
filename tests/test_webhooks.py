"""Webhook delivery (memvault.webhooks) to a real receiver on loopback, on both backends:
the delivery rounds are driven here (deliver_due, what the server's thread runs), with a
backoff of a millisecond, so every retry, dead letter and order is checked without
waiting on a timer."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from _webhook import Answer, Receiver

from memvault import Scope, Vault, webhooks
from memvault.changes import SIGNATURE_HEADER, verify
from memvault.errors import ConflictError, NotFoundError, ValidationError

ME = Scope("acme", "alice")
FAST = webhooks.Policy(max_attempts=3, backoff_ms=1, backoff_max_ms=1, timeout=5.0)


@pytest.fixture
def receiver(request: pytest.FixtureRequest) -> Iterator[Callable[..., Receiver]]:
    made: list[Receiver] = []

    def make(respond: Callable[[int], Answer] = lambda n: 200) -> Receiver:
        made.append(Receiver(respond))
        return made[-1]
    yield make
    for r in made:
        r.close()


def drain(vault: Vault, rounds: int = 50) -> None:
    """Delivery rounds until nothing is due (each failure is due again 1 ms later)."""
    for _ in range(rounds):
        if not webhooks.deliver_due(vault.store, FAST):
            pending = [d for h in vault.store.webhooks("acme") for d in
                       vault.store.deliveries("acme", h["webhook_id"], status="pending")]
            if not pending:
                return
    raise AssertionError("deliveries still pending")


def test_each_event_is_posted_signed_and_as_committed(vault: Vault,
                                                      receiver: Callable[..., Receiver]
                                                      ) -> None:
    rx = receiver()
    hook = webhooks.add(vault.store, tenant="acme", url=rx.url)
    a = vault.remember(ME, "Prefers CSV reports", slot="report.format", value="CSV")
    vault.remember(ME, "Prefers PDF reports", slot="report.format", value="PDF")
    vault.rollback(ME, a.id, 1)
    drain(vault)
    committed = [e.to_dict() for e in vault.events("acme")]
    assert [g["event"] for g in rx.got] == committed
    for g in rx.got:
        sig = g["headers"][SIGNATURE_HEADER]
        assert sig.startswith("sha256=") and verify(hook["secret"], g["raw"], sig)
        assert g["headers"]["X-Memvault-Event-Id"] == str(g["event"]["id"])
        # A forged or altered body is detectable.
        assert not verify("whsec_not-the-secret-at-all", g["raw"], sig)
        assert not verify(hook["secret"], g["raw"].replace(b'"alice"', b'"mallory"'), sig)
    log = vault.store.deliveries("acme", hook["webhook_id"])
    assert [(d["status"], d["attempts"], [x["code"] for x in d["log"]]) for d in log] == \
        [("delivered", 1, [200])] * 3


def test_a_failure_is_retried_until_it_succeeds(vault: Vault,
                                                receiver: Callable[..., Receiver]) -> None:
    rx = receiver(lambda n: 500 if n <= 2 else 200)
    hook = webhooks.add(vault.store, tenant="acme", url=rx.url)
    vault.remember(ME, "Likes jazz")
    vault.remember(ME, "Likes blues")
    drain(vault)
    ids = [g["event"]["id"] for g in rx.got]
    first, second = (e.id for e in vault.events("acme"))
    # The first is retried (same event id each time) and the second waits behind it.
    assert ids == [first, first, first, second]
    log = vault.store.deliveries("acme", hook["webhook_id"])
    by_event = {d["event_id"]: d for d in log}
    assert [x["code"] for x in by_event[first]["log"]] == [500, 500, 200]
    assert (by_event[first]["status"], by_event[first]["attempts"]) == ("delivered", 3)
    assert [x["attempt"] for x in by_event[first]["log"]] == [1, 2, 3]
    assert by_event[second]["status"] == "delivered"


def test_a_dead_letter_after_n_failures_then_retried_by_hand(
        vault: Vault, receiver: Callable[..., Receiver]) -> None:
    down = {"on": True}
    rx = receiver(lambda n: 503 if down["on"] else 200)
    hook = webhooks.add(vault.store, tenant="acme", url=rx.url)
    vault.remember(ME, "Likes jazz")
    drain(vault)
    [dead] = webhooks.deliveries(vault.store, "acme", hook["webhook_id"], status="dead")
    assert (dead["attempts"], dead["last_code"]) == (3, 503)
    assert [x["code"] for x in dead["log"]] == [503, 503, 503]
    # A dead letter does not hold back what comes after it.
    down["on"] = False
    vault.remember(ME, "Likes blues")
    drain(vault)
    assert len(rx.got) == 4
    again = webhooks.retry(vault.store, "acme", hook["webhook_id"], dead["event_id"])
    assert (again["status"], again["attempts"]) == ("pending", 0)
    drain(vault)
    assert rx.got[-1]["event"]["id"] == dead["event_id"]
    done = {d["event_id"]: d for d in webhooks.deliveries(vault.store, "acme",
                                                          hook["webhook_id"])}
    assert done[dead["event_id"]]["status"] == "delivered"
    assert [x["code"] for x in done[dead["event_id"]]["log"]] == [503, 503, 503, 200]
    with pytest.raises(ConflictError):  # delivered: nothing to retry
        webhooks.retry(vault.store, "acme", hook["webhook_id"], dead["event_id"])


def test_filters_removal_and_purge_before_delivery(vault: Vault,
                                                   receiver: Callable[..., Receiver]
                                                   ) -> None:
    rx_all, rx_forget, rx_bob = receiver(), receiver(), receiver()
    webhooks.add(vault.store, tenant="acme", url=rx_all.url)
    webhooks.add(vault.store, tenant="acme", url=rx_forget.url, kinds=["forget"])
    bob_hook = webhooks.add(vault.store, tenant="acme", url=rx_bob.url, user="bob")
    secret = "quokka-umbrella-5521"
    m = vault.remember(ME, f"My alarm code is {secret}")
    vault.remember(Scope("acme", "bob"), "Bob likes rock")
    vault.remember(Scope("globex", "alice"), "Not this tenant's")
    # Purged before it was delivered: the queued delivery sends the erased event.
    vault.purge(ME, m.id)
    f = vault.remember(ME, "Likes tea")
    vault.forget(ME, f.id)
    drain(vault)
    assert [g["event"]["kind"] for g in rx_all.got] == ["add", "add", "purge", "add",
                                                        "forget"]
    assert rx_all.got[0]["event"]["payload"] is None
    assert all(secret.encode() not in g["raw"] for g in rx_all.got)
    assert [g["event"]["kind"] for g in rx_forget.got] == ["forget"]
    assert [g["event"]["user"] for g in rx_bob.got] == ["bob"]
    webhooks.remove(vault.store, "acme", bob_hook["webhook_id"])
    vault.remember(Scope("acme", "bob"), "Bob likes punk")
    drain(vault)
    assert len(rx_bob.got) == 1
    assert [h["webhook_id"] for h in webhooks.list_hooks(vault.store, "acme")] == [
        h["webhook_id"] for h in vault.store.webhooks("acme")]
    assert all("secret" not in h for h in webhooks.list_hooks(vault.store, "acme"))


def test_bad_subscriptions_are_refused_and_store_nothing(vault: Vault) -> None:
    for bad in ({"url": "ftp://example.com/x"}, {"url": "not a url"}, {"url": ""},
                {"url": "http://h/x", "kinds": ["nope"]}, {"url": "http://h/x",
                                                          "secret": "short"},
                {"url": "http://h/x", "since": -1}):
        with pytest.raises(ValidationError):
            webhooks.add(vault.store, tenant="acme", **bad)  # type: ignore[arg-type]
    assert vault.store.webhooks(None, removed=True) == []
    with pytest.raises(NotFoundError):
        webhooks.remove(vault.store, "acme", "wh_nope")
    hook = webhooks.add(vault.store, tenant="acme", url="http://h/x")
    with pytest.raises(NotFoundError):  # another tenant's webhook is not there
        webhooks.deliveries(vault.store, "globex", hook["webhook_id"])
    with pytest.raises(ValidationError):
        webhooks.Policy(max_attempts=0)
