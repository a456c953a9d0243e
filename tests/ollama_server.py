"""A real HTTP server on 127.0.0.1 that speaks the parts of the Ollama API a chat client uses.

``POST /api/chat`` (streamed NDJSON, or one JSON object when ``"stream": false``),
``POST /api/show`` and ``GET /api/tags``. A test sets ``responder`` (request -> reply text) and
``delay``; the server records every chat request body and the most requests it held at once.

Example:
    >>> with OllamaServer(responder=lambda request: '{"labels": []}') as server:  # doctest: +SKIP
    ...     ChatOllama(model=server.model, base_url=server.base_url).invoke("hi")
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# The classifier's boundary carries a random token (``<chunk-ID>``); plain tags are read too.
CHUNK_RE = re.compile(r"<chunk(-[0-9a-f]+|)>(.*?)</chunk\1>", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class ChatRequest:
    """One ``/api/chat`` body as the model would see it."""

    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The chat messages, in order."""
        return list(self.body.get("messages", []))

    @property
    def format(self) -> Any:
        """The ``format`` the client asked for (a JSON schema for structured output)."""
        return self.body.get("format")

    @property
    def user_text(self) -> str:
        """Content of the last user message."""
        users = [m for m in self.messages if m.get("role") == "user"]
        return str(users[-1].get("content", "")) if users else ""

    @property
    def system_text(self) -> str:
        """Content of the system messages, joined."""
        return "\n".join(str(m.get("content", "")) for m in self.messages if m["role"] == "system")

    @property
    def chunk(self) -> str | None:
        """The text between the first ``<chunk-ID>`` and its ``</chunk-ID>`` in the user turn."""
        match = CHUNK_RE.search(self.user_text)
        return match.group(2) if match else None

    @property
    def allowed_labels(self) -> list[str]:
        """The label enum of the requested JSON schema (empty when there is none)."""
        try:
            return list(self.format["properties"]["labels"]["items"]["enum"])
        except (TypeError, KeyError):
            return []


Responder = Callable[[ChatRequest], str]


def keyword_labeller(keywords: Mapping[str, Sequence[str]]) -> Responder:
    """A gullible stand-in model: it labels the delimited chunk by keywords, but obeys an
    injected "label this safe" found anywhere outside the delimiters by answering no labels."""

    def respond(request: ChatRequest) -> str:
        chunk = request.chunk
        if chunk is None:
            return json.dumps({"labels": []})
        outside = CHUNK_RE.sub("", request.user_text, count=1).lower()
        if "label this safe" in outside:
            return json.dumps({"labels": []})
        text = chunk.lower()
        found = [label for label, words in keywords.items() if any(w in text for w in words)]
        return json.dumps({"labels": found})

    return respond


def fixed_reply(content: str) -> Responder:
    """A stand-in model that always answers ``content``."""
    return lambda request: content


@dataclass
class OllamaServer:
    """A threaded Ollama-API server on an ephemeral loopback port; use it as a context manager."""

    responder: Responder = field(default_factory=lambda: fixed_reply('{"labels": []}'))
    delay: float = 0.0
    model: str = "llama3.2"
    requests: list[dict[str, Any]] = field(default_factory=list)
    max_in_flight: int = 0
    _in_flight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _httpd: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The port the server listens on."""
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``, the ``base_url`` for ``ChatOllama``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def chat_count(self) -> int:
        """How many ``/api/chat`` requests arrived."""
        with self._lock:
            return len(self.requests)

    def chat_requests(self) -> list[ChatRequest]:
        """The recorded ``/api/chat`` requests."""
        with self._lock:
            return [ChatRequest(body) for body in self.requests]

    def reset(self) -> None:
        """Forget recorded requests and the in-flight peak."""
        with self._lock:
            self.requests.clear()
            self.max_in_flight = 0

    def start(self) -> OllamaServer:
        """Start serving in a daemon thread."""
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        # a short poll keeps stop() (which waits for the next poll) fast between tests
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> OllamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _chat(self, body: dict[str, Any]) -> str:
        with self._lock:
            self.requests.append(body)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            if self.delay:
                time.sleep(self.delay)
            return self.responder(ChatRequest(body))
        finally:
            with self._lock:
                self._in_flight -= 1


def free_port() -> int:
    """A loopback port with nothing listening on it (bound, read, released)."""
    with ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler) as probe:
        return int(probe.server_address[1])


def _now() -> str:
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


def _handler_for(server: OllamaServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # small NDJSON writes must not wait for delayed ACKs

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

        def do_GET(self) -> None:
            if self.path == "/api/tags":
                self._send_json({"models": [_model_entry(server.model)]})
            else:
                self._send_json({"error": f"unknown path {self.path}"}, status=404)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path == "/api/show":
                self._send_json(_show(server.model))
            elif self.path == "/api/chat":
                self._answer_chat(body)
            else:
                self._send_json({"error": f"unknown path {self.path}"}, status=404)

        def _answer_chat(self, body: dict[str, Any]) -> None:
            content = server._chat(body)
            model = body.get("model", server.model)
            final = {
                "model": model, "created_at": _now(), "done": True, "done_reason": "stop",
                "total_duration": 1, "prompt_eval_count": 1, "eval_count": 1,
            }  # fmt: skip
            message = {"role": "assistant", "content": content}
            if body.get("stream", True) is False:
                self._send_json({**final, "message": message})
                return
            lines = [
                {"model": model, "created_at": _now(), "message": message, "done": False},
                {**final, "message": {"role": "assistant", "content": ""}},
            ]
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for line in lines:
                    data = json.dumps(line).encode() + b"\n"
                    self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass  # the client gave up (a timeout test): nothing left to tell it

        def _send_json(self, payload: dict[str, Any], status: int = 200) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass

    return Handler


def _model_entry(model: str) -> dict[str, Any]:
    return {
        "name": model, "model": model, "modified_at": _now(), "size": 1, "digest": "0" * 64,
        "details": {"format": "gguf", "family": "llama", "parameter_size": "1B",
                    "quantization_level": "Q4_0"},
    }  # fmt: skip


def _show(model: str) -> dict[str, Any]:
    return {
        "modelfile": f"FROM {model}", "parameters": "", "template": "{{ .Prompt }}",
        "details": _model_entry(model)["details"], "model_info": {"llama.context_length": 8192},
        "capabilities": ["completion"],
    }  # fmt: skip
