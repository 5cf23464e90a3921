"""A webhook receiver on 127.0.0.1 for the event tests: records every POST (headers and raw
body) and answers with what `respond(n)` says for the n-th one (1-based): a status code, or
a threading.Event to wait on before answering 200 (a receiver that hangs)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = int | threading.Event


class Receiver:
    def __init__(self, respond: Callable[[int], Answer] = lambda n: 200) -> None:
        self.got: list[dict[str, Any]] = []
        self.respond = respond
        self.arrived = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                with receiver.arrived:
                    receiver.got.append({"headers": dict(self.headers), "raw": raw,
                                         "event": json.loads(raw)})
                    n = len(receiver.got)
                    receiver.arrived.notify_all()
                answer = receiver.respond(n)
                if isinstance(answer, threading.Event):
                    answer.wait(30)
                    answer = 200
                try:
                    self.send_response(answer)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:  # the sender is gone (killed mid-delivery)
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                       daemon=True)
        self.thread.start()

    def wait_for(self, n: int, timeout: float = 30.0) -> list[dict[str, Any]]:
        """Block until at least `n` requests came (AssertionError after `timeout`)."""
        with self.arrived:
            if not self.arrived.wait_for(lambda: len(self.got) >= n, timeout):
                raise AssertionError(f"{len(self.got)} webhook requests, expected {n}")
            return list(self.got)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
