"""The reports of Raporlar and ``etki report``: every figure computed from stored cases
in one place (:func:`compute_report`, called by :meth:`etki.services.Desk.report`), and
the same figures laid out as tables (:func:`report_tables`) for CSV, JSON and text.

The TUI draws :class:`~etki.domain.Report` as charts; ``etki report`` prints
:func:`report_tables` of the very same value, so the two never disagree. Pure functions
over :class:`~etki.domain.CaseRecord` values and a given "now" (no clock, no I/O), like
:mod:`etki.memory`.

What a PMO reads here, besides the counts Raporlar always had:

* **age of pending cases**, in the buckets of :data:`AGE_BUCKETS`, measured at ``now``
  from the request's ``submitted_at`` when it carries a readable one (ISO-8601 date or
  date-time; without an offset it is read as UTC), else from ``created_at``, the time
  the case was stored; each bucket says how many of its cases were measured which way.
  A ``submitted_at`` in the future counts as age 0.
* **rulings per reviewer**: the current ruling of each ruled case, counted per
  reviewer by ruling, with the overrides among them; names in folded order
  (:func:`etki.text.sort_key`, so ``Ayşe``, ``İlker`` and ``Jürgen`` sort as a Turkish
  or German reader expects, independent of the locale).
* **change-request effort per month**: the cases ruled ``CHANGE_REQUEST``, grouped by
  the month of the ruling (UTC), with the sum of their effort ranges (person-days): a
  reviewer's estimate (issue 35 item 2) where one is in force, counted as its days at
  both ends and numbered in ``reviewer_estimates``, else the engine's range from
  comparable work items; and how many had no estimate.

CSV cells of text (reviewer names, clause refs) are made terminal-safe with
:func:`etki.text.printable` and guarded against spreadsheet formulas
(:func:`csv_cell`, OWASP "CSV Injection"). Fractional figures read the same in text
and CSV (:func:`number_text`: ``26``, not ``26.0``). The totals count the disputed
clauses still open (``disputed_clauses``) apart from those a person's resolution settled
(``disputed_resolved``).
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, NamedTuple, TextIO, cast
from unicodedata import normalize

from etki import memory
from etki.domain import (
    VERDICTS,
    AgeBucket,
    MonthEffort,
    OverdueLook,
    Report,
    ReviewerRulings,
)
from etki.errors import InputError, clip
from etki.text import (
    FORMULA_STARTS,
    names_person,
    printable,
    sort_key,
    spreadsheet_safe,
)

if TYPE_CHECKING:
    from etki.domain import CaseRecord, ClauseMemory, ClauseResolution, DisputedClause, ReportCase
    from etki.store.lean_report import ChangeRequest, ReportRead

    Reported = CaseRecord | ReportCase
    """A case as the reports read it: a full record (the desk) or a report's row
    (``etki report`` on the lean read path, :mod:`etki.store.lean_report`)."""

__all__ = [
    "AGE_BUCKETS",
    "LOOK_HOURS",
    "REPORT_NAMES",
    "CaseSelection",
    "ReportTable",
    "age_start",
    "check_reviewer",
    "check_reviewer_names",
    "compute_report",
    "csv_cell",
    "decimal_comma",
    "number_text",
    "overdue_looks",
    "report_of_read",
    "report_tables",
    "tables_json",
    "text_lines",
    "write_csv",
]

AGE_BUCKETS: tuple[tuple[str, int, int | None], ...] = (
    ("< 1 day", 0, 1),
    ("1–3 days", 1, 3),
    ("3–7 days", 3, 7),
    ("1–4 weeks", 7, 28),
    ("> 4 weeks", 28, None),
)
"""(label, from days, to days) of the pending-age buckets: a case of age ``d`` days is
in the bucket with ``from <= d < to`` (the last has no upper end)."""

_DAY = 86400.0

LOOK_HOURS = 24
"""Hours within which a case whose risk asks for it gets its PMO look (the risk layer's
``pmo_look_24h``, :mod:`etki.triage.risk`; README, "Risk"); past them the look is
overdue."""

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _moment(text: str | None) -> datetime | None:
    """``text`` as an aware UTC datetime: an ISO-8601 date (midnight UTC) or date-time
    (``Z`` or an offset; none means UTC), or None when it is missing or unreadable."""
    if not text or not isinstance(text, str):
        return None
    text = text.strip()
    if not _DATE.match(text):
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def age_start(case: Reported) -> tuple[datetime | None, str]:
    """Where a pending case's age is measured from: ``(moment, "submitted_at")`` when
    the request carries a readable ``submitted_at``, else ``(moment, "created_at")``
    (None as moment only for an unreadable stored ``created_at``)."""
    submitted = _moment(case.submitted_at)
    if submitted is not None:
        return submitted, "submitted_at"
    return _moment(case.created_at), "created_at"


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _pending_age(cases: Iterable[Reported], now: datetime) -> tuple[AgeBucket, ...]:
    counts = [[0, 0] for _ in AGE_BUCKETS]  # per bucket: from submitted_at, from created_at
    for case in cases:
        if case.ruling is not None:
            continue
        start, basis = age_start(case)
        days = max(0.0, (now - start).total_seconds() / _DAY) if start is not None else 0.0
        for index, (_label, low, high) in enumerate(AGE_BUCKETS):
            if days >= low and (high is None or days < high):
                counts[index][0 if basis == "submitted_at" else 1] += 1
                break
    return tuple(
        AgeBucket(label, low, high, sub + made, sub, made)
        for (label, low, high), (sub, made) in zip(AGE_BUCKETS, counts, strict=True)
    )


def overdue_looks(
    cases: Iterable[Reported],
    now: datetime,
    memory_now: Mapping[str, ClauseMemory | DisputedClause] | None = None,
    escalate: bool = True,
) -> tuple[OverdueLook, ...]:
    """The pending ``cases`` whose risk asks for the PMO look (:data:`LOOK_HOURS`) and
    that have waited longer at ``now``, oldest first (ties by case id). The risk is the
    one the desk shows (:func:`etki.memory.current_risk` with the clause memory
    ``memory_now`` and ``escalate``): a look asked at triage, or raised since by a
    disputed cited clause (``raised_now``). The wait is measured as the pending ages
    are (:func:`age_start`); a case whose start is unreadable is left out."""
    found: list[OverdueLook] = []
    for case in cases:
        stored = case.decision.risk  # None only in a ruled case's report row
        if case.ruling is not None or stored is None:
            continue
        risk, raised = memory.risk_now(stored, case.decision.cited_clauses, memory_now, escalate)
        if not risk.pmo_look_24h:
            continue
        start, basis = age_start(case)
        if start is None:
            continue
        hours = (now - start).total_seconds() / 3600
        if hours > LOOK_HOURS:
            found.append(
                OverdueLook(case.case_id, case.title, round(hours, 1), basis, bool(raised))
            )
    found.sort(key=lambda o: (-o.hours, o.case_id))
    return tuple(found)


@dataclass(frozen=True)
class CaseSelection:
    """Which cases a report counts (``etki report --since/--until/--reviewer``).

    ``since`` / ``until``: days (UTC), both ends included. A ruled case is counted when
    its current ruling was made in the window; a pending case when its request arrived
    in it (:func:`age_start`: ``submitted_at``, else ``created_at``; a case whose start
    is unreadable is left out of a dated window). ``reviewer``: only the cases whose
    current ruling a reviewer matching it made (:meth:`names`: each word typed begins a
    word of the name, compared folded by :func:`etki.text.fold`, so ``ayse``, ``yilmaz``
    and ``ayse yilmaz`` all name ``Ayşe Yılmaz``, NFC or NFD); pending cases have no
    reviewer and are left out. An empty selection keeps every case."""

    since: date | None = None
    until: date | None = None
    reviewer: str | None = None

    def __bool__(self) -> bool:
        return self.since is not None or self.until is not None or bool(self.reviewer)

    def _in_window(self, moment: datetime | None) -> bool:
        if self.since is None and self.until is None:
            return True
        if moment is None:
            return False
        day = moment.astimezone(UTC).date()
        return (self.since is None or day >= self.since) and (
            self.until is None or day <= self.until
        )

    def names(self, reviewer: str) -> bool:
        """True when :attr:`reviewer` (as typed) names ``reviewer`` (a stored name): every
        word typed begins a word of the name, both folded (``ayse`` names ``Ayşe
        Yılmaz``; ``yil`` does too; ``ayse kaya`` does not)."""
        return names_person(self.reviewer or "", reviewer)

    def keeps(self, case: Reported) -> bool:
        """True when ``case`` is counted (see the class docstring)."""
        if case.ruling is None:
            return not self.reviewer and self._in_window(age_start(case)[0])
        if self.reviewer and not self.names(case.ruling.reviewer):
            return False
        return self._in_window(_moment(case.ruling.ruled_at))

    def words(self, matched: Iterable[str] = ()) -> str:
        """The selection as a PMO reads it on the report (``since 2026-11-01; until
        2026-11-30; reviewer Ayşe Yılmaz``); empty when it keeps every case. The
        reviewer is named as ``matched`` (the stored names of those whose rulings were
        kept) says, not as typed (a PMO trial of issue 35 read ``reviewer ayse`` for
        Ayşe Yılmaz); as typed when nobody's were kept."""
        parts = []
        if self.since is not None:
            parts.append(f"since {self.since.isoformat()}")
        if self.until is not None:
            parts.append(f"until {self.until.isoformat()}")
        if self.reviewer:
            names = sorted({normalize("NFC", n) for n in matched}, key=sort_key) or [self.reviewer]
            parts.append("reviewer " + ", ".join(printable(n, multiline=False) for n in names))
        return "; ".join(parts)

    @staticmethod
    def day(text: str, option: str) -> date:
        """``text`` (``YYYY-MM-DD``) as a date; raises :class:`InputError` naming
        ``option`` and the form it wants."""
        try:
            return date.fromisoformat(text.strip())
        except ValueError:
            raise InputError(
                f"{option}: '{printable(text, multiline=False)}' is not a day; "
                "give it as YYYY-MM-DD (e.g. 2026-11-01)"
            ) from None


