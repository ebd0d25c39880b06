"""The inputs of ``etki eval triage``: labelled rows and the engagements they are
evaluated on (the module docstring of :mod:`etki.evaluation.triage` says which sources
are read and the row format). :func:`resolve_sources` turns the command's inputs into
:class:`Engagement` values, rows loaded; nothing here triages or scores.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from etki.domain import VERDICTS, Project
from etki.errors import InputError
from etki.evaluation.metrics import norm_number
from etki.text import printable

__all__ = ["Engagement", "LabelledRow", "load_rows", "realdata_folders", "resolve_sources"]

REPO = Path(__file__).resolve().parents[2]


# --- labelled rows ----------------------------------------------------------------------


@dataclass(frozen=True)
class LabelledRow:
    """One labelled request: ``where`` is ``file:line``; ``clauses`` and ``modules`` as
    labelled (strings)."""

    id: str
    text: str
    title: str | None
    verdict: str
    clauses: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    borderline: bool = False
    where: str = ""


def _str_list(value: Any, where: str, name: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(
        isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value
    ):
        raise InputError(f"{where}: field '{name}' must be a list of strings")
    return tuple(str(v) for v in value)


def load_rows(path: str | Path) -> tuple[list[LabelledRow], int]:
    """The labelled rows of a JSON-lines file and the number of rows skipped for having
    no ``labels.verdict``. Raises :class:`InputError` naming ``file:line`` for a missing
    file, malformed JSON, a duplicate id, a row without text, an unknown verdict or a
    malformed ``labels`` field."""
    from etki.retrieval.evaluate import json_rows

    p = Path(path)
    rows: list[LabelledRow] = []
    skipped = 0
    seen: dict[str, int] = {}
    for n, data in json_rows(p):
        where = f"{p}:{n}"
        labels = data.get("labels")
        if labels is None:
            labels = {}
        if not isinstance(labels, dict):
            raise InputError(f"{where}: field 'labels' must be an object")
        verdict = labels.get("verdict")
        if verdict is None:
            skipped += 1
            continue
        if verdict not in VERDICTS:
            raise InputError(
                f"{where}: field 'labels.verdict': unknown verdict "
                f"{printable(repr(verdict), multiline=False)}; use one of "
                f"{', '.join(VERDICTS)}"
            )
        text = data.get("text")
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{where}: field 'text' is required and must be a non-empty string")
        title = data.get("title")
        if title is not None and not isinstance(title, str):
            raise InputError(f"{where}: field 'title' must be a string")
        rid = data.get("id")
        if rid is not None and not (isinstance(rid, str) and rid.strip()):
            raise InputError(f"{where}: field 'id' must be a non-empty string")
        rid = rid if isinstance(rid, str) else f"line {n}"
        if rid in seen:
            raise InputError(
                f"{where}: duplicate id {printable(rid, multiline=False)!r} "
                f"(first on line {seen[rid]})"
            )
        seen[rid] = n
        borderline = data.get("borderline", labels.get("borderline", False))
        if not isinstance(borderline, bool):
            raise InputError(f"{where}: field 'borderline' must be true or false")
        rows.append(
            LabelledRow(
                rid,
                text,
                title,
                verdict,
                _str_list(labels.get("clauses"), where, "labels.clauses"),
                _str_list(labels.get("modules"), where, "labels.modules"),
                borderline,
                where,
            )
        )
    return rows, skipped


# --- where the engagements come from ----------------------------------------------------


@dataclass
class Engagement:
    """One engagement to evaluate: ``id`` (project id), ``where`` (folder path or
    ``stored project ID``), ``files`` read, ``rows``, ``skipped`` rows without a verdict
    label, and what an engine needs: ``project``, ``index`` (a
    :class:`etki.knowledge.KnowledgeIndex`), clause ``memory`` and the ``embedder`` of
    ``ETKI_EMBED`` (None: lexical only; :func:`etki.services.embedder_for`)."""

    id: str
    where: str
    project: Project
    index: Any
    memory: Mapping[str, Any] = field(default_factory=dict)
    embedder: Any = None
    files: list[str] = field(default_factory=list)
    rows: list[LabelledRow] = field(default_factory=list)
    skipped: int = 0

    def clause_numbers(self) -> dict[str, tuple[str, ...]]:
        """Clause ref -> its normalised number and aliases, from the index."""
        out: dict[str, tuple[str, ...]] = {}
        for node in self.index.nodes_of("clause"):
            ref = str(node.get("ref") or node.id.removeprefix("clause:"))
            nums = [str(node.get("number") or "")] + [str(a) for a in node.get("aliases") or ()]
            out[ref] = tuple(dict.fromkeys(n for n in map(norm_number, nums) if n))
        return out


def realdata_folders(settings_dir: str | None) -> list[Path]:
    """Project folders of ``--all-realdata``: each folder with an ``etki.yaml`` directly
    under the real-data folder (``settings_dir`` = ``ETKI_REALDATA_DIR``, else the
    nearest ``shared/realdata`` above the repository, then above the working
    directory), sorted by name, then ``sample_project/`` of the repository. Raises
    :class:`InputError` when no real-data folder is found or it holds no project."""
    if settings_dir:
        base = Path(settings_dir)
        if not base.is_dir():
            raise InputError(f"ETKI_REALDATA_DIR={settings_dir}: no such folder")
    else:
        candidates = [
            a / "shared" / "realdata"
            for start in (REPO, Path.cwd().resolve())
            for a in (start, *start.parents)
        ]
        found = [c for c in candidates if c.is_dir()]
        if not found:
            raise InputError(
                "--all-realdata: no shared/realdata folder above the "
                f"repository ({REPO}); set ETKI_REALDATA_DIR"
            )
        base = found[0]
    folders = sorted(
        (d for d in base.iterdir() if (d / "etki.yaml").is_file()), key=lambda d: d.name
    )
    if not folders:
        raise InputError(f"{base}: no project folder (a folder with etki.yaml) in it")
    sample = REPO / "sample_project"
    if (sample / "etki.yaml").is_file():
        folders.append(sample)
    return folders


def _is_project(folder: Path) -> bool:
    return (folder / "etki.yaml").is_file()


def resolve_sources(
    inputs: Sequence[str],
    *,
    project: str | None,
    all_realdata: bool,
    realdata_dir: str | None,
    stored: Callable[[str], tuple[Project, Any, Mapping[str, Any]]],
) -> list[Engagement]:
    """Engagements for the command's inputs (see the module docstring), rows loaded.

    ``stored(project_id)`` returns ``(project, index, clause memory)`` of a stored
    project (it raises ``NotFoundError`` for an unknown id). Raises :class:`InputError`
    for a path that is neither a project folder nor a file, a file outside a project
    folder without ``--project``, one id from two places, or an engagement whose files
    hold no row with ``labels.verdict``."""
    from etki.knowledge import build_index, load_project

    plan: list[tuple[str, Path]] = []  # (source key, labelled file)
    if all_realdata:
        plan += [(str(f.resolve()), f / "requests.jsonl") for f in realdata_folders(realdata_dir)]
    project_key: str | None = None
    if project is not None:
        project_key = (
            str(Path(project).resolve()) if _is_project(Path(project)) else "stored:" + project
        )
    for raw in inputs:
        p = Path(raw)
        if p.is_dir():
            if not _is_project(p):
                raise InputError(f"{p}: not a project folder (no etki.yaml in it)")
            plan.append((str(p.resolve()), p / "requests.jsonl"))
        elif p.is_file():
            if project_key is not None:
                plan.append((project_key, p))
            elif _is_project(p.parent):
                plan.append((str(p.parent.resolve()), p))
            else:
                raise InputError(
                    f"{p}: not inside a project folder; give --project ID "
                    "(a stored project) or a project folder"
                )
        else:
            raise InputError(f"{p}: no such file or folder")
    if not plan:
        raise InputError("eval triage: give a labelled file, a project folder or --all-realdata")
    by_key: dict[str, Engagement] = {}
    owner: dict[str, str] = {}
    for key, path in plan:
        eng = by_key.get(key)
        if eng is None:
            if key.startswith("stored:"):
                proj, index, memory = stored(key.removeprefix("stored:"))
                where = f"stored project {proj.id}"
            else:
                proj = load_project(key)
                index, memory, where = build_index(proj), {}, key
            if proj.id in owner:
                raise InputError(
                    f"two engagements with project id {proj.id!r}: {owner[proj.id]} and {where}"
                )
            owner[proj.id] = where
            eng = by_key[key] = Engagement(proj.id, where, proj, index, memory)
        resolved = str(path.resolve()) if path.exists() else str(path)
        if resolved in {str(Path(f).resolve()) for f in eng.files}:
            continue
        rows, skipped = load_rows(path)
        eng.files.append(str(path))
        eng.rows.extend(rows)
        eng.skipped += skipped
    for eng in by_key.values():
        if not eng.rows:
            raise InputError(f"{', '.join(eng.files)}: no row has labels.verdict")
    return list(by_key.values())
