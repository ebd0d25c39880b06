"""The client-facing change request (issue 35 item 1): the document a PMO sends, built
from the stored case and project (no clock, no file system) as one
:class:`ClientCr` value, then written as Markdown (:func:`client_markdown`), print-ready
HTML (:func:`client_html`) or Word (:func:`etki.wiki.crdocx.client_docx`).

What it says, in order: the request as received (the client's text, literal), the scope
gap in the reviewer's words (their ruling reason), the contract clauses the request was
read against (their text: those the PMO chose, else the decision's, none when the
engine read them as covering the work, :attr:`etki.domain.CaseRecord.cr_clauses`), the
impacted modules, effort and price (the reviewer's
estimate in force, :attr:`etki.domain.CaseRecord.estimate`; said plainly when there is
none), the PMO's assumptions and exclusions and the validity date
(:attr:`etki.domain.CaseRecord.cr_terms`, ``etki cr edit``) and an approval block with
signature and date lines for the client and the supplier.

What it leaves out: the engine's deliberation (its verdict and confidence, its
reasoning, the deciding evidence lines with their retrieval scores, its effort range
and version). That goes into an internal appendix only when asked for (``internal``),
headed as not for the client.

Every piece of text is made printable and NFC-normalised (:func:`etki.text.printable`:
control characters visible, NFD input composed, so ``s`` + U+0327 is ``ş`` in every
format); each renderer escapes it for its format.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from etki.domain import CaseRecord, Project, is_declared_remit
from etki.domain.evidence import whole_sentences
from etki.mdtext.literal import md_inline
from etki.mdtext.plain import markdown_plain
from etki.text import printable
from etki.wiki.model import WikiModel
from etki.wiki.pages.cr import DECIDING_STEPS
from etki.wiki.paths import cr_id, cr_number, has_cr_page

__all__ = [
    "Block",
    "ClientCr",
    "Section",
    "build_client_cr",
    "client_html",
    "client_markdown",
]


def _t(text: str) -> str:
    """Untrusted text made printable (NFC, control characters visible), lines kept."""
    return printable(text).strip()


def _line(text: str) -> str:
    """Untrusted text as one printable line, runs of white space one space."""
    return " ".join(printable(text, multiline=False).split())


def _day(text: str) -> str:
    """When a request was sent, as a client reads it: the day of an ISO-8601 time as
    written, its own offset kept (``2024-11-18T07:42:00Z`` -> ``2024-11-18``; a PMO
    trial of issue 35 read the raw timestamp); anything else as given, one line."""
    from datetime import datetime

    try:
        return datetime.fromisoformat(text.strip()).date().isoformat()
    except ValueError:
        return _line(text)


@dataclass(frozen=True)
class Block:
    """One block of a section: ``kind`` ``para`` (``text``, the document's own words
    around untrusted pieces already made printable), ``quote`` (``text``: untrusted text
    shown literally, its lines kept), ``items`` (a bulleted list of ``items``),
    ``fields`` (label/value pairs in ``pairs``), ``heading`` (a sub-heading ``text``)
    or ``sign`` (signature lines for the party ``text``)."""

    kind: str
    text: str = ""
    items: tuple[str, ...] = ()
    pairs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Section:
    """A titled section of the document."""

    title: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class ClientCr:
    """The whole client-facing change request: ``ident`` (the client's number,
    :func:`etki.wiki.paths.cr_number`: ``CR-20261207-148197aa``),
    ``title`` (the request's title), the cover ``fields`` (label/value), the
    ``sections`` the client reads and the ``internal`` sections (empty unless the
    appendix was asked for), the ``author`` (the reviewer who ruled it CR). Every text is printable and NFC-normalised; renderers
    escape it."""

    ident: str
    title: str
    fields: tuple[tuple[str, str], ...]
    sections: tuple[Section, ...]
    internal: tuple[Section, ...] = field(default=())
    author: str = ""
    """Who prepared it: the reviewer whose ruling made the case a change request."""


NO_ESTIMATE = "Not estimated yet: the effort and the price are to be agreed."
"""What the document says when no reviewer's estimate is in force."""


NO_CLAUSE_CITED = "This change request cites no clause of the contract."
"""What the document says when it cites no clause because the engine read its clauses
as covering the work and the PMO chose none (:attr:`etki.domain.CaseRecord.cr_clauses`):
one plain line for the client, nothing of the engine's reading."""

NO_CLAUSE_DESCRIBES = "No clause of the contract describes this work."
"""What the document says when the decision of an agreed change request cites no
clause (the engine found none describing the work)."""


def _clauses(m: WikiModel, case: CaseRecord) -> list[Block]:
    refs = case.cr_clauses
    if not refs:
        none_found = not case.engine_read_covering and not case.decision.cited_clauses
        return [Block("para", NO_CLAUSE_DESCRIBES if none_found else NO_CLAUSE_CITED)]
    out = [Block("para", "The request was read against these clauses of the contract:")]
    for ref in refs:
        clause = m.clauses.get(ref)
        out.append(Block("heading", _line(m.clause_label(ref))))
        if clause is None:
            out.append(Block("para", "This clause is not in the current contract."))
            continue
        text = clause.text if is_declared_remit(clause) else markdown_plain(clause.text)
        out.append(Block("quote", _t(text)) if text.strip() else Block("para", "(no text)"))
    return out


def _effort(case: CaseRecord) -> list[Block]:
    est = case.estimate
    if est is None:
        return [Block("para", NO_ESTIMATE)]
    pairs = [("Effort", f"{_line(est.days_words())} (person-days)")]
    price = est.price_shown()  # 86,500.00 TRY: grouped, the currency's minor units
    pairs.append(("Price", _line(price) if price else "Not quoted: to be agreed."))
    pairs.append(("Estimated by", f"{_line(est.actor)} on {_line(est.at[:10])}"))
    return [Block("fields", pairs=tuple(pairs))]


def _internal(m: WikiModel, case: CaseRecord) -> tuple[Section, ...]:
    """The engine's deliberation, for the PMO's eyes only."""
    d = case.decision
    r = case.ruling
    assert r is not None
    pairs = [
        ("Internal id", _line(cr_id(case))),  # the wiki's change-requests/ page
        ("Engine verdict", f"{_line(d.verdict)} (confidence {d.confidence:.2f})"),
        ("Ruling", f"{_line(r.ruling)} by {_line(r.reviewer)} at {_line(r.ruled_at)}"),
        ("Overrides the engine", "yes" if r.is_override else "no"),
        ("Engine effort range", _line(d.effort.shown()) if d.effort.known else "unknown"),
        ("Engine version", _line(d.engine_version)),
        ("Model version", _line(d.model_version)),
        ("Index freshness", _line(d.index_freshness)),
    ]
    blocks = [
        Block(
            "para", "Not for the client: the engine's reading of the contract, kept for the record."
        ),
        Block("fields", pairs=tuple(pairs)),
    ]
    if case.estimate is not None:
        blocks += [
            Block("heading", "Basis of the estimate"),
            Block("quote", _t(case.estimate.reason)),
        ]
    if d.reasoning.strip():
        blocks += [Block("heading", "Engine reasoning"), Block("quote", _t(d.reasoning))]
    steps = [e for e in d.evidence if e.step in DECIDING_STEPS]
    if steps:
        blocks += [
            Block("heading", "Deciding evidence lines"),
            Block("items", items=tuple(f"{_line(e.step)}: {_line(e.detail)}" for e in steps)),
        ]
    if d.assumptions:
        blocks += [
            Block("heading", "Engine assumptions"),
            Block("items", items=tuple(_line(a) for a in d.assumptions)),
        ]
    return (Section("Internal appendix (not for the client)", tuple(blocks)),)


TITLE_MAX_CHARS = 240
"""The longest title a change request derives from an untitled request's text
(:func:`document_title`): a first sentence longer than this is cut at a word."""

_INITIAL = re.compile(r"(?:^|[\s(])\w\.(?:\w\.)*$")
"""A piece ending in an initial or a dotted abbreviation (``e.g.``, ``U.S.``,
``z.B.``): no sentence ends there."""


def first_sentence(text: str) -> str:
    """The first sentence of ``text``'s first line, whitespace runs made single spaces:
    the line cut by :func:`etki.domain.evidence.whole_sentences` (after ``.``, ``!`` or
    ``?`` and a space), a cut kept only where the next piece begins with a capital letter
    and the piece before does not end in an initial or dotted abbreviation (``e.g.``,
    ``U.S.``); a number such as ``4.2`` has no space and is never cut. Returns ``""``
    for blank text. Letters are never changed (Turkish ``İ``/``ı`` kept)."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    pieces = whole_sentences(line)
    if not pieces:
        return ""
    sentence = pieces[0]
    for piece in pieces[1:]:
        if piece[:1].isupper() and not _INITIAL.search(sentence):
            break
        sentence = f"{sentence} {piece}"
    return sentence


def document_title(case: CaseRecord) -> str:
    """The title the client-facing change request carries (its heading, the .docx
    title property): the request's own title whole; for an untitled request (the case
    stores its text's first line, cut to 80 characters with ``…`` when longer,
    :func:`etki.store.repository.rows.title_of`) the first sentence of its text
    (:func:`first_sentence`): a PMO trial read "…İK iş…" cut where the stored title
    stopped, and another read all three sentences of a short untitled request as its
    heading. A sentence over :data:`TITLE_MAX_CHARS` characters is cut at its last
    space before that, ending ``…``."""
    title = case.title.strip()
    first = case.text.strip().splitlines()[0].strip() if case.text.strip() else ""
    cut = title.endswith("…") and first.startswith(title[:-1].rstrip()) and first != title
    if not (cut or (first and title == first)):
        return title
    sentence = first_sentence(first) or title
    if len(sentence) <= TITLE_MAX_CHARS:
        return sentence
    head = sentence[:TITLE_MAX_CHARS]
    space = head.rfind(" ")
    return (head[:space] if space > 0 else head[: TITLE_MAX_CHARS - 1]).rstrip() + "…"


def build_client_cr(project: Project, case: CaseRecord, *, internal: bool = False) -> ClientCr:
    """The client-facing change request of ``case`` (ruled CHANGE_REQUEST) in
    ``project`` (see the module docstring); with ``internal``, the appendix of the
    engine's deliberation too. Raises ``ValueError`` for a case not ruled
    CHANGE_REQUEST."""
    if not has_cr_page(case):
        raise ValueError(f"case {case.case_id} is not ruled CHANGE_REQUEST: it has no CR")
    r = case.ruling
    assert r is not None
    m = WikiModel(project)
    terms = case.cr_terms
    ident = cr_number(case)  # short: CR-20261207-148197aa, not the wiki page's long name
    title = _line(document_title(case)) or _line(case.case_id)
    fields = [
        ("Change request", _line(ident)),
        ("Project", f"{_line(project.config.name)} ({_line(project.id)})"),
        ("Request", f"{_line(case.request_id)} (case {_line(case.case_id)})"),
    ]
    if case.submitted_by:
        fields.append(("Requested by", _line(case.submitted_by)))
    if case.submitted_at:
        fields.append(("Requested on", _day(case.submitted_at)))
    fields += [
        ("Prepared by", f"{_line(r.reviewer)} on {_line(r.ruled_at[:10])}"),
        ("Valid until", _line(terms.valid_until) if terms and terms.valid_until else "not set"),
    ]
    request = [Block("para", "The request as received:"), Block("quote", _t(case.text))]
    if r.reason.strip():
        gap = [
            Block("para", "Why this work is outside the agreed scope:"),
            Block("quote", _t(r.reason)),
        ]
    else:
        gap = [Block("para", "This work is not part of the agreed scope of the contract.")]
    modules = [
        _line(f"{mod} — {m.modules[mod].summary}")
        if mod in m.modules and m.modules[mod].summary
        else _line(mod)
        for mod in case.cr_modules  # the PMO's choice, else the decision's
    ]
    assumptions = terms.assumptions if terms else ()
    exclusions = terms.exclusions if terms else ()
    validity = (
        f"This change request is valid until {_line(terms.valid_until)}."
        if terms and terms.valid_until
        else "No validity date is set."
    )
    sections = (
        Section("Request", tuple(request)),
        Section("Scope gap", tuple(gap)),
        Section("Contract clauses", tuple(_clauses(m, case))),
        Section(
            "Impacted modules",
            (Block("items", items=tuple(modules)),) if modules else (Block("para", "None named."),),
        ),
        Section("Effort and price", tuple(_effort(case))),
        Section(
            "Assumptions",
            (Block("items", items=tuple(_line(a) for a in assumptions)),)
            if assumptions
            else (Block("para", "None stated."),),
        ),
        Section(
            "Exclusions",
            (Block("items", items=tuple(_line(x) for x in exclusions)),)
            if exclusions
            else (Block("para", "None stated."),),
        ),
        Section("Validity", (Block("para", validity),)),
        Section(
            "Approval",
            (
                Block(
                    "para",
                    "By signing, the client approves this change request with the effort, "
                    "price, assumptions and exclusions above.",
                ),
                Block("sign", "For the client"),
                Block("sign", "For the supplier"),
            ),
        ),
    )
    return ClientCr(
        ident=_line(ident),
        title=title,
        fields=tuple(fields),
        sections=sections,
        internal=_internal(m, case) if internal else (),
        author=_line(r.reviewer),
    )


SIGN_LINES = ("Name", "Title", "Signature", "Date")
"""The lines of a signature block, each followed by a blank to fill in."""


# --- Markdown -----------------------------------------------------------------------------


def _md_quote(text: str) -> list[str]:
    return [f"> {md_inline(line)}" if line.strip() else ">" for line in text.split("\n")]


def _md_blocks(blocks: tuple[Block, ...]) -> list[str]:
    out: list[str] = []
    for b in blocks:
        if b.kind == "para":
            out += [md_inline(b.text), ""]
        elif b.kind == "quote":
            out += [*_md_quote(b.text), ""]
        elif b.kind == "items":
            out += [*(f"- {md_inline(i)}" for i in b.items), ""]
        elif b.kind == "fields":
            out += [*(f"- **{md_inline(k)}:** {md_inline(v)}" for k, v in b.pairs), ""]
        elif b.kind == "heading":
            out += [f"### {md_inline(b.text)}", ""]
        elif b.kind == "sign":
            out += [f"**{md_inline(b.text)}**", ""]
            out += [f"{name}: ______________________________  " for name in SIGN_LINES]
            out.append("")
    return out


def client_markdown(doc: ClientCr) -> bytes:
    """The document as Markdown (UTF-8, LF): every piece of untrusted text escaped
    (:func:`etki.mdtext.literal.md_inline`), quotes as block quotes line by line."""
    lines = [f"# Change request {md_inline(doc.ident)}: {md_inline(doc.title)}", ""]
    lines += [*(f"- **{md_inline(k)}:** {md_inline(v)}" for k, v in doc.fields), ""]
    for section in (*doc.sections, *doc.internal):
        lines += [f"## {md_inline(section.title)}", "", *_md_blocks(section.blocks)]
    return ("\n".join(lines).rstrip("\n") + "\n").encode("utf-8")


# --- HTML -----------------------------------------------------------------------------------

CSS = (
    "@page{size:A4;margin:20mm}"
    "body{font-family:'Segoe UI','Noto Sans','DejaVu Sans',Arial,sans-serif;line-height:1.45;"
    "max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}"
    "h1{font-size:1.5rem;margin-bottom:.5rem}"
    "h2{font-size:1.15rem;border-bottom:1px solid #ccc;padding-bottom:.15rem;margin-top:1.6rem;"
    "break-after:avoid}h3{font-size:1rem;break-after:avoid}"
    "dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem}"
    "dl.fields dt{font-weight:600}dl.fields dd{margin:0}"
    "blockquote{margin:.5rem 0;padding:.4rem .8rem;border-left:3px solid #999;"
    "background:#f6f6f6;white-space:pre-wrap;overflow-wrap:anywhere}"
    ".signs{display:flex;gap:2rem;margin-top:1rem;break-inside:avoid}"
    ".sign{flex:1}.sign p{margin:1.2rem 0 0;border-bottom:1px solid #333;padding-bottom:.1rem}"
    ".internal{border-top:3px double #b00;margin-top:2.5rem;break-before:page}"
    "@media print{body{margin:0;max-width:none}}"
)
"""The document's whole style sheet (inline: the file stands alone; A4 print margins)."""

