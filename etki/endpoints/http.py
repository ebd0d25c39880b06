"""One JSON-over-HTTP POST with a hard deadline (one job: talk to model endpoints).

Used by the chat, embedding and rerank clients. Standard library only (``http.client``,
``urllib.request``'s proxy rules), so the core needs no HTTP package.

* **Hard deadline**: ``timeout`` seconds cover the whole call (name resolution,
  connect, proxy tunnel, TLS handshake, send, status line, headers, body, and any 429
  waits), whatever the server sends. Each request runs in a daemon thread of its own
  (:func:`etki.abandon.run_abandonable`) that the caller stops waiting for when the
  deadline passes: a server that drips one byte at a time, in its headers or its body,
  or that accepts the connection and never answers, holds the caller no longer than
  the deadline (each byte used to restart a socket timeout). The abandoned request's
  socket is shut down so its thread ends too; in that thread every socket operation
  also gets only the time left and the deadline is checked between body chunks. The
  error names the URL, the deadline and the setting it comes from (``setting``, e.g.
  ``ETKI_LLM_TIMEOUT``).
* **Route**: proxies (``http://`` or ``https://``) from ``HTTPS_PROXY``/``HTTP_PROXY``
  except for the hosts and address ranges of ``NO_PROXY``, and certificates checked
  against ``ETKI_CA_BUNDLE`` (else ``REQUESTS_CA_BUNDLE``, ``SSL_CERT_FILE``, the
  system's CAs): :mod:`etki.endpoints.route`.
* **429**: a ``429 Too Many Requests`` is retried after its ``Retry-After``
  (:func:`etki.endpoints.retry.retry_after`: seconds or an HTTP-date; missing or
  unreadable = 1 s), at most :data:`MAX_429_RETRIES` times, and only while the wait is
  at most ``max_retry_wait`` seconds and ends before the deadline. A longer wait is not
  shortened: the server said when to come back, asking sooner would only be refused
  again. Then the 429 is an :class:`EndpointError` like any other status.
* **Body**: at most ``max_body_bytes`` (default :data:`MAX_BODY_BYTES`) are read; a
  larger body is an error, not a memory problem.
* Every failure (refused connection, DNS, TLS, timeout, non-2xx status, body that is not
  JSON or too large) raises :class:`EndpointError` with its ``kind`` and a one-line
  message; never anything else for network or server faults.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from etki.abandon import run_abandonable
from etki.endpoints.errors import EndpointError
from etki.endpoints.retry import retry_after
from etki.endpoints.route import Route, route
from etki.text import fold

__all__ = [
    "MAX_429_RETRIES",
    "MAX_BODY_BYTES",
    "MAX_RETRY_WAIT",
    "Response",
    "join_url",
    "post_json",
]

MAX_429_RETRIES = 3
"""A 429 is retried at most this many times per call (four requests in all)."""

MAX_RETRY_WAIT = 10.0
"""The longest ``Retry-After`` (seconds) a 429 is waited out by default: three waits add
up to at most 30 s, the chat clients' deadline."""

MAX_BODY_BYTES = 32 * 1024 * 1024
"""A response body larger than this (32 MiB) is an error. The largest honest answer is a
batch of 32 embeddings of a few thousand floats each, well under 32 MiB as JSON."""

_CHUNK = 65536


@dataclass(frozen=True)
class Response:
    """A 2xx answer: ``status``, lower-cased ``headers`` and the parsed JSON ``body``."""

    status: int
    headers: Mapping[str, str]
    body: Any


def join_url(base: str, path: str) -> str:
    """``base`` + ``path`` with exactly one slash between them."""
    return base.rstrip("/") + "/" + path.lstrip("/")


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("deadline passed")
    return left