def check_reviewer(
    selection: CaseSelection | None, cases: Iterable[Reported], project_id: str
) -> None:
    """Raise :class:`InputError` when ``selection`` names a reviewer (``--reviewer``) who
    ruled none of the project's ``cases`` (an empty report would read as "no
    rulings"), naming those who did; nothing without a reviewer in it. The one check of
    :meth:`etki.services.Desk.report` and ``etki report``'s lean read path."""
    if selection is None or not selection.reviewer:
        return
    check_reviewer_names(
        selection, {c.ruling.reviewer for c in cases if c.ruling is not None}, project_id
    )


def check_reviewer_names(selection: CaseSelection, names: Iterable[str], project_id: str) -> None:
    """:func:`check_reviewer` given the ``names`` of those with a current ruling of the
    project (``etki report``'s lean read path reads them with one query)."""
    if not selection.reviewer:
        return
    who = sorted(set(names))
    if not any(selection.names(name) for name in who):
        raise InputError(
            f"--reviewer {clip(selection.reviewer)}: no reviewer of that name ruled "
            f"a case of {project_id}; reviewers with rulings: "
            + (", ".join(clip(n) for n in who) or "none yet")
        )


def _by_reviewer(counted: Iterable[tuple[str, str, bool, int]]) -> tuple[ReviewerRulings, ...]:
    """Rulings per reviewer from ``(reviewer, ruling, is override, how many)`` rows."""
    counts: dict[str, Counter[str]] = {}
    for reviewer, ruling, override, n in counted:
        seen = counts.setdefault(reviewer, Counter())
        seen[ruling] += n
        seen["override"] += n * int(override)
    return tuple(
        ReviewerRulings(
            reviewer=name,
            in_scope=c["IN_SCOPE"],
            change_request=c["CHANGE_REQUEST"],
            reject=c["REJECT"],
            overrides=c["override"],
        )
        for name, c in sorted(counts.items(), key=lambda item: sort_key(item[0]))
    )


