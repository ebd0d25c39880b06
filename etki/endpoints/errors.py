"""The one error of the endpoint layer (one job: say why a model endpoint gave nothing)."""

from __future__ import annotations

from etki.errors import EtkiError

__all__ = ["ENDPOINT_ERROR_KINDS", "EndpointError"]

ENDPOINT_ERROR_KINDS = ("connect", "timeout", "status", "body", "local")
"""What went wrong: the endpoint could not be reached (``connect``: refused, DNS, TLS,
not an http(s) URL), did not answer within the deadline (``timeout``), answered with a
non-2xx status (``status``), answered with something unusable (``body``: not JSON, too
large, not the expected shape), or a bundled local model failed (``local``)."""


class EndpointError(EtkiError):
    """A model endpoint (chat, embeddings, rerank) did not give a usable answer.

    ``kind`` is one of :data:`ENDPOINT_ERROR_KINDS`; ``status`` is the HTTP status when
    there was one, else None. The message is one line a reviewer can act on (it names the
    URL where one was called). Callers fall back (lexical scoring, plain BFS packing, the
    lexical gate, ``find_k_nodes``) and record the message. CLI exit code 1: an endpoint
    that is down is not bad input.
    """

    exit_code = 1

    def __init__(self, kind: str, message: str, status: int | None = None) -> None:
        if kind not in ENDPOINT_ERROR_KINDS:
            raise ValueError(f"unknown endpoint error kind {kind!r}")
        self.kind, self.status = kind, status
        super().__init__(message)
