"""One contract document end to end (part of :mod:`etki.knowledge.contracts`):
:func:`parse_contract` reads the file, :func:`parse_contract_text` runs the parts
(frontmatter, sections, clauses) and returns the :class:`~etki.domain.Contract`.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from etki.domain import Contract
from etki.errors import ProjectFormatError
from etki.knowledge.contracts.clauses import (
    _apply_status,
    _Builder,
    _by_heading,
    _pool_candidates,
    _sliding_window,
)
from etki.knowledge.contracts.sections import (
    _assign_parents,
    _fold_subheadings,
    _is_pool,
    _Parser,
    _set_ends,
)
from etki.knowledge.vocabulary import (
    DEFAULT_VOCABULARY,
    EdgeVocabulary,
)


def parse_contract_text(
    text: str,
    *,
    path: str,
    source: str | None = None,
    vocabulary: EdgeVocabulary = DEFAULT_VOCABULARY,
    module_ids: Collection[str] = (),
    workitem_ids: Collection[str] = (),
) -> Contract:
    """Parse one contract document.

    ``path`` names the file in errors; ``source`` is recorded on the contract and its
    clauses (the loader passes ``contracts/<name>.md``, so the index holds no absolute
    path); ``module_ids`` / ``workitem_ids`` let bare wikilinks (``[[auth]]``) resolve.
    Returns a :class:`Contract` whose ``id`` is frontmatter ``id`` or the file stem,
    whose ``chunking`` is ``by_heading`` or ``sliding_window`` (with the analyser's
    ``chunking_metrics``) and whose ``candidates`` hold its candidate edges.

    Raises ProjectFormatError (file, line, field) for malformed frontmatter, a bad id,
    kind, status, edges or candidates, or a document with no text;
    :class:`UnknownEdgeTypeError` (both a ProjectFormatError and a VocabularyError) for
    an edge type the vocabulary lacks.
    """
    source = source if source is not None else Path(path).name
    parser = _Parser(text, path, source, vocabulary, module_ids, workitem_ids)
    cid = parser.contract_id()
    meta_kind = parser.meta_kind()
    meta_title = parser.meta_title()
    meta_links = parser.meta_edges(cid)
    status, clause_status = parser.meta_status()
    candidates = parser.meta_candidates(cid)
    found = parser.starts()
    _set_ends(found, len(parser.lines))
    pool = [s for s in found if _is_pool(s)]
    # the analyser judges the document's heading structure as written, before folding
    structure = parser.structure([s for s in found if s not in pool], pool)
    found = _fold_subheadings(found, parser.first_line)
    _set_ends(found, len(parser.lines))
    starts = [s for s in found if s not in pool]
    _assign_parents(starts)
    top = min((s.level for s in starts), default=1)
    doc_heading = (
        starts[0].heading
        if starts
        and [s.level for s in starts].count(top) == 1
        and starts[0].level == top
        and starts[0].number is None
        else None
    )
    title = meta_title or doc_heading or cid
    builder = _Builder(parser, cid, meta_title, meta_kind, meta_links)
    if structure.usable:
        parser.assign_links(starts, cid)
        clauses = _by_heading(parser, builder, starts)
    else:
        clauses = _sliding_window(parser, builder, pool)
    if not clauses:
        raise ProjectFormatError(path, "the contract has no text to make clauses from")
    clauses = _apply_status(clauses, status, clause_status, path)
    metrics = dict(structure.metrics)
    metrics["chunked_clauses"] = float(sum(1 for c in clauses if c.chunks))
    metrics["chunks"] = float(sum(len(c.chunks) for c in clauses))
    if not structure.usable:
        metrics["windows"] = float(len(clauses))
    return Contract(
        id=cid,
        title=title,
        source=source,
        clauses=tuple(clauses),
        chunking=structure.strategy,
        chunking_metrics=tuple(sorted(metrics.items())),
        candidates=tuple(candidates + _pool_candidates(parser, pool, cid)),
        fallbacks=tuple(f"{source}:{f.line}: {f.message}" for f in parser.fallbacks),
    )


def parse_contract(
    path: str | Path,
    *,
    source: str | None = None,
    vocabulary: EdgeVocabulary = DEFAULT_VOCABULARY,
    module_ids: Collection[str] = (),
    workitem_ids: Collection[str] = (),
) -> Contract:
    """Read ``path`` (UTF-8, BOM and CRLF accepted) and :func:`parse_contract_text` it.

    Raises ProjectFormatError when the file cannot be read or is not UTF-8 (with the line
    of the first bad byte).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ProjectFormatError(str(path), f"cannot read contract: {exc}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ProjectFormatError(str(path), "not UTF-8 text", line=line) from exc
    if "\x00" in text:  # PostgreSQL cannot store it; no reader can show it
        line = text[: text.index("\x00")].count("\n") + 1
        raise ProjectFormatError(
            str(path), "holds a NUL character: not text Etki can store; remove it", line=line
        )
    return parse_contract_text(
        text,
        path=str(path),
        source=source,
        vocabulary=vocabulary,
        module_ids=module_ids,
        workitem_ids=workitem_ids,
    )