def _cr_effort(crs: Iterable[ChangeRequest]) -> tuple[MonthEffort, ...]:
    """Change-request effort per month from ``(ruled_at, effort low, effort high, the
    reviewer's estimate)`` of each CR, summed in the order given (arrival order on both
    paths, so the sums are the same floats)."""
    months: dict[str, list[float]] = {}  # month -> [crs, estimated, low, high, reviewer's]
    for ruled_at, low, high, estimate in crs:
        month = months.setdefault(ruled_at[:7], [0, 0, 0.0, 0.0, 0])
        month[0] += 1
        if estimate is not None:  # the reviewer's figure wins over the engine's range
            month[1] += 1
            month[2] += estimate.days_value
            month[3] += estimate.days_value
            month[4] += 1
        elif low is not None and high is not None:
            month[1] += 1
            month[2] += low
            month[3] += high
    return tuple(
        MonthEffort(m, int(n), int(known), round(low, 2), round(high, 2), int(reviewer))
        for m, (n, known, low, high, reviewer) in sorted(months.items())
    )


def compute_report(
    cases: Sequence[Reported],
    known_clauses: Iterable[str],
    now: datetime,
    resolutions: Iterable[ClauseResolution] = (),
    selection: CaseSelection | None = None,
    escalate: bool = True,
) -> Report:
    """Every figure of Raporlar from the project's stored ``cases`` (full records),
    its clause refs ``known_clauses`` (where a reason may name an uncited clause,
    :func:`etki.memory.correction_clauses`), ``now`` (aware; the moment pending ages
    are measured at) and the project's dispute ``resolutions`` (oldest first, as
    :meth:`etki.services.Desk.resolutions` reads them: a disputed clause with one in
    force counts as resolved, not open). ``selection`` keeps only the cases it counts
    (:class:`CaseSelection`; the clause memory, disputes included, is then that of the
    kept rulings); ``escalate`` is ``ETKI_DISPUTED_ESCALATION`` for the overdue looks
    (:func:`overdue_looks`). Pure."""
    if selection:
        cases = [c for c in cases if selection.keeps(c)]
    ruled = [c for c in cases if c.ruling is not None]
    overrides = [c for c in ruled if c.ruling is not None and c.ruling.is_override]
    verdicts: Counter[str] = Counter(c.decision.verdict for c in cases)
    rulings: Counter[str] = Counter(c.ruling.ruling for c in ruled if c.ruling is not None)
    # the disputed clauses (the memory's rule, memory.disputes_of): what the totals and
    # the overdue looks read of the clause memory, without its per-clause counts
    disputes = {
        d.ref: d for d in memory.disputes_of((memory.ruled_row(c) for c in ruled), resolutions)
    }
    corrections = memory.corrections_by_clause(ruled, tuple(known_clauses))
    days: dict[str, list[int]] = {}
    for c in ruled:
        assert c.ruling is not None
        day = days.setdefault(c.ruling.ruled_at[:10], [0, 0])
        day[0] += 1
        day[1] += int(c.ruling.is_override)
    return Report(
        cases=len(cases),
        pending=len(cases) - len(ruled),
        ruled=len(ruled),
        verdicts=tuple((v, verdicts[v]) for v in VERDICTS),
        rulings=tuple((v, rulings[v]) for v in VERDICTS),
        overrides=len(overrides),
        override_rate=round(len(overrides) / len(ruled), 4) if ruled else 0.0,
        precedents=len(overrides),
        disputed=sum(1 for m in disputes.values() if m.open_dispute),
        disputed_resolved=sum(1 for m in disputes.values() if m.resolved),
        corrections_by_clause=tuple((ref, n) for ref, n, _ in corrections),
        correction_rules=tuple((ref, rules) for ref, _, rules in corrections),
        rulings_by_day=tuple((d, n, o) for d, (n, o) in sorted(days.items())),
        as_of=_iso(now),
        pending_age=_pending_age(cases, now),
        rulings_by_reviewer=_by_reviewer(
            (c.ruling.reviewer, c.ruling.ruling, c.ruling.is_override, 1)
            for c in ruled
            if c.ruling is not None
        ),
        cr_effort_by_month=_cr_effort(
            (c.ruling.ruled_at, c.decision.effort.low, c.decision.effort.high, c.estimate)
            for c in ruled
            if c.ruling is not None and c.ruling.ruling == "CHANGE_REQUEST"
        ),
        overdue_looks=overdue_looks(cases, now, disputes, escalate),
        selection=selection.words(c.ruling.reviewer for c in ruled if c.ruling is not None)
        if selection
        else "",
    )


