"""The webhook delivery thread of a server: webhooks.deliver_due in a loop (the rules,
retries and dead letters are memvault.webhooks)."""

from __future__ import annotations

import logging
import threading

from .. import webhooks
from ..vault import Vault

log = logging.getLogger("memvault.server.webhooks")


class Dispatcher:
    def __init__(self, vault: Vault, policy: webhooks.Policy, poll_seconds: float) -> None:
        self.vault, self.policy, self.poll = vault, policy, poll_seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="memvault-webhooks",
                                        daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(self.policy.timeout + 5)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                sent = webhooks.deliver_due(self.vault.store, self.policy)
            except Exception:  # the store is down: wait and retry, deliveries are kept
                log.exception("webhook delivery failed")
                sent = 0
            if not sent:
                self._stop.wait(self.poll)
