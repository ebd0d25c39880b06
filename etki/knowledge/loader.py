"""The project-folder loader (DESIGN.md, "Project folder").

::

    <project>/
      etki.yaml             id, name, languages, reviewers [{name, role}], scope?
      contracts/*.md        scope documents (at least one)
      modules.yaml|json     [{id, path, summary, depends_on, language}] or {modules: [...]}
      workitems.yaml|json   [{id, title, kind, date, modules, effort_days}] or {workitems: [...]}
      requests.jsonl        {"id", "text", "title"?, "submitted_by"?, "submitted_at"?, "labels"?}
      edge_vocabulary.yaml  optional extra edge types and aliases
      edges.yaml            optional accepted links {edges: [{source, target, type}]}

Everything is validated before a :class:`etki.domain.Project` is built, so a malformed
file raises :class:`etki.errors.ProjectFormatError` naming the file, the line (from the
YAML mark, ``json.JSONDecodeError.lineno`` or the jsonl line number) and the field
(``modules[3].depends_on[0]``, ``reviewers[0].role``) and nothing is returned half-loaded.

Decisions taken here:

* Only ``id`` and ``name`` of ``etki.yaml`` are required; ``languages`` defaults to
  ``[en]``, ``reviewers`` to empty. Unknown keys are an error (a typo such as
  ``reviwers`` would otherwise silently leave a project without approvers).
* ``thresholds`` is refused with its line (:data:`THRESHOLDS_REFUSED`; issue 30 item 7):
  it was validated and stored but never read, so ``pmo_look_hours: 48`` still showed a
  24h look and ``in_scope_min_score: 0.99`` changed no verdict. The engine's settings
  belong to the engine version (set leave-one-engagement-out, docs/EVAL.md) and cannot
  come from one project's file without changing the engine; the 24h PMO look and the
  effort neighbours are the engine's too.
  Reviewer names are kept in NFC with surrounding white space stripped, case as written
  (:func:`etki.identity.reviewer_name`), so an NFD and an NFC spelling of one name are
  the same reviewer (and listing both is "listed twice").
* Module and work-item records may carry more fields than Etki reads (the real data has
  ``areas``, ``files_changed``, ``source``); those are ignored. A wrapper object may carry
  ``source`` and count fields next to the list.
* ``depends_on`` naming an unknown module, a module depending on itself and a work item
  naming an unknown module are errors (the real ``tdrs`` data has none of them).
* File order is kept for modules, work items, requests and clauses; ids must be unique.
* A request's ``labels`` are stored as JSON with sorted keys; a top-level ``borderline``
  flag (the real data's way of marking debatable labels) is kept inside them.
* ``requests.jsonl`` is the one exception to "nothing half-loaded": a row that cannot be
  stored — malformed JSON, not an object, a NUL or other unstorable text, no id or an id
  an earlier row took, no text, a field of the wrong type, or a field (``text``,
  ``title``, ``submitted_by``, ``submitted_at``, ``labels`` as stored) longer than
  ``max_request_chars`` characters (``ETKI_MAX_REQUEST_CHARS``, default
  :data:`etki.config.DEFAULT_MAX_REQUEST_CHARS`) — is *refused* alone: left out of
  ``Project.requests``, with one message naming the file, the line, the field and what
  is wrong in ``Project.refused``, while every other row loads (one client's bad row
  never keeps the other requests out; ``etki init`` stores the good rows and exits 2).
* ``edges.yaml`` (:mod:`etki.knowledge.edgesfile`) holds links a person accepted; they
  become ``Project.edges`` (provenance ``mapped``); whether their ends exist is decided
  by the index build, which reports the ones that do not.
* The **declared remit** (``scope: {in: [...], out: [...]}`` in ``etki.yaml``, DESIGN.md
  "Triage engine"): each statement becomes a clause of its own contract
  :data:`etki.domain.REMIT_CONTRACT_ID` (``etki.yaml``), placed after the contract
  documents, clauses in file order: ref ``etki.yaml#in-1`` / ``etki.yaml#out-1``
  (numbered 1, 2, ... per list, in file order), kind ``inclusion`` for ``in`` and
  ``exclusion`` for ``out``, title ``Declared remit (out) 1``, text the statement
  (surrounding white space stripped, otherwise as written: it is plain text, so no
  wikilink, markup or HTML in it is ever read as such), source ``etki.yaml``, line the
  YAML line of the item. ``scope`` must be a mapping with only ``in`` and ``out``, each a
  list of non-empty strings of at most :data:`MAX_REMIT_CHARS` characters; the same
  statement twice, or in both lists, is an error. The contract id ``etki.yaml`` is
  reserved: no contract document may take it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from etki.config import DEFAULT_MAX_REQUEST_CHARS
from etki.domain import (
    REMIT_CONTRACT_ID,
    Contract,
    Module,
    Project,
    ProjectConfig,
    Request,
    Reviewer,
    ScopeClause,
    WorkItem,
)
from etki.errors import ProjectFormatError
from etki.frontmatter import (
    UNSTORABLE_PROBLEM,
    CoreSafeLoader,
    locate,
    unstorable_path,
)
from etki.identity import reviewer_name
from etki.knowledge.contracts import parse_contract
from etki.knowledge.edgesfile import EDGES_FILE, load_edges
from etki.knowledge.sourcefile import (
    _DuplicateKey,
    _field_name,
    _Fields,
    _no_duplicates,
    _number,
    _Source,
    _type_name,
)
from etki.knowledge.vocabulary import DEFAULT_VOCABULARY, EdgeVocabulary, load_vocabulary

__all__ = ["load_project", "read_requests_jsonl", "request_from_mapping"]

CONFIG_KEYS = ("id", "name", "languages", "reviewers", "description", "scope")
THRESHOLDS_REFUSED = (
    "is no longer part of etki.yaml: no threshold in it was ever read. The "
    "triage settings (in_scope_min_score, exclusion_margin, confidence_floor) belong to the "
    "engine version and are set across engagements (docs/EVAL.md), the PMO look is 24h and "
    "the effort range uses the engine's comparable work items; remove the 'thresholds' block"
)
"""The error for a ``thresholds`` key in ``etki.yaml`` (see the module docstring)."""
REMIT_KEYS = ("in", "out")
REMIT_KINDS = {"in": "inclusion", "out": "exclusion"}
MAX_REMIT_CHARS = 500
"""Most characters (after NFC normalisation, so NFD input is not charged for its
combining marks) of one declared-remit statement. A remit statement is one or two
sentences a reviewer reads at a glance beside the verdict ("the public website's content
is a separate application"): 500 characters is about four sentences of twenty words.
Anything longer is contract text and belongs in a ``contracts/*.md`` document, where it
is structured, chunked and cited by section."""
REVIEWER_ROLES = ("approver", "viewer")
_PROJECT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")


# --- etki.yaml ------------------------------------------------------------------------


def _load_config(root: Path) -> tuple[ProjectConfig, Contract | None]:
    """``etki.yaml`` as its settings and the declared remit (None when it has no
    ``scope``, or only empty lists)."""
    path = root / "etki.yaml"
    if not path.is_file():
        raise ProjectFormatError(
            str(path),
            "etki.yaml is required in a project folder (id, name, languages, reviewers, scope)",
        )
    src = _Source(path, "yaml")
    data = src.parse()
    if data is None:
        raise ProjectFormatError(src.where, "is empty; it needs at least 'id' and 'name'", line=1)
    rec = _Fields(src, data, [])
    for key in data:
        if key == "thresholds":
            at = re.search(r"^thresholds[ \t]*:", src.text, re.M)
            line = src.text.count("\n", 0, at.start()) + 1 if at else None
            raise ProjectFormatError(
                src.where, THRESHOLDS_REFUSED, line=line or locate(src.text, [key]), field=key
            )
        if key not in CONFIG_KEYS:
            raise rec.fail(str(key), f"unknown key; allowed keys: {', '.join(CONFIG_KEYS)}")
    project_id = rec.string("id", required=True) or ""
    if not _PROJECT_ID.fullmatch(project_id):
        raise rec.fail(
            "id",
            f"project id {project_id!r} must be letters, digits, '-', '_' "
            "or '.', starting with a letter or digit",
        )
    name = (rec.string("name", required=True) or "").strip()
    languages = [x.strip() for x in rec.string_list("languages", ["en"])]
    if not languages:
        raise rec.fail("languages", "must name at least one language")
    reviewers = _reviewers(src, data.get("reviewers"))
    remit = _remit(src, data.get("scope"))
    return ProjectConfig(
        id=project_id,
        name=name,
        languages=tuple(languages),
        reviewers=reviewers,
    ), remit


def _statement_key(text: str) -> str:
    """What makes two remit statements the same: NFC, case-folded, white space runs as
    one space (``İ``/``i``, ``ß``/``ss`` and NFD/NFC spellings compare equal)."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


def _remit(src: _Source, value: Any) -> Contract | None:
    """The ``scope`` block of ``etki.yaml`` as the declared-remit contract (module
    docstring), or None when nothing is declared. Raises ProjectFormatError naming
    ``etki.yaml``, the line and the field (``scope.out[2]``) for a malformed block."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise src.error(
            f"must be a mapping with 'in' and/or 'out' lists of statements, "
            f"not {_type_name(value)}",
            ["scope"],
            "scope",
        )
    for key in value:
        if key not in REMIT_KEYS:
            raise src.error(
                f"unknown key; allowed keys: {', '.join(REMIT_KEYS)}",
                ["scope", str(key)],
                f"scope.{key}",
            )
    found: list[tuple[int, ScopeClause]] = []
    seen: dict[str, str] = {}
    for side in REMIT_KEYS:
        items = value.get(side)
        if items is None:
            continue
        if not isinstance(items, list):
            raise src.error(
                f"must be a list of statements (one '- ...' item each), not {_type_name(items)}",
                ["scope", side],
                f"scope.{side}",
            )
        lines = _record_lines(src, ["scope", side], len(items))
        for i, item in enumerate(items):
            number = f"{side}-{i + 1}"
            keys: list[str | int] = ["scope", side, i]
            field = f"scope.{side}[{i}]"
            if not isinstance(item, str) or not item.strip():
                what = "" if item is None or isinstance(item, str) else f", not {_type_name(item)}"
                raise src.error(
                    f"must be a non-empty string{what} (statement {number})", keys, field
                )
            text = item.strip()
            size = len(unicodedata.normalize("NFC", text))
            if size > MAX_REMIT_CHARS:
                raise src.error(
                    f"statement {number} is {size} characters; at most "
                    f"{MAX_REMIT_CHARS}: a remit statement is a sentence or "
                    "two, longer text belongs in a contracts/*.md document",
                    keys,
                    field,
                )
            key = _statement_key(text)
            if key in seen:
                raise src.error(
                    f"statement {number} repeats {seen[key]}"
                    + (
                        " (declared both in and out of scope)"
                        if not seen[key].startswith(side + "-")
                        else ""
                    ),
                    keys,
                    field,
                )
            seen[key] = number
            found.append(
                (
                    lines[i],
                    ScopeClause(
                        ref=f"{REMIT_CONTRACT_ID}#{number}",
                        contract_id=REMIT_CONTRACT_ID,
                        number=number,
                        title=f"Declared remit ({side}) {i + 1}",
                        text=text,
                        kind=REMIT_KINDS[side],  # type: ignore[arg-type]  # ClauseKind names
                        level=1,
                        source="etki.yaml",
                        line=lines[i],
                    ),
                )
            )
    if not found:
        return None
    clauses = tuple(c for _, c in sorted(found, key=lambda x: x[0]))
    return Contract(
        id=REMIT_CONTRACT_ID,
        title="Declared remit",
        source="etki.yaml",
        clauses=clauses,
        chunking="declared",
    )


def _reviewers(src: _Source, value: Any) -> tuple[Reviewer, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise src.error(
            f"must be a list of {{name, role}}, not {_type_name(value)}", ["reviewers"], "reviewers"
        )
    out: list[Reviewer] = []
    names: set[str] = set()
    for i, item in enumerate(value):
        rec = _Fields(src, item, ["reviewers", i])
        # NFC, ends stripped, case kept: the form rulings compare (etki.identity)
        name = reviewer_name(rec.string("name", required=True) or "")
        role = rec.string("role", default="approver")
        if role not in REVIEWER_ROLES:
            raise rec.fail("role", f"role {role!r} is not one of {', '.join(REVIEWER_ROLES)}")
        if name in names:
            raise rec.fail("name", f"reviewer {name!r} is listed twice")
        names.add(name)
        out.append(Reviewer(name=name, role=role))  # type: ignore[arg-type]  # checked above
    return tuple(out)


# --- modules and work items -----------------------------------------------------------


def _data_file(root: Path, stem: str) -> _Source | None:
    found = [
        root / f"{stem}.{ext}"
        for ext in ("yaml", "yml", "json")
        if (root / f"{stem}.{ext}").is_file()
    ]
    if len(found) > 1:
        raise ProjectFormatError(
            str(found[1]),
            f"only one {stem} file may exist; found " + ", ".join(p.name for p in found),
        )
    if not found:
        return None
    return _Source(found[0], "json" if found[0].suffix == ".json" else "yaml")


def _records(src: _Source, key: str) -> tuple[list[Any], list[str | int]]:
    """The list of records of a data file: a plain list, or ``{key: [...], ...}``."""
    data = src.parse()
    if data is None:
        return [], []
    if isinstance(data, list):
        return data, []
    if isinstance(data, dict):
        if key not in data:
            raise src.error(f"a mapping here must hold the list under '{key}'", [], key)
        items = data[key]
        if items is None:
            return [], [key]
        if not isinstance(items, list):
            raise src.error(f"must be a list, not {_type_name(items)}", [key], key)
        return items, [key]
    raise src.error(f"must be a list of records or a mapping with '{key}'", [], "(top level)")


def _record_lines(src: _Source, base: list[str | int], count: int) -> list[int]:
    """1-based file line of each of the ``count`` records under ``base`` (one compose of
    the file; 0 when it cannot be told)."""
    try:
        node = yaml.compose(src.text, Loader=CoreSafeLoader)  # noqa: S506 - safe loader
    except yaml.YAMLError:
        node = None
    for key in base:
        if not isinstance(node, yaml.MappingNode):
            node = None
            break
        node = next((v for k, v in node.value if getattr(k, "value", None) == key), None)
    if not isinstance(node, yaml.SequenceNode):
        return [0] * count
    lines = [child.start_mark.line + 1 for child in node.value]
    return (lines + [0] * count)[:count]


_FOLDED = "\x00"


def _case_twin(ident: str, known) -> str | None:
    """An id in ``known`` equal to ``ident`` but for letter case (and Unicode
    normalisation), as case-insensitive file systems compare names; else None."""
    key = unicodedata.normalize("NFC", ident).casefold()
    return next(
        (k for k in known if k != ident and unicodedata.normalize("NFC", k).casefold() == key), None
    )


def _unique_id(rec: _Fields, seen: dict[str, int], index: int, what: str) -> str:
    value = rec.string("id", required=True) or ""
    ident = value.strip()
    if ident != value or any(ch.isspace() for ch in ident):
        raise rec.fail("id", f"{what} id {value!r} may not contain spaces")
    if ident in seen:
        raise rec.fail("id", f"duplicate {what} id {ident!r} (first at index {seen[ident]})")
    folded = _FOLDED + unicodedata.normalize("NFC", ident).casefold()
    if folded in seen:  # seen also holds folded keys (no id can start with NUL)
        twin = _case_twin(ident, [k for k in seen if not k.startswith(_FOLDED)]) or "?"
        raise rec.fail(
            "id",
            f"{what} id {ident!r} differs from {twin!r} (index "
            f"{seen[folded]}) only in letter case; their wiki pages would be one "
            "file on a case-insensitive file system",
        )
    seen[ident] = seen[folded] = index
    return ident


def _load_modules(root: Path) -> tuple[Module, ...]:
    src = _data_file(root, "modules")
    if src is None:
        return ()
    items, base = _records(src, "modules")
    lines = _record_lines(src, base, len(items))
    seen: dict[str, int] = {}
    modules: list[tuple[Module, _Fields]] = []
    for i, item in enumerate(items):
        keys = base + [i]
        rec = _Fields(src, item, keys, f"modules[{i}]")
        ident = _unique_id(rec, seen, i, "module")
        depends = list(dict.fromkeys(rec.string_list("depends_on")))
        modules.append(
            (
                Module(
                    id=ident,
                    path=rec.string("path", default="") or "",
                    summary=rec.string("summary", default="") or "",
                    depends_on=tuple(depends),
                    language=rec.string("language"),
                    location=f"{src.path.name}:{lines[i]}",
                ),
                rec,
            )
        )
    for module, rec in modules:
        for j, dep in enumerate(rec.string_list("depends_on")):
            where = rec.keys + ["depends_on", j]
            if dep == module.id:
                raise src.error(
                    f"module {module.id!r} depends on itself", where, rec.field("depends_on", j)
                )
            if dep not in seen:
                raise src.error(
                    f"depends_on names unknown module {dep!r}", where, rec.field("depends_on", j)
                )
    return tuple(m for m, _ in modules)


def _load_workitems(root: Path, module_ids: set[str]) -> tuple[WorkItem, ...]:
    src = _data_file(root, "workitems")
    if src is None:
        return ()
    items, base = _records(src, "workitems")
    lines = _record_lines(src, base, len(items))
    seen: dict[str, int] = {}
    out: list[WorkItem] = []
    for i, item in enumerate(items):
        keys = base + [i]
        rec = _Fields(src, item, keys, f"workitems[{i}]")
        ident = _unique_id(rec, seen, i, "work item")
        title = (rec.string("title", required=True) or "").strip()
        kind = (rec.string("kind", default="feature") or "feature").strip()
        date = rec.record.get("date")
        if date is not None and not isinstance(date, str):
            raise rec.fail("date", "must be a string such as 2024-03-01")
        listed = rec.string_list("modules")
        for j, mod in enumerate(listed):
            if mod not in module_ids:
                hint = "" if module_ids else " (the project has no modules file)"
                raise src.error(
                    f"names unknown module {mod!r}{hint}",
                    keys + ["modules", j],
                    rec.field("modules", j),
                )
        mods = list(dict.fromkeys(listed))
        effort = rec.record.get("effort_days")
        if effort is not None and (not _number(effort) or effort < 0):
            raise rec.fail(
                "effort_days", f"must be a non-negative number of person-days, not {effort!r}"
            )
        out.append(
            WorkItem(
                id=ident,
                title=title,
                kind=kind,
                date=date or "",
                modules=tuple(mods),
                effort_days=None if effort is None else float(effort),
                location=f"{src.path.name}:{lines[i]}",
            )
        )
    return tuple(out)


# --- contracts ------------------------------------------------------------------------


def _load_contracts(
    root: Path, vocabulary: EdgeVocabulary, module_ids: set[str], workitem_ids: set[str]
) -> tuple[Contract, ...]:
    folder = root / "contracts"
    files = sorted(p for p in folder.glob("*.md") if p.is_file()) if folder.is_dir() else []
    if not files:
        raise ProjectFormatError(
            str(folder), "no contracts: at least one contracts/*.md scope document is required"
        )
    contracts: list[Contract] = []
    owners: dict[str, Path] = {}
    for path in files:
        contract = parse_contract(
            path,
            source=f"contracts/{path.name}",
            vocabulary=vocabulary,
            module_ids=module_ids,
            workitem_ids=workitem_ids,
        )
        if _case_twin(contract.id, [REMIT_CONTRACT_ID]) or contract.id == REMIT_CONTRACT_ID:
            raise ProjectFormatError(
                str(path),
                f"contract id {contract.id!r} is reserved "
                "for the declared remit (the scope statements of "
                "etki.yaml); give this document another id",
                field="id",
            )
        if contract.id in owners:
            raise ProjectFormatError(
                str(path),
                f"contract id {contract.id!r} is already used by {owners[contract.id].name}",
                field="id",
            )
        twin = _case_twin(contract.id, owners)
        if twin is not None:
            raise ProjectFormatError(
                str(path),
                f"contract id {contract.id!r} differs from "
                f"{twin!r} ({owners[twin].name}) only in letter case; "
                "their wiki pages would be one file on a "
                "case-insensitive file system",
                field="id",
            )
        owners[contract.id] = path
        contracts.append(contract)
    return tuple(contracts)


# --- requests.jsonl -------------------------------------------------------------------

_REQUEST_STRINGS = ("title", "submitted_by", "submitted_at")


def _too_long(fields: dict[str, str | None], max_chars: int) -> tuple[str, int] | None:
    """(field, characters) of the first field longer than ``max_chars``, else None."""
    for key, value in fields.items():
        if value is not None and len(value) > max_chars:
            return key, len(value)
    return None


def _load_requests(
    root: Path,
    max_chars: int = DEFAULT_MAX_REQUEST_CHARS,
) -> tuple[tuple[Request, ...], tuple[str, ...]]:
    """(requests, refused messages) of the folder's ``requests.jsonl`` (module
    docstring); no file: no requests."""
    path = root / "requests.jsonl"
    if not path.is_file():
        return (), ()
    return read_requests_jsonl(path, max_chars)


def read_requests_jsonl(
    path: Path, max_chars: int = DEFAULT_MAX_REQUEST_CHARS
) -> tuple[tuple[Request, ...], tuple[str, ...]]:
    """(requests, refused messages) of a JSON Lines file of requests: a row that is
    malformed or cannot be stored (:func:`request_from_mapping`) is left out with one
    message naming the file, its line and field; every other row loads, in file order.
    Raises :class:`ProjectFormatError` only for a file that cannot be read or is not
    UTF-8."""
    src = _Source(path, "jsonl")
    out: list[Request] = []
    refused: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(src.text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            try:
                data = json.loads(line, object_pairs_hook=_no_duplicates)
            except json.JSONDecodeError as exc:
                raise ProjectFormatError(
                    src.where, f"malformed JSON: {exc.msg} (column {exc.colno})", line=number
                ) from exc
            except _DuplicateKey as exc:
                raise ProjectFormatError(
                    src.where, f"duplicate key {exc.args[0]!r}", line=number
                ) from exc
            request = request_from_mapping(src.where, number, data, seen, max_chars)
        except ProjectFormatError as exc:
            refused.append(str(exc))
            continue
        seen[request.id] = number
        out.append(request)
    return tuple(out), tuple(refused)


def request_from_mapping(
    where: str, number: int | None, data: object, seen: Mapping[str, int], max_chars: int
) -> Request:
    """The request of one record ``data`` (a JSON object, a CSV row as a dict) found at
    line ``number`` of ``where`` (None: ``where`` names the record itself): ``id`` and ``text`` required, ``title``,
    ``submitted_by``, ``submitted_at`` strings, ``labels`` / ``borderline`` as in
    ``requests.jsonl``. Raises :class:`ProjectFormatError` (``where``, the line, the
    field; the problem does not repeat the field's name: ``new.csv:3: field 'text' is
    empty; ...``) when the record cannot be stored: not an object, a NUL or other unstorable
    text, no id or an id taken by an earlier accepted record (``seen``: id -> line), no
    text, a field of the wrong type, or a field longer than ``max_chars`` characters."""

    def fail(problem: str, field: str | None = None) -> ProjectFormatError:
        return ProjectFormatError(where, problem, line=number, field=field)

    if not isinstance(data, dict):
        raise fail(f"each line must be a JSON object, not {_type_name(data)}")
    bad = unstorable_path(data)
    if bad is not None:
        raise fail(UNSTORABLE_PROBLEM, _field_name(bad))
    ident = data.get("id")
    if not isinstance(ident, str) or not ident.strip():
        raise fail("is required and must be a non-empty string", "id")
    if ident in seen:
        raise fail(f"duplicate request id {ident!r} (first on line {seen[ident]})", "id")
    text = data.get("text")
    if not isinstance(text, str):
        raise fail("is required and must be a string", "text")
    if not text.strip():
        raise fail("is empty; a request needs its client text", "text")
    fields: dict[str, str | None] = {}
    for key in _REQUEST_STRINGS:
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            raise fail(f"must be a string, not {_type_name(value)}", key)
        fields[key] = value
    labels = _labels(data, fail)
    big = _too_long({"id": ident, "text": text, **fields, "labels": labels}, max_chars)
    if big is not None:
        name = repr(ident) if len(ident) <= 80 else repr(ident[:60]) + "…"
        raise fail(
            f"request {name} is {big[1]:,} characters; at most {max_chars:,} "
            "(ETKI_MAX_REQUEST_CHARS): refused, not triaged or stored; shorten it "
            "(attach the rest elsewhere) and load it again",
            big[0],
        )
    return Request(id=ident, text=text, labels_json=labels, line=number or 0, **fields)


def _labels(data: dict[str, Any], fail: Callable[..., Exception]) -> str | None:
    labels = data.get("labels")
    if "borderline" in data:
        if not isinstance(data["borderline"], bool):
            raise fail("must be true or false", "borderline")
        if labels is None:
            labels = {}
        if not isinstance(labels, dict):
            raise fail("must be an object when 'borderline' is given", "labels")
        labels = {**labels, "borderline": data["borderline"]}
    if labels is None:
        return None
    return json.dumps(labels, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


# --- the project ----------------------------------------------------------------------


def load_project(
    path: str | Path, *, max_request_chars: int = DEFAULT_MAX_REQUEST_CHARS
) -> Project:
    """Load and validate the project folder at ``path`` (format: DESIGN.md "Project
    folder"; rules: this module's docstring).

    ``max_request_chars``: most characters of one field of a request row
    (``Settings.max_request_chars``, ``ETKI_MAX_REQUEST_CHARS``); longer rows are left out
    and named in ``Project.refused``.

    Returns a frozen :class:`etki.domain.Project` whose ``root`` is the folder as given,
    ``contracts`` are sorted by file name and followed by the declared remit of
    ``etki.yaml`` when it has one (contract id ``etki.yaml``), ``edge_types`` are the vocabulary's
    (alias, canonical) pairs and ``edges`` the accepted links of ``edges.yaml``. Raises ProjectFormatError (file, line, field) for any
    malformed or missing required file; nothing half-loaded is ever returned.
    """
    root = Path(path)
    if not root.is_dir():
        raise ProjectFormatError(str(root), "not a project folder (no such directory)")
    config, remit = _load_config(root)
    vocab_path = root / "edge_vocabulary.yaml"
    vocabulary = load_vocabulary(vocab_path) if vocab_path.is_file() else DEFAULT_VOCABULARY
    modules = _load_modules(root)
    module_ids = {m.id for m in modules}
    workitems = _load_workitems(root, module_ids)
    contracts = _load_contracts(root, vocabulary, module_ids, {w.id for w in workitems})
    if remit is not None:
        contracts += (remit,)
    requests, refused = _load_requests(root, max_request_chars)
    edges_path = root / EDGES_FILE
    edges = load_edges(edges_path, vocabulary) if edges_path.is_file() else ()
    return Project(
        config=config,
        root=root,
        contracts=contracts,
        modules=modules,
        workitems=workitems,
        requests=requests,
        edge_types=vocabulary.pairs(),
        edges=edges,
        refused=refused,
    )