class _Dispute(NamedTuple):
    """What the overdue looks read of a disputed clause (:func:`memory.risk_now`)."""

    open_dispute: bool


def _lean_disputes(read: ReportRead) -> dict[str, _Dispute]:
    """The disputed clauses of the kept rulings of ``read`` by the clause memory's rule
    (:func:`etki.memory.disputes_of`: the rulings about a clause disagree, or it has a
    resolution in force, overridden when a later ruling about it disagrees with the
    resolution), from the per-clause counts the database made and the rulings with a
    reason (what they are about is matched here, :func:`etki.memory.ruled_about`)."""
    mine = {ref: {low, high} for ref, low, high in read.agreed_about}
    newest: dict[tuple[str, str], str] = {}  # (ref, ruling) -> newest ruled_at about it
    for case in read.reasoned:
        r = case.ruling
        assert r is not None
        for ref in memory.ruled_about(
            case.decision.cited_clauses, r.reason, case.decision.deciding
        ):
            mine.setdefault(ref, set()).add(r.ruling)
            newest[ref, r.ruling] = max(newest.get((ref, r.ruling), ""), r.ruled_at)
    cited = set()
    for ref, ruling, _cited_at, about_at in read.about_resolved:
        cited.add(ref)
        if about_at is not None:
            newest[ref, ruling] = max(newest.get((ref, ruling), ""), about_at)
    in_force = memory.resolutions_in_force(read.resolutions)
    out = {ref: _Dispute(True) for ref, seen in mine.items() if len(seen) > 1}
    for ref, resolution in in_force.items():
        if ref not in cited:  # no kept ruling cites it: not in the clause memory
            out.pop(ref, None)
            continue
        overridden = any(
            at > resolution.at and ruling != resolution.verdict
            for (about, ruling), at in newest.items()
            if about == ref
        )
        out[ref] = _Dispute(overridden)
    return out


