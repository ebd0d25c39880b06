"""How long a ``429 Too Many Requests`` asks to wait (one job: read ``Retry-After``).

RFC 9110 §10.2.3: ``Retry-After = HTTP-date / delay-seconds``, where ``delay-seconds``
is a non-negative decimal integer of seconds and ``HTTP-date`` is the IMF-fixdate of
§5.6.7 (the obsolete RFC 850 and asctime forms are read too, as §5.6.7 asks of
recipients). A non-negative decimal fraction (``1.5``) is accepted as seconds as well;
anything else (missing, empty, negative, not finite, not a date) gets
:data:`DEFAULT_RETRY_AFTER`.
"""

from __future__ import annotations

import email.utils
import math
import time
from datetime import UTC

__all__ = ["DEFAULT_RETRY_AFTER", "retry_after"]

DEFAULT_RETRY_AFTER = 1.0
"""Seconds to wait after a 429 that says nothing readable about when to come back. One
second: long enough not to hammer a rate limiter, short enough that the at most three
retries of :func:`etki.endpoints.http.post_json` fit in any of Etki's deadlines."""


def retry_after(value: str | None, now: float | None = None) -> float:
    """Seconds to wait (>= 0) for a ``Retry-After`` header value: its delay-seconds, or
    the seconds from ``now`` until its HTTP-date (0 when that date has passed), or
    :data:`DEFAULT_RETRY_AFTER` when the value is missing or unreadable (see the module
    docstring). ``now`` is the current POSIX time in seconds (default ``time.time()``).
    Never raises."""
    if value is None or not value.strip():
        return DEFAULT_RETRY_AFTER
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return seconds if math.isfinite(seconds) and seconds >= 0 else DEFAULT_RETRY_AFTER
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return DEFAULT_RETRY_AFTER
    if when.tzinfo is None:  # asctime and "-0000" dates: HTTP-dates are UTC (§5.6.7)
        when = when.replace(tzinfo=UTC)
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)
