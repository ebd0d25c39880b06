"""Edge provenance: how an edge of the knowledge index was found, and what it weighs.

Its own module so every part that makes edges (:mod:`etki.knowledge.contracts`,
:mod:`etki.knowledge.edgesfile`, :mod:`etki.knowledge.gate`, :mod:`etki.knowledge.index`,
:mod:`etki.retrieval.graph`) reads the one table.
"""

from __future__ import annotations

__all__ = ["PROVENANCE_WEIGHTS"]

PROVENANCE_WEIGHTS: dict[str, float] = {
    "explicit": 1.0,
    "mapped": 0.8,
    "inherited": 0.6,
    "derived": 0.5,
}
"""Weight of an edge by provenance, strongest first; the order is also the order of
strength when one edge is found twice (explicit > mapped > inherited > derived).

The numbers are a hand-set order of trust, chosen with the first index format and not
fitted to data: a link written in the clause itself (``explicit``) counts fully; one a
person accepted (``edges.yaml``), the validation gate admitted or a work item's history
records (``mapped``) is a step less sure; one a clause inherits from a heading or the
frontmatter above it (``inherited``) holds for it only by position; a structural edge
(``derived``: ``part_of``, ``precedes``) says nothing about scope. No evaluation has
tuned them (docs/EVAL.md, "Choices made after seeing results"). They multiply a
neighbour's priority in graph expansion (:mod:`etki.retrieval.expand`) and are written
into the index file, so changing one changes the index bytes and hash."""