def report_of_read(
    read: ReportRead, selection: CaseSelection | None = None, escalate: bool = True
) -> Report:
    """:func:`compute_report`'s figures from ``etki report``'s lean read
    (:func:`etki.store.lean_report.report_read`, whose SQL kept only the rulings of
    ``selection``): the same value, computed from counts per day, reviewer, verdict and
    ruling and per clause instead of every ruled case. Pure."""
    pending = [c for c in read.pending if not selection or selection.keeps(c)]
    verdicts: Counter[str] = Counter(c.decision.verdict for c in pending)
    rulings: Counter[str] = Counter()
    days: dict[str, list[int]] = {}
    ruled = overrides = 0
    for day, _reviewer, verdict, ruling, n in read.tallies:
        verdicts[verdict] += n
        rulings[ruling] += n
        ruled += n
        overridden = n if ruling != verdict else 0
        overrides += overridden
        seen = days.setdefault(day, [0, 0])
        seen[0] += n
        seen[1] += overridden
    disputes = _lean_disputes(read)
    fixes = memory.corrections_by_clause(read.reasoned, read.known, read.corrected, read.counted)
    open_disputes = sum(1 for d in disputes.values() if d.open_dispute)
    return Report(
        cases=len(pending) + ruled,
        pending=len(pending),
        ruled=ruled,
        verdicts=tuple((v, verdicts[v]) for v in VERDICTS),
        rulings=tuple((v, rulings[v]) for v in VERDICTS),
        overrides=overrides,
        override_rate=round(overrides / ruled, 4) if ruled else 0.0,
        precedents=overrides,
        disputed=open_disputes,
        disputed_resolved=len(disputes) - open_disputes,
        corrections_by_clause=tuple((ref, n) for ref, n, _ in fixes),
        correction_rules=tuple((ref, rules) for ref, _, rules in fixes),
        rulings_by_day=tuple((d, n, o) for d, (n, o) in sorted(days.items())),
        as_of=_iso(read.now),
        pending_age=_pending_age(pending, read.now),
        rulings_by_reviewer=_by_reviewer(
            (reviewer, ruling, ruling != verdict, n)
            for _day, reviewer, verdict, ruling, n in read.tallies
        ),
        cr_effort_by_month=_cr_effort(read.change_requests),
        overdue_looks=overdue_looks(
            pending, read.now, cast("dict[str, DisputedClause]", disputes), escalate
        ),
        selection=selection.words(t[1] for t in read.tallies) if selection else "",
    )


