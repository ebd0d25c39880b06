"""Index lint: problems a person should look at, found in a built knowledge index
(issue 4 item 1: ``etki index lint`` reports them without failing the build unless
``--strict``).

``warning`` (fails ``--strict``):

* ``unresolved``: a link whose target or source names no node (its text and location);
* ``candidate-unresolved``: a candidate edge whose target or source names no node;
* ``empty-clause``: a clause without text (a heading with nothing under it that could
  not be merged into a child);
* ``repeated-number``: two clauses of one contract with the same number (the later one
  got ``-2``), so a reference by number reaches only the first.

``note`` (never fails):

* ``sliding-window``: a document chunked without heading structure;
* ``draft``: a clause whose status is draft;
* ``candidate-rejected``: a candidate the validation gate did not admit;
* ``unlinked-modules``: how many modules no clause links to (``etki index suggest``
  proposes links).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from etki.errors import InputError
from etki.knowledge.index import KnowledgeIndex

__all__ = ["LintFailedError", "Problem", "lint"]

_REPEATED = re.compile(r"^(?P<base>.+)-(?P<n>\d+)$")
_CLAUSE_MODULE_TYPES = ("maps_to", "covers", "excludes", "depends_on")


class LintFailedError(InputError):
    """``--strict`` and the index has warnings (exit code 2)."""


@dataclass(frozen=True)
class Problem:
    """One finding: ``severity`` (``warning`` or ``note``), ``code`` (see the module
    docstring), ``location`` (``contracts/msa.md:27``, a node id, or ``""``) and a
    ``message`` a person can act on."""

    severity: str
    code: str
    location: str
    message: str

    def line(self) -> str:
        """``warning  unresolved  contracts/msa.md:27  ...`` for the terminal."""
        return f"{self.severity:<8} {self.code:<21} {self.location or '-'}  {self.message}"


def lint(index: KnowledgeIndex) -> tuple[Problem, ...]:
    """Every problem of ``index``, warnings first, each group in a stable order."""
    warnings: list[Problem] = []
    notes: list[Problem] = []
    for u in index.unresolved:
        written = u.text or u.target
        warnings.append(
            Problem(
                "warning",
                "unresolved",
                u.location,
                f"{written} names no node ({u.type} from {u.source} to "
                f"{u.target}); fix the link or add the missing node",
            )
        )
    for c in index.candidates:
        if c.verdict == "unresolved":
            warnings.append(
                Problem("warning", "candidate-unresolved", c.location, f"{c.text}: {c.detail}")
            )
        elif c.verdict == "rejected":
            notes.append(
                Problem(
                    "note",
                    "candidate-rejected",
                    c.location,
                    f"{c.text}: not admitted from {c.source} ({c.method}: {c.detail})",
                )
            )
    clauses = index.in_order("clause")
    numbers = {(n.get("contract"), str(n.get("number"))) for n in clauses}
    for node in clauses:
        where = f"{node.get('source')}:{node.get('line')}"
        if not node.text.strip():
            warnings.append(
                Problem("warning", "empty-clause", where, f"{node.id} ({node.title}) has no text")
            )
        match = _REPEATED.match(str(node.get("number")))
        if match and (node.get("contract"), match.group("base")) in numbers:
            warnings.append(
                Problem(
                    "warning",
                    "repeated-number",
                    where,
                    f"number {match.group('base')} is used twice in {node.get('contract')}; "
                    f"this clause is {node.id}",
                )
            )
        if node.get("status") == "draft":
            notes.append(Problem("note", "draft", where, f"{node.id} is a draft"))
    for entry in index.contracts:
        if entry.chunking == "sliding_window":
            notes.append(
                Problem(
                    "note",
                    "sliding-window",
                    entry.source,
                    f"{entry.id} has no usable heading structure; chunked in "
                    f"windows ({dict(entry.metrics)})",
                )
            )
    modules = index.nodes_of("module")
    linked = {
        e.target
        for e in index.edges
        if e.type in _CLAUSE_MODULE_TYPES and e.source.startswith(("clause:", "chunk:"))
    }
    unlinked = [m for m in modules if m.id not in linked]
    if unlinked:
        notes.append(
            Problem(
                "note",
                "unlinked-modules",
                "",
                f"{len(unlinked)} of {len(modules)} modules are linked from no "
                "clause; `etki index suggest` proposes links",
            )
        )
    return tuple(warnings + notes)
