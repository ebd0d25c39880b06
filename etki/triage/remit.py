"""The remit, proposed at setup (issue 29 item 5; DESIGN.md "Triage engine").

:func:`proposals` lists the contract's own sentences that put work outside the
contractor's remit, as :mod:`etki.triage.contract` reads them (one classifier: its
sentence roles, never a second one): every sentence of role ``exclusion`` (an exclusion
clause, exclusion wording such as "not included" or "not be responsible", a list item
under such a lead-in) or ``client`` (a duty or decision of another party: "ACF, not
the contractor, will be responsible for hosting ..."). A lead-in that passed its role
on to the list below it ("The Contractor will not be responsible to perform the
following:") is left out: its items are the candidates, and it names nothing by itself.
Sentences of the declared remit itself (``etki.yaml``, accepted ones included) are not
candidates. Numbers are 1, 2, ... in contract order (clause order, then sentence order),
so they stay the same while the contract does.

A PMO accepts some (``etki remit accept``); :func:`remit_clauses` makes the accepted
statements clauses of the declared remit (contract ``etki.yaml``, ref
``etki.yaml#accepted-N``, kind ``exclusion``: every sentence of it is an exclusion to the
engine, exactly as a ``scope: out`` line of ``etki.yaml``), and :func:`with_remit` puts
them into a project and its knowledge index.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from etki.domain import (
    REMIT_CONTRACT_ID,
    Contract,
    Project,
    RemitStatement,
    ScopeClause,
    is_accepted_remit,
    is_declared_remit,
)
from etki.triage.contract import LEAD_IN_RULE, analyse

__all__ = ["PROPOSAL_ROLES", "Proposal", "proposals", "remit_clauses", "with_remit"]

PROPOSAL_ROLES = ("exclusion", "client")
"""The sentence roles (:data:`etki.triage.contract.SENTENCE_ROLES`) offered as remit."""


@dataclass(frozen=True)
class Proposal:
    """One candidate ``scope: out`` statement: ``number`` (1-based, contract order),
    the clause ``ref`` it is read from, its sentence ``role`` and the ``rule`` of
    :mod:`etki.triage.contract` that gave it, and the sentence ``text`` (plain text of
    the contract: client text, show it literally)."""

    number: int
    ref: str
    role: str
    rule: str
    text: str


def proposals(clauses: Sequence[ScopeClause]) -> tuple[Proposal, ...]:
    """The candidate remit statements of ``clauses`` (module docstring). Pure."""
    contract = [c for c in clauses if not is_declared_remit(c)]
    out: list[Proposal] = []
    for info in analyse(contract):
        sentences = info.sentences
        for k, sentence in enumerate(sentences):
            if sentence.role not in PROPOSAL_ROLES:
                continue
            following = sentences[k + 1] if k + 1 < len(sentences) else None
            if (
                sentence.text.endswith(":")
                and following is not None
                and following.rule == LEAD_IN_RULE
            ):
                continue  # a lead-in: its items stand for it
            out.append(
                Proposal(len(out) + 1, info.clause.ref, sentence.role, sentence.rule, sentence.text)
            )
    return tuple(out)


def remit_clauses(statements: Iterable[RemitStatement]) -> tuple[ScopeClause, ...]:
    """The accepted ``statements`` as clauses of the declared remit, in acceptance
    order: ref ``etki.yaml#accepted-N``, kind ``exclusion``, title ``Accepted remit (out)
    N``, text the sentence, ``source`` the clause it was accepted from."""
    return tuple(
        ScopeClause(
            ref=s.ref,
            contract_id=REMIT_CONTRACT_ID,
            number=s.ref.split("#", 1)[1],
            title=f"Accepted remit (out) {s.number}",
            text=s.text,
            kind="exclusion",
            level=1,
            source=s.source_ref,
            line=0,
        )
        for s in sorted(statements, key=lambda s: s.number)
    )


def with_remit(project: Project, clauses: Sequence[ScopeClause]) -> Project:
    """``project`` with its accepted-remit clauses replaced by ``clauses``
    (:func:`remit_clauses`): they follow the statements of ``etki.yaml`` in the
    ``etki.yaml`` contract, which is added (after the documents) when the folder
    declares none and dropped when nothing is left in it."""
    declared = next((c for c in project.contracts if c.id == REMIT_CONTRACT_ID), None)
    written = tuple(c for c in declared.clauses if not is_accepted_remit(c)) if declared else ()
    others = tuple(c for c in project.contracts if c.id != REMIT_CONTRACT_ID)
    every = written + tuple(clauses)
    if not every:
        return replace(project, contracts=others)
    remit = (
        replace(declared, clauses=every)
        if declared is not None
        else Contract(
            id=REMIT_CONTRACT_ID,
            title="Declared remit",
            source="etki.yaml",
            clauses=every,
            chunking="declared",
        )
    )
    return replace(project, contracts=(*others, remit))
