"""A minimal OpenAI-compatible chat-completions server on 127.0.0.1, for API-model tests.

Bounded on purpose: it binds the loopback interface only, on a free port, answers at most
``max_requests`` requests, and stops by itself after ``max_seconds`` (or when the ``with`` block
ends). Every request body is recorded, so a test can count the images a model sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Loopback:
    """The running server: its base URL and the JSON bodies received so far."""

    url: str
    requests: list[dict] = field(default_factory=list)

    @staticmethod
    def images(body: dict) -> int:
        """How many ``image_url`` parts the chat request carries."""
        return sum(
            1
            for message in body.get("messages", [])
            if isinstance(message.get("content"), list)
            for part in message["content"]
            if isinstance(part, dict) and part.get("type") == "image_url"
        )

    @staticmethod
    def text(body: dict) -> str:
        """The request's text parts, joined."""
        out = []
        for message in body.get("messages", []):
            content = message.get("content")
            if isinstance(content, str):
                out.append(content)
            elif isinstance(content, list):
                out += [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        return "\n".join(out)


@contextmanager
def serve(reply: Callable[[dict], str], max_requests: int = 200, max_seconds: float = 300.0) -> Iterator[Loopback]:
    """Run the server for the ``with`` block; ``reply(body)`` gives each answer's text."""
    state = Loopback(url="")
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep the test output quiet
            pass

        def _send(self, code: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                self._send(400, {"error": {"message": "body is not JSON"}})
                return
            with lock:
                if len(state.requests) >= max_requests:
                    self._send(429, {"error": {"message": f"loopback server: more than {max_requests} requests"}})
                    return
                state.requests.append(body)
            if not self.path.rstrip("/").endswith("chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            text = reply(body)
            self._send(200, {
                "id": f"loop-{len(state.requests)}", "object": "chat.completion", "created": 0,
                "model": body.get("model", "loopback"),
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            })  # fmt: skip

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    timer = threading.Timer(max_seconds, server.shutdown)  # stops by itself even if the test hangs
    timer.daemon = True
    thread.start()
    timer.start()
    try:
        yield state
    finally:
        timer.cancel()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
