"""A fake OpenAI-compatible provider on loopback: real HTTP, scripted answers.

The LLM layer is tested through litellm's real HTTP path, so the only fake is the provider
itself. Each POST to /v1/chat/completions (or /chat/completions) takes the next scripted
`Reply` (or asks `responder`), and every request body is kept for assertions. A reply can
carry OpenAI-style tool calls (`tool_reply`), with arguments given as any string, so a test can
script a model that calls unknown tools or sends JSON that does not parse.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str = ""
    prompt_tokens: int = 100
    completion_tokens: int = 20
    status: int = 200  # 429 for a rate limit, 500 for a server error
    delay_s: float = 0.0  # sleep before answering (a hang past the client's timeout)
    finish_reason: str = "stop"  # "length" for an answer cut off at max_tokens
    tool_calls: list[dict[str, Any]] | None = None  # OpenAI wire format, see `tool_reply`
    raw: str | None = None  # a body sent as it is (an HTML page from a proxy), as text/html
    no_choices: bool = False  # a well-formed response with `"choices": []`


_CALL_IDS = itertools.count(1)


def json_reply(payload: Any, prompt_tokens: int = 100, completion_tokens: int = 20) -> Reply:
    return Reply(json.dumps(payload), prompt_tokens, completion_tokens)


def tool_call(name: str, arguments: Any, call_id: str = "") -> dict[str, Any]:
    """One call in the OpenAI wire format; `arguments` that are not a str are JSON-encoded."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "id": call_id or f"call_{next(_CALL_IDS)}",
        "type": "function",
        "function": {"name": name, "arguments": args},
    }


def tool_reply(
    *calls: dict[str, Any], content: str = "", prompt_tokens: int = 100, completion_tokens: int = 20
) -> Reply:
    """An assistant turn that calls tools (build each call with `tool_call`)."""
    return Reply(
        content,
        prompt_tokens,
        completion_tokens,
        finish_reason="tool_calls",
        tool_calls=list(calls),
    )


class FakeLLM:
    def __init__(self, responder: Callable[[dict[str, Any]], Reply] | None = None) -> None:
        self.script: deque[Reply] = deque()
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.auth: list[str] = []  # Authorization header of each request
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def push(self, *replies: Reply) -> None:
        self.script.extend(replies)

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            if self.script:
                return self.script.popleft()
        if self.responder is not None:
            return self.responder(body)
        return Reply(status=500, content="fake provider: script exhausted")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.paths.append(self.path)
                fake.auth.append(self.headers.get("authorization", ""))
                reply = fake._next(body)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.raw is not None:
                    self._send_raw(reply.status, reply.raw)
                    return
                if reply.status != 200:
                    error = {"message": reply.content or "error", "type": "fake", "code": None}
                    self._send(reply.status, {"error": error})
                    return
                message: dict[str, Any] = {"role": "assistant", "content": reply.content}
                if reply.tool_calls:
                    message["tool_calls"] = reply.tool_calls
                    message["content"] = reply.content or None
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{len(fake.requests)}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "fake-model"),
                        "choices": []
                        if reply.no_choices
                        else [
                            {
                                "index": 0,
                                "message": message,
                                "finish_reason": reply.finish_reason,
                            }
                        ],
                        "usage": {
                            "prompt_tokens": reply.prompt_tokens,
                            "completion_tokens": reply.completion_tokens,
                            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
                        },
                    },
                )

            def _send_raw(self, status: int, text: str) -> None:
                self._send(status, {}, text.encode(), "text/html")

            def _send(
                self,
                status: int,
                payload: dict[str, Any],
                data: bytes = b"",
                kind: str = "application/json",
            ) -> None:
                data = data or json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", kind)
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up on a hung request
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


@contextmanager
def running(fake: FakeLLM) -> Iterator[FakeLLM]:
    fake._thread.start()
    try:
        yield fake
    finally:
        fake._server.shutdown()
        fake._server.server_close()
