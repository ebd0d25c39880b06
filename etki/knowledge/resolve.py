"""Resolving link targets to node ids, exactly or not at all (never guessed).

A clause target ``clause:{contract}#{head}`` resolves against the clauses of that
contract (contract id exact, else equal after :func:`etki.text.fold`), trying in order:

1. the number as written (``3.2``);
2. the number normalised (``3.2.0`` = ``3.2``);
3. an alias: the number or slug of an empty parent merged into the clause (``1.0``);
4. the title, equal after folding (also the last part of a merged title
   ``Purpose and Background › Purpose``);
5. the title slug, equal or the end of the clause's title slug;
6. the first clause numbered below the number (``1`` -> ``1.1`` when section 1 holds
   no text of its own).

The first test that names a clause wins; document order breaks ties. Other targets
resolve only when a node has exactly that id, or a bare name is the id of exactly one
module or work item (``auth`` -> ``module:auth``). Anything else is ``None``: the index
lists it as unresolved with its original text and location.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable

from etki.domain import ScopeClause
from etki.text import fold, slugify

__all__ = ["ClauseResolver", "normalize_number", "resolve_target"]


def normalize_number(number: str) -> str:
    """``2.0`` and ``2`` are the same section: trailing ``.0`` parts dropped."""
    parts = number.split(".")
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


class ClauseResolver:
    """Resolves ``{contract}#{number or heading}`` against the loaded clauses."""

    def __init__(self, clauses: Iterable[ScopeClause]) -> None:
        self.by_contract: dict[str, list[ScopeClause]] = {}
        for clause in clauses:
            self.by_contract.setdefault(clause.contract_id, []).append(clause)
        self.folded = {fold(cid): cid for cid in self.by_contract}

    def resolve(self, contract: str, head: str) -> str | None:
        """The node id (``clause:{ref}``) named by ``contract`` and ``head``, or None."""
        cid = contract if contract in self.by_contract else self.folded.get(fold(contract))
        if cid is None:
            return None
        head = head.strip()
        norm = normalize_number(head)
        slug = slugify(head)
        tests: tuple[Callable[[ScopeClause], bool], ...] = (
            lambda c: c.number == head,
            lambda c: normalize_number(c.number) == norm,
            lambda c: any(normalize_number(a) == norm for a in c.aliases),
            lambda c: (
                fold(c.title) == fold(head) or fold(c.title.rsplit(" › ", 1)[-1]) == fold(head)
            ),
            lambda c: slugify(c.title) == slug or slugify(c.title).endswith("-" + slug),
            lambda c: normalize_number(c.number).startswith(norm + "."),
        )
        for test in tests:
            for clause in self.by_contract[cid]:
                if test(clause):
                    return f"clause:{clause.ref}"
        return None


def resolve_target(target: str, nodes: Collection[str], resolver: ClauseResolver) -> str | None:
    """The node id ``target`` names (see the module docstring), or None."""
    if target in nodes:
        return target
    if target.startswith("clause:"):
        contract, sep, head = target[len("clause:") :].partition("#")
        return resolver.resolve(contract, head) if sep else None
    if target.startswith(("module:", "workitem:", "chunk:")) or not target:
        return None
    found = [prefix + target for prefix in ("module:", "workitem:") if prefix + target in nodes]
    return found[0] if len(found) == 1 else None