# --- the same figures as tables (etki report) ---------------------------------------------

Cell = str | int | float | None


@dataclass(frozen=True)
class ReportTable:
    """One report as a table: its ``name`` (``--report NAME``, the JSON key), a
    ``title``, the ``columns`` and the ``rows`` (one value per column: text, a number or
    None for "no value"). Text cells can be untrusted (reviewer names, clause refs)."""

    name: str
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


REPORT_NAMES: tuple[str, ...] = (
    "totals",
    "engine_verdicts",
    "rulings",
    "rulings_by_day",
    "corrections",
    "pending_age",
    "rulings_by_reviewer",
    "cr_effort_by_month",
    "overdue_looks",
)
"""Every report, in the order ``etki report`` prints them (:func:`report_tables`)."""


def _share(n: int, total: int) -> float | None:
    return round(n / total, 4) if total else None


def report_tables(report: Report) -> list[ReportTable]:
    """Every report of ``report`` as a :class:`ReportTable`, in :data:`REPORT_NAMES`
    order. Shares and rates are fractions (0.25, not 25%), None when there is nothing
    to divide by; a month whose change requests carry no estimate has None as its
    effort range (not 0)."""
    rules = dict(report.correction_rules)
    return [
        ReportTable(
            "totals",
            "Totals",
            ("measure", "value"),
            (
                ("cases", report.cases),
                ("pending", report.pending),
                ("ruled", report.ruled),
                ("overrides", report.overrides),
                ("override_rate", report.override_rate if report.ruled else None),
                ("precedents", report.precedents),
                ("disputed_clauses", report.disputed),
                ("disputed_resolved", report.disputed_resolved),
                ("overdue_looks", len(report.overdue_looks)),
            ),
        ),
        ReportTable(
            "engine_verdicts",
            "Engine verdicts (all cases)",
            ("verdict", "cases", "share"),
            tuple((v, n, _share(n, report.cases)) for v, n in report.verdicts),
        ),
        ReportTable(
            "rulings",
            "Rulings (ruled cases)",
            ("ruling", "cases", "share"),
            tuple((v, n, _share(n, report.ruled)) for v, n in report.rulings),
        ),
        ReportTable(
            "rulings_by_day",
            "Rulings and overrides per day (UTC)",
            ("day", "rulings", "overrides", "override_rate"),
            tuple((d, n, o, _share(o, n)) for d, n, o in report.rulings_by_day),
        ),
        ReportTable(
            "corrections",
            "Clauses with most corrections (an override counts on the clause its "
            "reason names; else on the decisive evidence's clause; else on every "
            "clause it cites)",
            ("clause", "corrections", "by_reason", "by_evidence", "by_all_cited"),
            tuple(
                (
                    ref,
                    n,
                    dict(rules.get(ref, ())).get("reason", 0),
                    dict(rules.get(ref, ())).get("evidence", 0),
                    dict(rules.get(ref, ())).get("cited", 0),
                )
                for ref, n in report.corrections_by_clause
            ),
        ),
        ReportTable(
            "pending_age",
            f"Age of pending cases at {report.as_of} (from submitted_at when the "
            "request has one, else from created_at)",
            ("bucket", "min_days", "max_days", "cases", "from_submitted_at", "from_created_at"),
            tuple(
                (b.label, b.min_days, b.max_days, b.cases, b.from_submitted, b.from_created)
                for b in report.pending_age
            ),
        ),
        ReportTable(
            "rulings_by_reviewer",
            "Rulings per reviewer (current rulings)",
            ("reviewer", "rulings", "in_scope", "change_request", "reject", "overrides"),
            tuple(
                (r.reviewer, r.total, r.in_scope, r.change_request, r.reject, r.overrides)
                for r in report.rulings_by_reviewer
            ),
        ),
        ReportTable(
            "cr_effort_by_month",
            "Change-request effort per month of ruling (UTC; person-days: a reviewer's "
            "estimate where one exists, else the engine's range from comparable work items)",
            (
                "month",
                "change_requests",
                "estimated",
                "not_estimated",
                "low_days",
                "high_days",
                "reviewer_estimates",
            ),
            tuple(
                (
                    m.month,
                    m.crs,
                    m.estimated,
                    m.crs - m.estimated,
                    m.low if m.estimated else None,
                    m.high if m.estimated else None,
                    m.reviewer,
                )
                for m in report.cr_effort_by_month
            ),
        ),
        ReportTable(
            "overdue_looks",
            f"Overdue PMO looks (pending, asked within {LOOK_HOURS} h, waiting longer)",
            ("case", "title", "hours_waiting", "waiting", "measured_from", "raised_since_triage"),
            tuple(
                (o.case_id, o.title, o.hours, o.waiting, o.basis, "yes" if o.raised_now else "no")
                for o in report.overdue_looks
            ),
        ),
    ]


