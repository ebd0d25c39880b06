"""The endpoint layer: every HTTP call Etki makes to a model endpoint goes through here.

* :mod:`etki.endpoints.http`: one JSON POST with one total deadline whatever the server
  sends, 429 retries and a body cap (:func:`post_json`);
* :mod:`etki.endpoints.route`: the proxy (``HTTPS_PROXY``/``HTTP_PROXY``/``NO_PROXY``) and
  the CA bundle (``ETKI_CA_BUNDLE``) of a call;
* :mod:`etki.endpoints.tlstunnel`: an https endpoint through a proxy spoken to over TLS
  (TLS in TLS);
* :mod:`etki.endpoints.chat`: the one OpenAI-compatible chat client (:class:`ChatClient`,
  :func:`chat_url`);
* :mod:`etki.endpoints.retry`: reading ``Retry-After`` (:func:`retry_after`);
* :mod:`etki.endpoints.jsonx`: the bounded extractor of JSON objects in a model's prose
  (:func:`json_objects`);
* :mod:`etki.endpoints.errors`: :class:`EndpointError`, the one error of them all.

The embedding (:mod:`etki.retrieval.embeddings`) and rerank
(:mod:`etki.retrieval.rerank`) clients build on :func:`post_json`; the knowledge gate and
``nl_query`` on :class:`ChatClient`. Standard library only.
"""

from __future__ import annotations

from etki.endpoints.chat import TIMEOUT, ChatClient, ChatReply, chat_url
from etki.endpoints.errors import ENDPOINT_ERROR_KINDS, EndpointError
from etki.endpoints.http import (
    MAX_429_RETRIES,
    MAX_BODY_BYTES,
    MAX_RETRY_WAIT,
    Response,
    join_url,
    post_json,
)
from etki.endpoints.jsonx import json_objects
from etki.endpoints.retry import DEFAULT_RETRY_AFTER, retry_after

__all__ = [
    "DEFAULT_RETRY_AFTER",
    "ENDPOINT_ERROR_KINDS",
    "MAX_429_RETRIES",
    "MAX_BODY_BYTES",
    "MAX_RETRY_WAIT",
    "TIMEOUT",
    "ChatClient",
    "ChatReply",
    "EndpointError",
    "Response",
    "chat_url",
    "join_url",
    "json_objects",
    "post_json",
    "retry_after",
]
