"""The PMO's terms of a change request (issue 35 item 1): the assumptions and
exclusions the client-facing change-request document states, the date until which
its offer is valid and, when the PMO chooses them, the contract clauses it cites.
Written by a person (``etki cr edit``, never the engine), stored as
a ``case_events`` row of kind ``cr_terms`` whose text is :meth:`CrTerms.to_text` (JSON,
the whole set each time); the newest one is in force, the earlier ones stay in the
case's history.

Input rules (:func:`parse_cr_terms`): at most :data:`TERMS_MAX_ITEMS` assumptions and as
many exclusions, each one line of at most :data:`TERM_MAX_CHARS` characters (white space
around it dropped, NFC-normalised, an empty one refused); a validity date ``YYYY-MM-DD`` between 2000
and 2100; at most :data:`TERMS_MAX_ITEMS` clause refs and as many impacted module ids,
each known to the project (the desk checks that: :meth:`etki.services.Desk.set_cr_terms`).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from datetime import date
from typing import Any

from etki.errors import InputError

TERMS_MAX_ITEMS = 30
"""The most assumptions (and, apart, exclusions) a change request may list."""

TERM_MAX_CHARS = 600
"""The longest assumption or exclusion, in characters."""

CR_FORMATS = ("md", "html", "docx")
"""The formats a client-facing change request is written in (``etki cr export
--format``; the desk's help names them from here): Markdown, print-ready HTML, Word."""


@dataclass(frozen=True)
class CrTerms:
    """A change request's terms as the PMO wrote them: ``assumptions`` and
    ``exclusions`` (untrusted text, in the order given), ``valid_until`` (an ISO date
    ``YYYY-MM-DD``, or None when not set), ``clauses`` (the clause refs the document
    cites, chosen by the PMO, or None: the default,
    :attr:`etki.domain.CaseRecord.cr_clauses`: the clauses the decision cites, none when
    the engine read them as covering the work), ``modules`` (the impacted module ids the
    document names, chosen by the PMO, ``()`` for none, or None: the default, the
    decision's :attr:`~etki.domain.Decision.impacted_modules`,
    :attr:`etki.domain.CaseRecord.cr_modules`), ``actor`` (who wrote them) and ``at``
    (the store's time, ISO-8601 UTC to the second)."""

    assumptions: tuple[str, ...] = ()
    exclusions: tuple[str, ...] = ()
    valid_until: str | None = None
    actor: str = ""
    at: str = ""
    clauses: tuple[str, ...] | None = None
    modules: tuple[str, ...] | None = None

    def summary(self) -> str:
        """The terms in words for a history line: ``2 assumptions, 1 exclusion, valid
        until 2027-01-31``; chosen modules named (``names modules a, b`` or ``names no
        modules``: a PMO trial read "names 0 modules chosen")."""

        def n(count: int, word: str) -> str:
            return f"{count} {word}{'s' if count != 1 else ''}"

        parts = [n(len(self.assumptions), "assumption"), n(len(self.exclusions), "exclusion")]
        parts.append(f"valid until {self.valid_until}" if self.valid_until else "no validity date")
        if self.clauses is not None:
            parts.append(f"cites {n(len(self.clauses), 'clause')} chosen")
        if self.modules is not None:
            parts.append(
                f"names {'module' if len(self.modules) == 1 else 'modules'} "
                f"{', '.join(self.modules)}"
                if self.modules
                else "names no modules"
            )
        return ", ".join(parts)

    def to_text(self) -> str:
        """The JSON text stored in the ``case_events`` row (sorted keys; actor and time
        are the row's columns; ``clauses`` only when chosen, so terms written before
        the choice existed read back the same)."""
        body: dict[str, Any] = {
            "assumptions": list(self.assumptions),
            "exclusions": list(self.exclusions),
            "valid_until": self.valid_until,
        }
        if self.clauses is not None:
            body["clauses"] = list(self.clauses)
        if self.modules is not None:
            body["modules"] = list(self.modules)
        return json.dumps(body, ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_text(cls, text: str, actor: str, at: str) -> CrTerms:
        """The terms of a stored ``case_events`` row (:meth:`to_text`)."""
        body = json.loads(text)
        clauses = body.get("clauses")
        modules = body.get("modules")
        return cls(
            assumptions=tuple(str(a) for a in body.get("assumptions") or ()),
            exclusions=tuple(str(e) for e in body.get("exclusions") or ()),
            valid_until=body.get("valid_until"),
            actor=actor,
            at=at,
            clauses=None if clauses is None else tuple(str(c) for c in clauses),
            modules=None if modules is None else tuple(str(m) for m in modules),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (``etki show --json``)."""
        return {
            "assumptions": list(self.assumptions),
            "exclusions": list(self.exclusions),
            "valid_until": self.valid_until,
            "clauses": None if self.clauses is None else list(self.clauses),
            "modules": None if self.modules is None else list(self.modules),
            "by": self.actor,
            "at": self.at,
        }


def _items(field: str, raw: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    items = tuple(unicodedata.normalize("NFC", " ".join(r.split())) for r in raw)
    if any(not item for item in items):
        article = "an" if field[0] in "aeiou" else "a"
        raise InputError(
            f"cr edit: {article} {field} is empty: write what it says, or leave it out"
        )
    if len(items) > TERMS_MAX_ITEMS:
        raise InputError(f"cr edit: {len(items)} {field}s; at most {TERMS_MAX_ITEMS}")
    long = next((item for item in items if len(item) > TERM_MAX_CHARS), None)
    if long is not None:
        raise InputError(
            f"cr edit: {'an' if field[0] in 'aeiou' else 'a'} {field} has {len(long):,} "
            f"characters; at most {TERM_MAX_CHARS}"
        )
    return items


def parse_valid_until(raw: str) -> str:
    """``raw`` as an ISO date ``YYYY-MM-DD`` (white space dropped) between 2000-01-01
    and 2100-12-31. Raises :class:`InputError` naming the field otherwise."""
    text = raw.strip()
    try:
        day = date.fromisoformat(text)
    except ValueError:
        day = None
    if day is None or len(text) != 10 or not date(2000, 1, 1) <= day <= date(2100, 12, 31):
        raise InputError(
            f"cr edit: field 'valid-until' is {raw!r}: write a date as YYYY-MM-DD (e.g. 2027-01-31)"
        )
    return day.isoformat()


def parse_cr_terms(
    base: CrTerms | None,
    *,
    assumptions: list[str] | None = None,
    exclusions: list[str] | None = None,
    valid_until: str | None = None,
    clauses: list[str] | None = None,
    modules: list[str] | None = None,
    default_modules: bool = False,
) -> CrTerms:
    """The new terms: ``base`` (the terms in force, or None) with each field given
    replaced (``assumptions``/``exclusions`` the whole new list, ``[]`` clears it;
    ``valid_until`` a date, ``""`` clears it; ``clauses`` the refs to cite, as typed
    (the desk resolves them against the contract), ``[]`` back to the default,
    :attr:`etki.domain.CaseRecord.cr_clauses`; ``modules`` the impacted module ids the
    document names, as typed (the desk checks them against the project's modules), ``[]``
    none; ``default_modules`` back to the decision's,
    :attr:`etki.domain.CaseRecord.cr_modules`), the others kept. Actor and time are set when stored. Raises
    :class:`InputError` naming the field for bad input, or when nothing is given."""
    given = (assumptions, exclusions, valid_until, clauses, modules)
    if all(g is None for g in given) and not default_modules:
        raise InputError(
            "cr edit: nothing to change: give --assumption, --exclusion, --valid-until, "
            "--clause, --module (or --clear-assumptions, --clear-exclusions, "
            "--clear-valid-until, --default-clauses, --no-modules, --default-modules)"
        )
    if default_modules and modules is not None:
        raise InputError("cr edit: --module and --default-modules together: give one")
    old = base or CrTerms()
    if clauses is None:
        cited = old.clauses
    elif not clauses:
        cited = None
    else:
        cited = tuple(dict.fromkeys(_items("clause", clauses)))
    if default_modules:
        named = None
    elif modules is None:
        named = old.modules
    else:
        named = tuple(dict.fromkeys(_items("module", modules))) if modules else ()
    return CrTerms(
        assumptions=old.assumptions if assumptions is None else _items("assumption", assumptions),
        exclusions=old.exclusions if exclusions is None else _items("exclusion", exclusions),
        valid_until=(
            old.valid_until
            if valid_until is None
            else (parse_valid_until(valid_until) if valid_until.strip() else None)
        ),
        clauses=cited,
        modules=named,
    )
