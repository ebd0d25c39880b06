"""``Node``: one node of the knowledge index (clause, chunk, module or work item).

Its own module so the candidate-edge gate (:mod:`etki.knowledge.gate`) and the index
(:mod:`etki.knowledge.index`) both use it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Node", "frozen_value"]

_CORE = ("id", "type", "title", "text")


def frozen_value(value: Any) -> Any:
    """``value`` with every list turned into a tuple, recursively (JSON -> hashable)."""
    return tuple(frozen_value(v) for v in value) if isinstance(value, list) else value


@dataclass(frozen=True)
class Node:
    """A node of the index. ``type`` is ``clause``, ``chunk``, ``module`` or
    ``workitem``; ``title`` is what a person reads (clause title, module id, work-item
    title); ``text`` what retrieval scores (clause body and chunk text as plain text,
    :attr:`etki.domain.ScopeClause.plain`; module summary, work-item title); ``attrs``
    the other fields as sorted (name, value) pairs:

    * clause: ``ref contract number kind level parent source line seq status
      markdown`` (``markdown``: the body as written, :attr:`ScopeClause.text`) and, when
      present, ``aliases`` (numbers of merged parents), ``overlap`` (sliding window:
      the previous window's tail), ``chunks`` (how many parts it was split into) and
      ``subtitles`` (folded sub-headings as [title, line] pairs);
    * chunk: ``clause contract part parts kind status source line seq markdown`` and,
      when the part starts under a sub-heading, ``subtitle``;
    * module: ``path language seq``; work item: ``kind date effort_days seq``.
    """

    id: str
    type: str
    title: str
    text: str = ""
    attrs: tuple[tuple[str, Any], ...] = ()

    @property
    def data(self) -> dict[str, Any]:
        """``attrs`` as a dict."""
        return dict(self.attrs)

    def get(self, name: str, default: Any = None) -> Any:
        """One attribute by name."""
        return self.data.get(name, default)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "title": self.title,
            "text": self.text,
            **dict(self.attrs),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Node:
        attrs = tuple(sorted((k, frozen_value(v)) for k, v in data.items() if k not in _CORE))
        return cls(data["id"], data["type"], data["title"], data.get("text", ""), attrs)
