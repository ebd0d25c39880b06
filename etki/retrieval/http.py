"""One JSON-over-HTTP call with a hard deadline (one job: talk to model endpoints).

Used by the embedding, rerank and chat clients. Standard library only (``http.client``),
so the core needs no HTTP package.

* **Hard deadline**: ``timeout`` seconds cover the whole exchange (connect, send, status
  line, headers, body, and any 429 waits). Every blocking socket operation gets the time
  that is left as its socket timeout and the deadline is checked between body chunks
  (read with ``read1``, at most one socket read each), so a server that drips bytes
  cannot hold the caller past the deadline by more than one socket read.
* **429**: a ``429 Too Many Requests`` is retried after its ``Retry-After`` (seconds, or
  an HTTP date; missing = 1 s), at most :data:`MAX_429_RETRIES` times, and only while the
  wait is at most ``max_retry_wait`` seconds and fits before the deadline; otherwise it is
  an :class:`EndpointError` like any other status.
* Every failure (refused connection, DNS, TLS, timeout, non-2xx status, body that is not
  JSON, body over :data:`MAX_BODY_BYTES`) raises :class:`EndpointError` with ``kind`` and a
  one-line message; callers fall back on it and record the message.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from etki.errors import EtkiError
from etki.text import fold

__all__ = ["MAX_429_RETRIES", "MAX_BODY_BYTES", "EndpointError", "Response", "join_url",
           "post_json"]

MAX_429_RETRIES = 3
"""A 429 is retried at most this many times per call."""

MAX_BODY_BYTES = 32 * 1024 * 1024
"""A response body larger than this (32 MiB) is an error, not a memory problem."""

_CHUNK = 65536


class EndpointError(EtkiError):
    """A model endpoint did not give a usable answer. ``kind`` is one of ``connect``,
    ``timeout``, ``status``, ``body``; ``status`` is the HTTP status when there was one."""

    def __init__(self, kind: str, message: str, status: int | None = None) -> None:
        self.kind, self.status = kind, status
        super().__init__(message)


@dataclass(frozen=True)
class Response:
    """A 2xx answer: ``status``, lower-cased ``headers`` and the parsed JSON ``body``."""

    status: int
    headers: Mapping[str, str]
    body: Any


def join_url(base: str, path: str) -> str:
    """``base`` + ``path`` with exactly one slash between them."""
    return base.rstrip("/") + "/" + path.lstrip("/")


def retry_after_seconds(value: str | None, now: float | None = None) -> float:
    """Seconds to wait for a ``Retry-After`` header value: a non-negative number of
    seconds, or an HTTP date (seconds until then, at least 0). Missing or unreadable: 1.0.
    ``now`` is the current POSIX time (default ``time.time()``)."""
    if value is None or not value.strip():
        return 1.0
    text = value.strip()
    try:
        seconds = float(text)
        return seconds if math.isfinite(seconds) and seconds >= 0 else 1.0
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return 1.0
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def _remaining(deadline: float, what: str) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise EndpointError("timeout", f"timed out ({what})")
    return left


def _once(url: str, data: bytes, headers: Mapping[str, str], deadline: float,
          ) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointError("connect", f"not an http(s) URL: {url!r}")
    conn_cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = conn_cls(parts.hostname, parts.port, timeout=_remaining(deadline, "connect"))
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    try:
        try:
            conn.connect()
            sock = conn.sock  # kept: http.client drops conn.sock once a response is read
            sock.settimeout(_remaining(deadline, "send"))
            conn.request("POST", path, body=data, headers=dict(headers))
            sock.settimeout(_remaining(deadline, "response"))
            resp = conn.getresponse()
            chunks: list[bytes] = []
            size = 0
            while True:
                sock.settimeout(_remaining(deadline, "body"))
                chunk = resp.read1(_CHUNK)
                if not chunk:
                    break
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    raise EndpointError("body", f"response body over {MAX_BODY_BYTES} bytes")
                chunks.append(chunk)
        except TimeoutError as exc:
            raise EndpointError("timeout", f"timed out: {exc or 'no answer'}") from exc
        except (OSError, http.client.HTTPException) as exc:
            raise EndpointError("connect", f"{type(exc).__name__}: {exc}") from exc
        hdrs = {fold(k): v for k, v in resp.getheaders()}  # header names: ASCII, any case
        return resp.status, hdrs, b"".join(chunks)
    finally:
        conn.close()


def post_json(url: str, payload: Any, *, timeout: float, headers: Mapping[str, str] | None = None,
              max_retry_wait: float = 10.0,
              sleep: Callable[[float], None] = time.sleep) -> Response:
    """POST ``payload`` as JSON to ``url`` and return the parsed JSON answer.

    ``timeout``: hard deadline in seconds for the whole call (see the module docstring).
    ``max_retry_wait``: the longest ``Retry-After`` (seconds) a 429 is waited out.
    Raises :class:`EndpointError`; never anything else for network or server faults.
    """
    deadline = time.monotonic() + timeout
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    hdrs = {"Content-Type": "application/json", "Accept": "application/json",
            **(headers or {})}
    retries = 0
    while True:
        status, resp_headers, body = _once(url, data, hdrs, deadline)
        if status == 429 and retries < MAX_429_RETRIES:
            wait = retry_after_seconds(resp_headers.get("retry-after"))
            left = deadline - time.monotonic()
            if wait <= max_retry_wait and wait < left:
                retries += 1
                sleep(wait)
                continue
        if not 200 <= status < 300:
            snippet = body[:200].decode("utf-8", "replace").replace("\n", " ")
            raise EndpointError("status", f"HTTP {status} from {url}: {snippet}", status)
        try:
            parsed = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise EndpointError("body", f"answer is not JSON: {exc}", status) from exc
        return Response(status, resp_headers, parsed)
