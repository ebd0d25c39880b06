"""One JSON-over-HTTP POST with a hard deadline (one job: talk to model endpoints).

Used by the chat, embedding and rerank clients. Standard library only (``http.client``),
so the core needs no HTTP package.

* **Hard deadline**: ``timeout`` seconds cover the whole exchange (connect, send, status
  line, headers, body, and any 429 waits). Every blocking socket operation gets the time
  that is left as its socket timeout and the deadline is checked between body chunks
  (read with ``read1``, at most one socket read each), so a server that drips bytes, or
  accepts the connection and never answers, cannot hold the caller past the deadline by
  more than one socket read.
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

import http.client
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from etki.endpoints.errors import EndpointError
from etki.endpoints.retry import retry_after
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


def _remaining(deadline: float, what: str, url: str) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise EndpointError("timeout", f"{url} timed out ({what})")
    return left


def _once(
    url: str, data: bytes, headers: Mapping[str, str], deadline: float, max_body_bytes: int
) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointError("connect", f"not an http(s) URL: {url!r}")
    conn_cls = (
        http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    )
    conn = conn_cls(parts.hostname, parts.port, timeout=_remaining(deadline, "connect", url))
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    try:
        try:
            conn.connect()
            sock = conn.sock  # kept: http.client drops conn.sock once a response is read
            sock.settimeout(_remaining(deadline, "send", url))
            conn.request("POST", path, body=data, headers=dict(headers))
            sock.settimeout(_remaining(deadline, "response", url))
            resp = conn.getresponse()
            chunks: list[bytes] = []
            size = 0
            while True:
                sock.settimeout(_remaining(deadline, "body", url))
                chunk = resp.read1(_CHUNK)
                if not chunk:
                    break
                size += len(chunk)
                if size > max_body_bytes:
                    raise EndpointError(
                        "body", f"{url} answered with a body over {max_body_bytes} bytes"
                    )
                chunks.append(chunk)
        except TimeoutError as exc:
            raise EndpointError("timeout", f"{url} timed out: {exc or 'no answer'}") from exc
        except (OSError, http.client.HTTPException) as exc:
            reason = f"{type(exc).__name__}: {exc}"
            raise EndpointError("connect", f"cannot reach {url}: {reason}") from exc
        hdrs = {fold(k): v for k, v in resp.getheaders()}  # header names: ASCII, any case
        return resp.status, hdrs, b"".join(chunks)
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
) -> Response:
    """POST ``payload`` as JSON (UTF-8) to ``url`` and return the parsed JSON answer.

    ``timeout``: hard deadline in seconds for the whole call, 429 waits included.
    ``max_retry_wait``: the longest ``Retry-After`` (seconds) a 429 is waited out.
    ``max_body_bytes``: the largest body read. ``sleep`` is how a 429 is waited out.
    See the module docstring. Raises :class:`EndpointError`.
    """
    deadline = time.monotonic() + timeout
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    hdrs = {"Content-Type": "application/json", "Accept": "application/json", **(headers or {})}
    retries = 0
    while True:
        status, resp_headers, body = _once(url, data, hdrs, deadline, max_body_bytes)
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
