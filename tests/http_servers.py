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

Also here: any of them over https with a test CA of its own (:func:`tls_pair`), a model
endpoint that drips its answer a byte at a time and never finishes (:class:`DripServer`)
and an HTTP forward proxy (:class:`ForwardProxy`, ``CONNECT`` tunnels included).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import select
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

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

    Use as a context manager; ``url`` is ``http://127.0.0.1:PORT`` (``https://`` with
    ``tls``: a server-side context holding the server's certificate, see
    :func:`tls_pair`); ``requests`` lists what arrived, in order."""

    def __init__(self, handler: Handler, tls: ssl.SSLContext | None = None) -> None:
        self.handler = handler
        self.scheme = "https" if tls is not None else "http"
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
        if tls is not None:  # the handshake happens in the request's thread, on first read
            self._server.socket = tls.wrap_socket(
                self._server.socket, server_side=True, do_handshake_on_connect=False
            )
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"{self.scheme}://{host}:{port}"

    def __enter__(self) -> LocalServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@contextmanager
def serve(handler: Handler, tls: ssl.SSLContext | None = None) -> Iterator[LocalServer]:
    """``with serve(handler) as server:`` a running :class:`LocalServer` (https with
    ``tls``)."""
    with LocalServer(handler, tls) as server:
        yield server


def tls_pair(folder: Any) -> tuple[ssl.SSLContext, Any]:
    """A test CA of its own (``trustme``) and a certificate it signed for 127.0.0.1 and
    localhost: ``(server context, path of the CA's PEM file in folder)``. No system CA
    trusts it, so a client reaches the server only when given that file."""
    import trustme

    ca = trustme.CA()
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(server)
    pem = folder / "test-ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    return server, pem


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


# --- a model endpoint that never finishes its answer ----------------------------------------


class DripServer:
    """A model endpoint on 127.0.0.1 that answers every request one byte at a time, a byte
    every ``interval`` seconds, and never finishes (issue 30 item 3: each byte used to
    restart the client's 30 s socket timeout, so one call held ``etki preanalyse`` for
    minutes).

    ``where``: ``"headers"`` sends ``HTTP/1.1 200 OK`` and then one header line that never
    ends; ``"body"`` sends complete headers announcing a large body and then the body's
    bytes. A connection is closed by the server only when the server stops, or after
    ``limit`` seconds (so a client that does not give up cannot hang a test forever: it
    then fails on what it waited for instead).

    ``accepted``: connections taken; ``open``: connections whose client has not hung up
    yet. :meth:`wait_for` waits (bounded) for a state of them."""

    def __init__(self, interval: float = 0.5, where: str = "headers", limit: float = 120.0):
        if where not in ("headers", "body"):
            raise ValueError(f"where must be 'headers' or 'body', not {where!r}")
        self.interval, self.where, self.limit = interval, where, limit
        self.accepted = 0
        self.open = 0
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def wait_for(self, condition: Callable[[DripServer], bool], timeout: float = 60.0) -> bool:
        """Wait until ``condition(self)`` holds (True), at most ``timeout`` seconds
        (then False): a bound against hangs, not a measure."""
        with self._changed:
            return self._changed.wait_for(lambda: condition(self), timeout)

    def _count(self, accepted: int, open_: int) -> None:
        with self._changed:
            self.accepted += accepted
            self.open += open_
            self._changed.notify_all()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._count(1, 1)
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _hung_up(self, conn: socket.socket) -> bool:
        readable, _, _ = select.select([conn], [], [], 0)
        if not readable:
            return False
        try:
            return conn.recv(65536) == b""  # what is left of the request is read away
        except OSError:
            return True

    def _drip(self, conn: socket.socket) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        if self.where == "headers":
            start, byte = head + b"X-Drip: ", b"."
        else:
            start, byte = head + b"Content-Length: 1000000\r\n\r\n[", b" "
        ends = time.monotonic() + self.limit
        try:
            with conn:
                conn.sendall(start)
                while not self._stop.wait(self.interval) and time.monotonic() < ends:
                    if self._hung_up(conn):
                        return
                    conn.sendall(byte)
        except OSError:
            pass  # the client hung up mid-send
        finally:
            self._count(0, -1)

    def __enter__(self) -> DripServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._listener.close()


# --- a forward proxy ------------------------------------------------------------------------


@dataclass
class ProxyRequest:
    """What a :class:`ForwardProxy` was asked: ``method`` (``CONNECT`` for a tunnel),
    ``target`` (``host:port`` of a tunnel, the absolute URL otherwise) and the
    lower-cased ``headers`` sent to the proxy."""

    method: str
    target: str
    headers: dict[str, str]


class ForwardProxy:
    """An HTTP forward proxy on 127.0.0.1 (``url``): ``CONNECT host:port`` opens a tunnel
    (what a client does for an https endpoint), and a request for an absolute
    ``http://`` URL is passed on to that host (what it does for an http endpoint). Every
    request is recorded in ``requests``, in order. Upstream hosts must be on 127.0.0.1:
    the proxy never leaves the machine. With ``tls`` (a server context, :func:`tls_pair`)
    the proxy is spoken to over TLS and ``url`` is ``https://``."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.requests: list[ProxyRequest] = []
        self._stop = threading.Event()
        self._tls = tls
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        scheme = "https" if tls is not None else "http"
        self.url = f"{scheme}://127.0.0.1:{self._listener.getsockname()[1]}"
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _pipe(self, a: socket.socket, b: socket.socket) -> None:
        """Copy bytes both ways until either side closes (or the proxy stops)."""
        pair = {a: b, b: a}
        while not self._stop.is_set():
            # TLS may hold decrypted bytes that select() does not see
            readable = [s for s in pair if isinstance(s, ssl.SSLSocket) and s.pending()]
            readable = readable or select.select(list(pair), [], [], 0.05)[0]
            for src in readable:
                data = src.recv(65536)
                if not data:
                    return
                pair[src].sendall(data)

    def _serve(self, conn: socket.socket) -> None:
        if self._tls is not None:
            conn.settimeout(10)
            try:
                conn = self._tls.wrap_socket(conn, server_side=True)
            except (OSError, ssl.SSLError):
                conn.close()
                return
        with conn:
            conn.settimeout(10)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, rest = data.partition(b"\r\n\r\n")
            line, *lines = head.decode("latin-1").split("\r\n")
            method, target, _version = line.split(" ", 2)
            headers = {}
            for h in lines:
                name, _, value = h.partition(":")
                headers[name.strip().lower()] = value.strip()
            self.requests.append(ProxyRequest(method, target, headers))
            if method == "CONNECT":
                host, _, port = target.rpartition(":")
            else:
                parts = urlsplit(target)
                host, port = parts.hostname or "", str(parts.port or 80)
            if host not in ("127.0.0.1", "localhost"):
                conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                return
            with socket.create_connection((host, int(port)), timeout=10) as up:
                if method == "CONNECT":
                    conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                else:
                    parts = urlsplit(target)
                    origin = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
                    kept = [h for h in lines if not h.lower().startswith("proxy-")]
                    up.sendall(
                        f"{method} {origin} HTTP/1.1\r\n".encode("latin-1")
                        + "\r\n".join(kept).encode("latin-1")
                        + b"\r\n\r\n"
                        + rest
                    )
                conn.settimeout(None)
                up.settimeout(None)
                with suppress(OSError):
                    self._pipe(conn, up)

    def __enter__(self) -> ForwardProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._listener.close()
