"""OpenAI-compatible chat client (one job: send messages, get the assistant's message).

Configured by ``ETKI_LLM_BASE_URL``, ``ETKI_LLM_MODEL`` and optionally
``ETKI_LLM_API_KEY`` (sent as ``Authorization: Bearer``). ``POST {base}/chat/completions``
when the base ends in ``/v1``, else ``{base}/v1/chat/completions``; the body is
``{"model", "messages", "temperature": 0}``. Temperature 0 asks for the most likely
answer; whatever comes back is validated by :mod:`etki.retrieval.nlquery`, never trusted.

HTTP 429 is retried after ``Retry-After`` within the bounds of
:func:`etki.retrieval.http.post_json` (at most 3 retries, each wait at most
:data:`MAX_RETRY_WAIT` seconds and inside the deadline). Other faults raise
:class:`~etki.retrieval.http.EndpointError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from etki.retrieval.http import EndpointError, join_url, post_json

__all__ = ["MAX_RETRY_WAIT", "TIMEOUT", "ChatClient", "ChatReply", "chat_url"]

TIMEOUT = 30.0
"""Hard deadline of one chat call, seconds (429 waits included)."""

MAX_RETRY_WAIT = 10.0
"""The longest ``Retry-After`` a 429 is waited out, seconds."""


def chat_url(base_url: str) -> str:
    """The chat-completions URL for a configured base URL (see the module docstring)."""
    path = urlsplit(base_url).path.rstrip("/")
    if path.endswith("/chat/completions"):
        return base_url.rstrip("/")
    if path.endswith("/v1"):
        return join_url(base_url, "chat/completions")
    return join_url(base_url, "v1/chat/completions")


@dataclass(frozen=True)
class ChatReply:
    """The assistant's ``content`` (may be empty) and its raw ``tool_calls`` list (empty
    when the model answered in text)."""

    content: str
    tool_calls: tuple[Any, ...] = ()


class ChatClient:
    """Chat completions at ``base_url`` with ``model``."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, *,
                 timeout: float = TIMEOUT, max_retry_wait: float = MAX_RETRY_WAIT,
                 sleep: Callable[[float], None] | None = None) -> None:
        self.url = chat_url(base_url)
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.max_retry_wait = max_retry_wait
        self._sleep = sleep

    def complete(self, messages: Sequence[dict[str, str]]) -> ChatReply:
        """Send ``messages`` and return the first choice's message. Raises
        :class:`EndpointError` for faults and for an answer without a message."""
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        kwargs: dict[str, Any] = {"timeout": self.timeout, "headers": headers,
                                  "max_retry_wait": self.max_retry_wait}
        if self._sleep is not None:
            kwargs["sleep"] = self._sleep
        body = post_json(self.url, {"model": self.model, "messages": list(messages),
                                    "temperature": 0}, **kwargs).body
        try:
            message = body["choices"][0]["message"]
        except (KeyError, IndexError, TypeError) as exc:
            raise EndpointError("body", "chat answer has no choices[0].message") from exc
        if not isinstance(message, dict):
            raise EndpointError("body", "chat answer's message is not an object")
        content = message.get("content")
        calls = message.get("tool_calls") or ()
        return ChatReply(content if isinstance(content, str) else "",
                         tuple(calls) if isinstance(calls, list) else ())