def pick(tables: Sequence[ReportTable], name: str | None) -> list[ReportTable]:
    """``tables``, or only the one named ``name``. Raises :class:`InputError` naming
    the reports there are for an unknown name."""
    if name is None:
        return list(tables)
    chosen = [t for t in tables if t.name == name]
    if not chosen:
        raise InputError(
            f"no report '{printable(name, multiline=False)}'; the reports are "
            + ", ".join(t.name for t in tables)
        )
    return chosen


def number_text(value: float) -> str:
    """A fractional figure as the text and CSV reports both print it: fixed-point, at
    most 4 decimals, no trailing zeros, so a whole number has no ``.0`` (``26``,
    ``0.25``, ``12.5``)."""
    text = f"{round(value, 4):.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def csv_cell(value: Cell) -> str | int | float:
    """One CSV cell: numbers as numbers (a whole one as an int, a fraction rounded as
    :func:`number_text` prints it, so the CSV says ``26`` and ``0.25`` as the text report
    does), None as an empty cell, text made terminal-safe (:func:`etki.text.printable`,
    one line) and guarded by :func:`etki.text.spreadsheet_safe` (``=HYPERLINK(…)`` ->
    ``'=HYPERLINK(…)``, ``;=1+1`` -> ``';=1+1``)."""
    if value is None:
        return ""
    if isinstance(value, float):
        rounded = round(value, 4)
        return int(rounded) if rounded.is_integer() else rounded
    if isinstance(value, bool | int):
        return value
    text = printable(value, multiline=False)
    if value.startswith(FORMULA_STARTS):  # a tab or CR printable turned into a space
        return "'" + text
    return spreadsheet_safe(text)


