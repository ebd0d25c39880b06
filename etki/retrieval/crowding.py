"""Result diversification by source ("host crowding", issue 33): at most
:data:`PER_SOURCE` hits of one source among the first :data:`WINDOW` of a ranking, the
hits past that cap moved to just after the window, each group in its own order.

Web search's rule for one site filling a results page: Google shows "no more than two
listings from the same site in our top results" (Google Search Liaison, 6 June 2019,
"site diversity change"), within a results page of ten. Here a source is a wiki page
and its hits are the page itself and, for a contract page, its clause sections
(``path#anchor``): a question about a topic the contract mentions in many sections
otherwise gets only that page's sections in its top 5 (background and evaluation
sections after the answer) and no decision that ruled on it. Both numbers are that
general rule's, not fitted to any question set (docs/EVAL.md gives the before/after on
the labelled reviewer questions of each engagement).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["PER_SOURCE", "WINDOW", "crowd"]

PER_SOURCE = 2
"""At most this many hits of one source among the first :data:`WINDOW` (the site
diversity rule: two listings of one site)."""

WINDOW = 10
"""The first this-many positions the cap holds for (a web results page)."""

T = TypeVar("T")


def crowd(
    ranked: Sequence[T],
    source: Callable[[T], str],
    per_source: int = PER_SOURCE,
    window: int = WINDOW,
) -> list[T]:
    """``ranked`` (best first) with at most ``per_source`` items of one ``source`` among
    its first ``window``: an item over the cap is held back, and the held-back items
    follow the window, merged with the items after it in their ranked order. Items are
    never dropped, and the order within one source is kept. When fewer than ``window``
    items pass the cap, the held-back ones fill the rest in ranked order (nothing is
    left out to keep the window diverse)."""
    head: list[T] = []
    later: list[int] = []  # positions in ``ranked`` of the items after the window
    counts: dict[str, int] = {}
    for i, item in enumerate(ranked):
        if len(head) == window:
            later.append(i)
            continue
        key = source(item)
        if counts.get(key, 0) < per_source:
            counts[key] = counts.get(key, 0) + 1
            head.append(item)
        else:
            later.append(i)
    return head + [ranked[i] for i in sorted(later)]