def _exchange(
    way: Route,
    conn: http.client.HTTPConnection,
    data: bytes,
    headers: Mapping[str, str],
    deadline: float,
    max_body_bytes: int,
    held: list[socket.socket],
) -> tuple[int, dict[str, str], bytes]:
    """One request and its whole answer over ``conn`` (run in the call's own thread by
    :func:`_once`; the connected socket is put into ``held``). Each socket operation
    may take what is left before ``deadline``; the deadline is checked between body
    chunks too, so the thread also ends on its own soon after the deadline of a call
    that was given up."""
    url = way.url
    try:
        conn.connect()
        sock = conn.sock  # kept: http.client drops conn.sock once a response is read
        held.append(getattr(sock, "raw", sock))  # a TLS-in-TLS tunnel's TCP socket
        sock.settimeout(_remaining(deadline))
        conn.request("POST", way.target, body=data, headers=way.headers(headers))
        sock.settimeout(_remaining(deadline))
        resp = conn.getresponse()
        chunks: list[bytes] = []
        size = 0
        while True:
            sock.settimeout(_remaining(deadline))
            chunk = resp.read1(_CHUNK)
            if not chunk:
                break
            size += len(chunk)
            if size > max_body_bytes:
                raise EndpointError(
                    "body", f"{url} answered with a body over {max_body_bytes} bytes"
                )
            chunks.append(chunk)
    except TimeoutError:
        raise  # _once words it, with the deadline
    except (OSError, http.client.HTTPException) as exc:
        reason = f"{type(exc).__name__}: {exc}"
        raise EndpointError("connect", f"cannot reach {url}{way.via}: {reason}") from exc
    hdrs = {fold(k): v for k, v in resp.getheaders()}  # header names: ASCII, any case
    return resp.status, hdrs, b"".join(chunks)


def _shut(conn: http.client.HTTPConnection, held: list[socket.socket]) -> None:
    """Shut down the call's socket from another thread (``conn.sock`` while it connects,
    then the one ``held``): a read blocked on it returns at once, so the thread of an
    abandoned call ends instead of waiting on the server."""
    for sock in (getattr(conn.sock, "raw", conn.sock), *held):
        if sock is not None:
            with contextlib.suppress(OSError):  # already closed, or not yet connected
                socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the TCP socket, TLS or not


def _once(
    url: str,
    data: bytes,
    headers: Mapping[str, str],
    deadline: float,
    max_body_bytes: int,
    timeout: float,
    setting: str | None,
) -> tuple[int, dict[str, str], bytes]:
    way = route(url)
    left = deadline - time.monotonic()
    conn = way.connection(max(left, 0.001))
    held: list[socket.socket] = []
    try:
        if left <= 0:
            raise TimeoutError("deadline passed")
        return run_abandonable(
            lambda: _exchange(way, conn, data, headers, deadline, max_body_bytes, held),
            name=f"etki endpoint call {url}",
            timeout=left,
            on_abandon=lambda: _shut(conn, held),
        )
    except TimeoutError as exc:  # Abandoned too: the deadline passed while waiting
        named = f" ({setting})" if setting else ""
        raise EndpointError(
            "timeout",
            f"{url} timed out: no complete answer within the {timeout:g} s deadline{named}"
            f"{way.via}",
        ) from exc
    finally:
        conn.close()


def post_json(
    url: str,
    payload: Any,
    *,
    timeout: float,
    headers: Mapping[str, str] | None = None,
    max_retry_wait: float = MAX_RETRY_WAIT,
    max_body_bytes: int = MAX_BODY_BYTES,
    sleep: Callable[[float], None] = time.sleep,
    setting: str | None = None,
) -> Response:
    """POST ``payload`` as JSON (UTF-8) to ``url`` and return the parsed JSON answer.

    ``timeout``: hard deadline in seconds for the whole call, 429 waits included.
    ``max_retry_wait``: the longest ``Retry-After`` (seconds) a 429 is waited out.
    ``max_body_bytes``: the largest body read. ``sleep`` is how a 429 is waited out.
    ``setting``: the variable ``timeout`` comes from, named in a timeout's message.
    See the module docstring. Raises :class:`EndpointError`.
    """
    deadline = time.monotonic() + timeout
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    hdrs = {"Content-Type": "application/json", "Accept": "application/json", **(headers or {})}
    retries = 0
    while True:
        status, resp_headers, body = _once(
            url, data, hdrs, deadline, max_body_bytes, timeout, setting
        )
        if status == 429 and retries < MAX_429_RETRIES:
            wait = retry_after(resp_headers.get("retry-after"))
            left = deadline - time.monotonic()
            if wait <= max_retry_wait and wait < left:
                retries += 1
                sleep(wait)
                continue
        if not 200 <= status < 300:
            snippet = body[:200].decode("utf-8", "replace").replace("\n", " ")
            after = f" after {retries} retries" if status == 429 and retries else ""
            raise EndpointError("status", f"HTTP {status} from {url}{after}: {snippet}", status)
        try:
            parsed = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise EndpointError(
                "body", f"{url} answered with a body that is not JSON: {exc}", status
            ) from exc
        return Response(status, resp_headers, parsed)