class _DecimalComma:
    """A figure with a decimal comma (``0,85``): bare, as ``QUOTE_NONNUMERIC`` leaves
    what has ``__float__``; its text :func:`number_text`'s. A figure Etki computed, not
    client text: never formula-guarded (a spreadsheet reads ``-0,5`` as a number)."""

    __slots__ = ("value",)

    def __init__(self, value: float) -> None:
        self.value = value

    def __float__(self) -> float:
        return self.value

    def __str__(self) -> str:
        return number_text(self.value).replace(".", ",")


def decimal_comma(delimiter: str) -> bool:
    """Whether CSV cells split by ``delimiter`` take a decimal comma: with ``;`` (Excel
    in tr-TR/de-DE, whose decimal mark is ``,``, reads ``0.85`` as text or a date)."""
    return delimiter == ";"


def write_csv(
    tables: Sequence[ReportTable], out: TextIO, *, sections: bool = True, delimiter: str = ","
) -> None:
    """Write ``tables`` as CSV (the stdlib writer, RFC 4180 quoting, CRLF rows; every
    text cell in double quotes, numbers bare, so a spreadsheet that splits on ``;`` or a
    tab never splits a cell: OWASP "CSV Injection", :func:`etki.text.spreadsheet_safe`).
    With ``sections`` each table is preceded by a marker row ``report,NAME,TITLE`` and
    followed by an empty row; without (one table picked by ``--report``) only the
    header row and the data rows are written, ready to open in a spreadsheet.
    ``delimiter`` ``;`` is what Excel in tr-TR and de-DE splits on (its list separator:
    the comma is their decimal mark), so with it a fraction takes a decimal comma, bare
    (``0,85``: :func:`decimal_comma`). The quoting and the guard are the same."""
    writer = csv.writer(out, quoting=csv.QUOTE_NONNUMERIC, delimiter=delimiter)
    comma = decimal_comma(delimiter)

    def cell(value: Cell) -> str | int | float | _DecimalComma:
        done = csv_cell(value)
        if comma and isinstance(done, float):
            return _DecimalComma(done)
        return done

    for index, table in enumerate(tables):
        if sections:
            if index:
                writer.writerow([])
            writer.writerow([cell(v) for v in ("report", table.name, table.title)])
        writer.writerow([cell(c) for c in table.columns])
        for row in table.rows:
            writer.writerow([cell(v) for v in row])


def tables_json(project_id: str, report: Report, tables: Sequence[ReportTable]) -> dict:
    """``etki report --format json``: ``{"project", "as_of", "selection", "reports": {NAME: {"title",
    "columns", "rows": [{column: value}]}}}``, reports in :data:`REPORT_NAMES` order.
    Values as stored (the caller escapes control characters when printing)."""
    return {
        "project": project_id,
        "as_of": report.as_of,
        "selection": report.selection,
        "reports": {
            t.name: {
                "title": t.title,
                "columns": list(t.columns),
                "rows": [dict(zip(t.columns, row, strict=True)) for row in t.rows],
            }
            for t in tables
        },
    }


def _text_cell(value: Cell) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return number_text(value)
    return printable(str(value), multiline=False)


def text_lines(tables: Sequence[ReportTable]) -> list[str]:
    """``tables`` as aligned plain-text tables: the title, the header, the rows (numbers
    right-aligned), a blank line between tables; ``(none)`` for a table without rows."""
    lines: list[str] = []
    for index, table in enumerate(tables):
        if index:
            lines.append("")
        lines.append(printable(table.title, multiline=False))
        cells = [[_text_cell(v) for v in row] for row in table.rows]
        widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(table.columns)]
        numeric = [
            all(isinstance(row[i], int | float) or row[i] is None for row in table.rows)
            for i in range(len(table.columns))
        ]
        lines.append(
            "  ".join(
                c.rjust(w) if n and table.rows else c.ljust(w)
                for c, w, n in zip(table.columns, widths, numeric, strict=True)
            ).rstrip()
        )
        for row in cells:
            lines.append(
                "  ".join(
                    c.rjust(w) if n else c.ljust(w)
                    for c, w, n in zip(row, widths, numeric, strict=True)
                ).rstrip()
            )
        if not table.rows:
            lines.append("(none)")
    return lines
