"""A small client for an OpenAI-compatible chat endpoint (``ETKI_LLM_BASE_URL``,
``ETKI_LLM_MODEL``, ``ETKI_LLM_API_KEY``), used by the validation gate. Standard library
only (``urllib.request``), no new dependency.

* URL: ``{base}/v1/chat/completions``, or ``{base}/chat/completions`` when the base
  already ends with ``/v1`` (both spellings of the base occur in OpenAI-compatible
  servers' documentation: vLLM, llama.cpp, Ollama).
* HTTP 429: wait what ``Retry-After`` says (seconds or an HTTP date, RFC 9110 §10.2.3),
  at most :data:`MAX_WAIT` seconds per wait, without the header 1, 2, 4 ... seconds; at
  most :data:`MAX_ATTEMPTS` attempts in all. Any other failure (connection, timeout,
  other status, a body that is not a chat completion) raises :class:`LLMError` at once.
* :func:`parse_verdict` reads a VALID / INVALID answer however it is wrapped: control
  tokens (``<s>``, ``</s>``, ``<|im_end|>``, ``[OUT]``, ``[/INST]``), JSON inside prose
  (``Sure! {"answer": "VALID"}``), code fences, any letter case. An answer naming both
  or neither is unreadable (None), never guessed.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

from etki.text import fold

__all__ = [
    "MAX_ATTEMPTS",
    "MAX_WAIT",
    "ChatClient",
    "LLMError",
    "chat_url",
    "parse_verdict",
    "retry_after_seconds",
]

MAX_ATTEMPTS = 4
"""Attempts per request, the first included (so at most three waits after a 429)."""
MAX_WAIT = 10.0
"""Longest single wait after a 429, in seconds, whatever Retry-After asks for: three
waits add up to at most 30 s, one request's :data:`TIMEOUT`, so a rate-limited endpoint
slows an index build down by a bounded amount and then the lexical check takes over."""
TIMEOUT = 30.0
"""Seconds for one HTTP request."""


class LLMError(Exception):
    """The model endpoint could not give an answer (the message says why)."""


def chat_url(base_url: str) -> str:
    """The chat-completions URL for ``base_url`` (see the module docstring)."""
    base = base_url.rstrip("/")
    return base + ("/chat/completions" if base.endswith("/v1") else "/v1/chat/completions")


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value: a number of seconds, or an HTTP
    date (seconds until then, at least 0). None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass(frozen=True)
class ChatClient:
    """One endpoint and model. ``sleep`` is how it waits (``time.sleep``)."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = TIMEOUT
    max_attempts: int = MAX_ATTEMPTS
    max_wait: float = MAX_WAIT
    sleep: Callable[[float], None] = time.sleep

    def complete(self, messages: Sequence[dict[str, str]], max_tokens: int = 32) -> str:
        """The assistant's text for ``messages`` (temperature 0). Raises LLMError."""
        body = json.dumps({"model": self.model, "messages": list(messages), "temperature": 0,
                           "max_tokens": max_tokens}).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        url = chat_url(self.base_url)
        for attempt in range(1, self.max_attempts + 1):
            request = urllib.request.Request(url, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    raw = response.read()
            except urllib.error.HTTPError as exc:
                if exc.code == 429 and attempt < self.max_attempts:
                    wait = retry_after_seconds(exc.headers.get("Retry-After"))
                    wait = 2.0 ** (attempt - 1) if wait is None else wait
                    self.sleep(min(wait, self.max_wait))
                    continue
                raise LLMError(f"HTTP {exc.code} from {url}"
                               + (" after retries" if exc.code == 429 else "")) from exc
            except (urllib.error.URLError, TimeoutError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                raise LLMError(f"cannot reach {url}: {reason}") from exc
            return _content(raw, url)
        raise LLMError(f"no answer from {url}")  # pragma: no cover - loop always returns


def _content(raw: bytes, url: str) -> str:
    try:
        data = json.loads(raw.decode("utf-8"))
        choice = data["choices"][0]
        text = (choice.get("message") or {}).get("content")
        if text is None:
            text = choice.get("text")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise LLMError(f"{url} did not answer with a chat completion") from exc
    if not isinstance(text, str):
        raise LLMError(f"{url} answered without text")
    return text


_CONTROL = re.compile(r"<\|?/?[A-Za-z_][\w|]{0,24}\|?>|\[/?[A-Z][A-Z_]{0,15}\]")
_FENCE = re.compile(r"```[a-zA-Z]*")
_WORDS = re.compile(r"[A-Za-z]+")
_ANSWER_KEYS = ("answer", "verdict", "result", "label", "decision", "valid", "output")


def _from_value(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _from_words(value)
    return None


def _from_words(text: str) -> bool | None:
    found = {fold(w) for w in _WORDS.findall(text)} & {"valid", "invalid"}
    if found == {"valid"}:
        return True
    if found == {"invalid"}:
        return False
    return None


def _json_objects(text: str) -> list[dict]:
    decoder = json.JSONDecoder()
    out = []
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def parse_verdict(answer: str) -> bool | None:
    """True for VALID, False for INVALID, None when the answer cannot be read (see the
    module docstring). A JSON object with an ``answer``/``verdict``/``result``/``label``/
    ``decision``/``valid``/``output`` field decides first; else the bare words do.

    >>> parse_verdict('<s>[OUT] {"answer": "INVALID"} [/OUT]</s>')
    False
    """
    text = _FENCE.sub(" ", _CONTROL.sub(" ", answer))
    for obj in _json_objects(text):
        lowered = {fold(str(k)): v for k, v in obj.items()}
        for key in _ANSWER_KEYS:
            if key in lowered:
                found = _from_value(lowered[key])
                if found is not None:
                    return found
    return _from_words(text)
