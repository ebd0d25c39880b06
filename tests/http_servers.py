"""Small local HTTP servers for the model endpoints (embeddings, rerank, chat), shared by
the tests. They listen on 127.0.0.1 only, on a free port, in a daemon thread; every
request is recorded (path, headers, JSON body) so a test can look at what was sent.

A server is driven by a *handler*: ``handler(request) -> Reply``. Helpers below build the
usual ones: an OpenAI-compatible or TEI embedding endpoint (deterministic bag-of-words
vectors, so cosine similarity follows shared words), a TEI rerank endpoint and an
OpenAI-compatible chat endpoint whose answers come from a Python function of the
messages. No mocks of Etki's own code: Etki talks to these servers over real sockets.

Waits inside handlers (to provoke timeouts) are bounded and cut short when the server
stops, so no test can hang on them.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_DELAY = 5.0
"""No handler waits longer than this (seconds), whatever a test asks."""


@dataclass
class Request:
    """One recorded request: ``path``, lower-cased ``headers`` and the parsed ``body``
    (None when it was not JSON)."""

    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Reply:
    """What the server answers: ``status``, JSON ``body`` (or raw ``raw`` bytes), extra
    ``headers`` and a ``delay`` in seconds before the status line is sent."""

    status: int = 200
    body: Any = None
    raw: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


Handler = Callable[[Request], Reply]


class LocalServer:
    """A threaded HTTP server on 127.0.0.1 (free port) answering POSTs with ``handler``.

    Use as a context manager; ``url`` is ``http://127.0.0.1:PORT``; ``requests`` lists
    what arrived, in order."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[Request] = []
        self._stop = threading.Event()
        outer = self

        class _H(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(data.decode("utf-8")) if data else None
                except (UnicodeDecodeError, json.JSONDecodeError):
                    body = None
                req = Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                outer.requests.append(req)
                reply = outer.handler(req)
                if reply.delay:
                    outer._stop.wait(min(reply.delay, MAX_DELAY))
                payload = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _H)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> LocalServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@contextmanager
def serve(handler: Handler) -> Iterator[LocalServer]:
    """``with serve(handler) as server:`` a running :class:`LocalServer`."""
    with LocalServer(handler) as server:
        yield server


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens (a port bound and released)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# --- embeddings ---------------------------------------------------------------------------

DIM = 64


def bow_vector(text: str, dim: int = DIM) -> list[float]:
    """A deterministic unit vector of ``text``: each lower-cased word of 3+ letters adds 1
    to the bucket sha1(word) mod ``dim``. Texts sharing words get a high cosine."""
    vec = [0.0] * dim
    for word in re.findall(r"[^\W\d_]{3,}", text.lower()):
        vec[int(hashlib.sha1(word.encode()).hexdigest(), 16) % dim] += 1.0
    norm = math.sqrt(sum(x * x for x in vec)) or 1.0
    return [x / norm for x in vec]


def openai_embeddings(reply: Callable[[Request], Reply | None] | None = None) -> Handler:
    """An OpenAI-compatible ``/v1/embeddings`` handler (``{model, input}`` ->
    ``{data: [{index, embedding}]}``). ``reply`` may override the answer per request."""

    def handle(req: Request) -> Reply:
        if reply is not None:
            special = reply(req)
            if special is not None:
                return special
        if req.path != "/v1/embeddings":
            return Reply(404, {"error": "not found"})
        inputs = req.body["input"]
        inputs = [inputs] if isinstance(inputs, str) else inputs
        return Reply(
            200,
            {
                "object": "list",
                "model": req.body.get("model"),
                "data": [
                    {"object": "embedding", "index": i, "embedding": bow_vector(t)}
                    for i, t in enumerate(inputs)
                ],
            },
        )

    return handle


def tei_embed() -> Handler:
    """A TEI ``/embed`` handler (``{inputs}`` -> list of vectors)."""

    def handle(req: Request) -> Reply:
        if req.path != "/embed":
            return Reply(404, {"error": "not found"})
        inputs = req.body["inputs"]
        inputs = [inputs] if isinstance(inputs, str) else inputs
        return Reply(200, [bow_vector(t) for t in inputs])

    return handle


# --- rerank -------------------------------------------------------------------------------


def tei_rerank(score: Callable[[str, str], float] | None = None) -> Handler:
    """A TEI ``/rerank`` handler (``{query, texts}`` -> ``[{index, score}]`` sorted by score
    descending, as TEI answers). ``score(query, text)`` defaults to bag-of-words cosine."""

    def default(query: str, text: str) -> float:
        return sum(a * b for a, b in zip(bow_vector(query), bow_vector(text), strict=True))

    fn = score or default

    def handle(req: Request) -> Reply:
        if req.path != "/rerank":
            return Reply(404, {"error": "not found"})
        q, texts = req.body["query"], req.body["texts"]
        scored = [{"index": i, "score": fn(q, t)} for i, t in enumerate(texts)]
        scored.sort(key=lambda r: (-r["score"], r["index"]))
        return Reply(200, scored)

    return handle


# --- chat ---------------------------------------------------------------------------------


def chat_completion(content: str | None, tool_calls: Sequence[dict] | None = None) -> dict:
    """An OpenAI chat-completions answer body with one choice."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = list(tool_calls)
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": "test",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }


def openai_chat(answer: Callable[[list[dict], int], Reply | str]) -> Handler:
    """An OpenAI-compatible ``/v1/chat/completions`` handler. ``answer(messages, n)`` gets
    the request's messages and the 0-based number of this chat request, and returns the
    assistant's text (wrapped in a completion) or a full :class:`Reply`."""
    counter = {"n": 0}
    lock = threading.Lock()

    def handle(req: Request) -> Reply:
        if req.path != "/v1/chat/completions":
            return Reply(404, {"error": "not found"})
        with lock:
            n = counter["n"]
            counter["n"] += 1
        out = answer(req.body["messages"], n)
        return out if isinstance(out, Reply) else Reply(200, chat_completion(out))

    return handle


def user_question(messages: list[dict]) -> str:
    """The question Etki put into the first user message (the value of its
    ``"question"`` JSON field), for chat handlers that play a gullible model."""
    for m in messages:
        if m.get("role") == "user":
            text = m.get("content") or ""
            start = text.find("{")
            if start >= 0:
                try:
                    return json.JSONDecoder().raw_decode(text[start:])[0].get("question", "")
                except (json.JSONDecodeError, AttributeError):
                    return text
            return text
    return ""