_CSP = "default-src 'none'; style-src 'unsafe-inline'"


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _html_fields(pairs: tuple[tuple[str, str], ...]) -> str:
    rows = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in pairs)
    return f'<dl class="fields">{rows}</dl>'


def _html_blocks(blocks: tuple[Block, ...]) -> list[str]:
    out: list[str] = []
    signs: list[str] = []
    for b in blocks:
        if b.kind == "sign":
            lines = "".join(f"<p>{_e(n)}:</p>" for n in SIGN_LINES)
            signs.append(f'<div class="sign"><h3>{_e(b.text)}</h3>{lines}</div>')
            continue
        if b.kind == "para":
            out.append(f"<p>{_e(b.text)}</p>")
        elif b.kind == "quote":
            out.append(f"<blockquote>{_e(b.text)}</blockquote>")
        elif b.kind == "items":
            out.append("<ul>" + "".join(f"<li>{_e(i)}</li>" for i in b.items) + "</ul>")
        elif b.kind == "fields":
            out.append(_html_fields(b.pairs))
        elif b.kind == "heading":
            out.append(f"<h3>{_e(b.text)}</h3>")
    if signs:
        out.append('<div class="signs">' + "".join(signs) + "</div>")
    return out


def client_html(doc: ClientCr) -> bytes:
    """The document as a standalone, print-ready HTML5 file (UTF-8): every piece of text
    escaped with :func:`html.escape` (nothing of the client's can become a tag, an
    attribute or a link), an inline style sheet with A4 print margins, no script, no
    external resource, a Content-Security-Policy that allows none."""
    title = f"Change request {doc.ident}: {doc.title}"
    body = [f"<h1>{_e(title)}</h1>", _html_fields(doc.fields)]
    for section in doc.sections:
        body += [f"<section><h2>{_e(section.title)}</h2>", *_html_blocks(section.blocks)]
        body.append("</section>")
    for section in doc.internal:
        body += [f'<section class="internal"><h2>{_e(section.title)}</h2>']
        body += [*_html_blocks(section.blocks), "</section>"]
    text = (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n'
        "<head>\n"
        '<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="etki cr export">\n'
        f"<title>{_e(title)}</title>\n"
        f"<style>{CSS}</style>\n"
        "</head>\n"
        "<body>\n"
        "<article>\n" + "\n".join(body) + "\n</article>\n</body>\n</html>\n"
    )
    return text.encode("utf-8")
