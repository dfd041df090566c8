"""A minimal OpenAI-compatible chat server for tests: loopback only, bounded, answers by rule, records requests.

Usage::

    with OpenAIServer(rule=lambda req: "Yes", max_requests=500, lifetime_s=600) as server:
        run lmms-eval --model openai --model_args base_url={server.base_url},api_key=test,...
    server.requests  # every request body (parsed JSON), in arrival order

``rule`` gets a :class:`ChatRequest` (the text parts joined, the image parts, the raw body) and returns the
assistant's text. The server binds 127.0.0.1 on a free port, answers at most ``max_requests`` requests
(later ones get HTTP 503), and stops by itself after ``lifetime_s`` seconds or when the ``with`` block ends.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["ChatRequest", "OpenAIServer"]


@dataclass
class ChatRequest:
    """One recorded ``POST /v1/chat/completions``."""

    body: dict
    raw: bytes
    headers: dict[str, str]  # names lower-cased
    texts: list[str] = field(default_factory=list)  # every text part, in order
    images: list[str] = field(default_factory=list)  # every image_url URL (data: URLs), in order
    other_parts: list[dict] = field(default_factory=list)  # any other content part (video_url, audio_url, …)

    @property
    def text(self) -> str:
        """The text parts joined (our tasks send one)."""
        return "".join(self.texts)

    @classmethod
    def parse(cls, raw: bytes, headers: dict[str, str]) -> ChatRequest:
        """Split the messages of a chat body into text, image and other parts."""
        body = json.loads(raw)
        req = cls(body=body, raw=raw, headers=headers)
        for message in body.get("messages", []):
            content = message.get("content")
            if isinstance(content, str):
                req.texts.append(content)
                continue
            for part in content or []:
                kind = part.get("type")
                if kind == "text":
                    req.texts.append(part.get("text", ""))
                elif kind == "image_url":
                    req.images.append(part["image_url"]["url"])
                else:
                    req.other_parts.append(part)
        return req


class OpenAIServer:
    """Loopback OpenAI-compatible ``/v1/chat/completions`` server, bounded in time and request count."""

    def __init__(
        self,
        rule: Callable[[ChatRequest], str],
        *,
        max_requests: int = 1000,
        lifetime_s: float = 600.0,
        model: str = "test-model",
    ) -> None:
        self.rule = rule
        self.max_requests = max_requests
        self.lifetime_s = lifetime_s
        self.model = model
        self.requests: list[ChatRequest] = []
        self.refused = 0
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._timer: threading.Timer | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"unknown path {self.path}"}})
                    return
                with server._lock:
                    if len(server.requests) >= server.max_requests:
                        server.refused += 1
                        refuse = True
                    else:
                        refuse = False
                        req = ChatRequest.parse(raw, {k.lower(): v for k, v in self.headers.items()})
                        server.requests.append(req)
                if refuse:
                    self._send(503, {"error": {"message": "test server: request limit reached"}})
                    return
                try:
                    answer = server.rule(req)
                except Exception as exc:  # a broken rule must show in the test, not hang the client
                    server.errors.append(f"{type(exc).__name__}: {exc}")
                    self._send(500, {"error": {"message": str(exc)}})
                    return
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{len(server.requests)}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": server.model,
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    },
                )

        return Handler

    def start(self) -> OpenAIServer:
        """Bind 127.0.0.1 on a free port and serve in a daemon thread until :meth:`stop` or ``lifetime_s``."""
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, name="openai-test-server", daemon=True).start()
        self._timer = threading.Timer(self.lifetime_s, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        """Stop serving and free the port (idempotent)."""
        if self._timer is not None:
            self._timer.cancel()
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
