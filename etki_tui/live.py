"""Whether a widget can be drawn into now, and its parts when it can.

A message, a timer or a worker's answer can reach a widget at three moments when its
children are not there: before it is composed (a screen pushed in this turn of the
event loop composes in a later one; a pane mounted in this turn likewise), while it is
being removed (a screen popped, the desk shutting down: Textual marks the whole subtree
at once, then removes it children first, so a child query fails on a widget that is
still attached), and after it is gone. Handlers ask :func:`part` instead of
``query_one``: None means "keep the state, the widget draws it on mount" or "drop it,
nothing is left to draw into", and the caller says which.
"""

from __future__ import annotations

from typing import TypeVar

from textual.app import App
from textual.css.query import NoMatches
from textual.dom import DOMNode
from textual.widget import Widget

__all__ = ["gone", "part"]

W = TypeVar("W", bound=Widget)


def gone(node: DOMNode) -> bool:
    """True once ``node`` is being removed or has left the app's DOM, or the app is
    exiting. For the app itself: once it exits (:meth:`App.exit` sets its return code)
    or stops running.

    Read from public API: Textual hides a node it is closing or pruning (its
    ``display`` turns False while its style still says shown; a node it prunes is
    flagged before its children are removed), and ``is_attached`` is False once the
    node left the DOM or the app is exiting. A node hidden by its own style
    (``display: none``) that is being removed is seen through its owner, which
    :func:`part` asks first."""
    if isinstance(node, App):
        return node.return_code is not None or not node.is_running
    if not node.is_attached:
        return True
    return node.styles.display != "none" and not node.display


def part(
    owner: DOMNode,
    selector: str | type[W],
    expect_type: type[W] | None = None,
) -> W | None:
    """The child ``selector`` of ``owner`` (as ``owner.query_one``), or None when it is
    not composed yet or ``owner`` is going (:func:`gone`). Raises ``WrongType`` like
    ``query_one`` when the match is of another type (a programming error, not a race)."""
    if gone(owner):
        return None
    try:
        found = owner.query_one(selector, expect_type)  # type: ignore[arg-type]
    except NoMatches:
        return None
    if gone(found):
        return None
    return found
