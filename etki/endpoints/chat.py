"""The OpenAI-compatible chat client (one job: send messages, get the assistant's message).

Configured by ``ETKI_LLM_BASE_URL``, ``ETKI_LLM_MODEL`` and optionally
``ETKI_LLM_API_KEY`` (sent as ``Authorization: Bearer``). Used by the knowledge gate
(:mod:`etki.knowledge.gate`) and by ``nl_query`` (:mod:`etki.retrieval.nlquery`); both
validate whatever comes back, neither trusts it.

The request is ``POST`` :func:`chat_url` with ``{"model", "messages", "temperature": 0}``
(and ``max_tokens`` when the caller bounds the answer). Temperature 0 asks for the most
likely answer. The call is :func:`etki.endpoints.http.post_json`: a hard deadline of
``timeout`` seconds for the whole call whatever the server sends (default
:data:`TIMEOUT`; ``ETKI_LLM_TIMEOUT`` through :func:`client_from_settings`; 429 waits
included), at most three 429
retries each waiting at most ``max_retry_wait`` seconds (default
:data:`~etki.endpoints.http.MAX_RETRY_WAIT`); every fault raises
:class:`~etki.endpoints.errors.EndpointError`.

The answer is ``choices[0]``: its ``message.content`` and ``message.tool_calls``, or, from
a server that answers in the legacy completions shape, its ``text``. A message whose
``content`` is null is an empty answer (the callers ask again or fall back); a first
choice with neither a message object nor a text is a ``body`` error.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from etki.config import DEFAULT_LLM_TIMEOUT
from etki.endpoints.errors import EndpointError
from etki.endpoints.http import MAX_RETRY_WAIT, post_json

__all__ = ["TIMEOUT", "ChatClient", "ChatReply", "chat_url"]

TIMEOUT = DEFAULT_LLM_TIMEOUT
"""Hard deadline of one chat call, seconds (429 waits included): the default of
``ETKI_LLM_TIMEOUT`` (:data:`etki.config.DEFAULT_LLM_TIMEOUT`)."""


def chat_url(base_url: str) -> str:
    """The chat-completions URL for a configured base URL. The rule, on the URL's path
    (trailing slashes ignored; scheme, host, port and query kept as given):

    * a path ending in ``/chat/completions`` is the endpoint itself and is used as is
      (``http://h:8000/v1/chat/completions``);
    * a path ending in ``/v1`` gets ``/chat/completions`` (``http://h:11434/v1``);
    * any other path gets ``/v1/chat/completions`` (``http://h:8080``).

    Sources: the OpenAI API reference names the endpoint ``POST /v1/chat/completions``
    and its SDKs take a base URL ending in ``/v1`` (``https://api.openai.com/v1``) to
    which they add ``/chat/completions``. vLLM's OpenAI-compatible server documents the
    base ``http://localhost:8000/v1``, Ollama's OpenAI compatibility page
    ``http://localhost:11434/v1/`` and llama.cpp's ``llama-server`` README the route
    ``http://localhost:8080/v1/chat/completions``: operators copy either the base with
    ``/v1``, the server root, or the full endpoint, and all three must reach the same
    route. A server whose route is elsewhere (an API version other than ``v1``) is
    configured with its full ``.../chat/completions`` URL.

    >>> chat_url("http://h:8080/v1/")
    'http://h:8080/v1/chat/completions'
    """
    parts = urlsplit(base_url.strip())
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions" if path.endswith("/v1") else "/v1/chat/completions"
    return urlunsplit(parts._replace(path=path))


@dataclass(frozen=True)
class ChatReply:
    """The assistant's ``content`` (may be empty) and its raw ``tool_calls`` list (empty
    when the model answered in text)."""

    content: str
    tool_calls: tuple[Any, ...] = ()


class ChatClient:
    """Chat completions at ``base_url`` (see :func:`chat_url`) with ``model``.

    ``timeout``: hard deadline per call, seconds. ``max_retry_wait``: the longest
    ``Retry-After`` a 429 is waited out, seconds. ``sleep``: how that wait is spent
    (``time.sleep``)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = TIMEOUT,
        max_retry_wait: float = MAX_RETRY_WAIT,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url
        self.url = chat_url(base_url)
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.max_retry_wait = max_retry_wait
        self.sleep = sleep

    def complete(
        self, messages: Sequence[dict[str, str]], *, max_tokens: int | None = None
    ) -> ChatReply:
        """Send ``messages`` (temperature 0; at most ``max_tokens`` answer tokens when
        given) and return the first choice's message (see the module docstring).
        Raises :class:`EndpointError` for every fault and for an answer without a
        message or text."""
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": list(messages),
            "temperature": 0,
        }
        if max_tokens is not None:
            payload["max_tokens"] = max_tokens
        body = post_json(
            self.url,
            payload,
            timeout=self.timeout,
            headers=headers,
            max_retry_wait=self.max_retry_wait,
            sleep=self.sleep,
            setting="ETKI_LLM_TIMEOUT",
        ).body
        try:
            choice = body["choices"][0]
        except (KeyError, IndexError, TypeError) as exc:
            raise EndpointError("body", f"{self.url} answered without choices[0]") from exc
        message = choice.get("message") if isinstance(choice, dict) else None
        if isinstance(message, dict):
            content = message.get("content")
            calls = message.get("tool_calls") or ()
            return ChatReply(
                content if isinstance(content, str) else "",
                tuple(calls) if isinstance(calls, list) else (),
            )
        text = choice.get("text") if isinstance(choice, dict) else None
        if isinstance(text, str):
            return ChatReply(text)
        raise EndpointError("body", f"{self.url} answered without a chat message")
