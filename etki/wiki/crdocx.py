"""The client-facing change request as a Word document (issue 35 item 1), written with
python-docx from a :class:`etki.wiki.clientcr.ClientCr`.

Every piece of text goes in as a run's text (python-docx escapes it for XML: nothing of
the client's can become markup); it is already printable and NFC-normalised, so no
control character reaches the XML and Turkish and German letters are stored composed.
The document's language is set to none in particular (the runs take the reader's), its
font one with Turkish and German glyphs (Calibri, the Word default), A4 with 20 mm
margins. The core properties carry the whole title, the author (the reviewer who ruled
the case CR) and the language (``en``: the document's own words), and no time (the
file depends only on the stored case, so an export is reproducible).
"""

from __future__ import annotations

import io
from datetime import datetime

from docx import Document
from docx.document import Document as DocxDocument
from docx.opc.coreprops import CoreProperties
from docx.shared import Mm, Pt

from etki.wiki.clientcr import SIGN_LINES, Block, ClientCr

__all__ = ["client_docx"]

_FIXED = datetime(2000, 1, 1)
"""The core properties' times: fixed, so the same case gives the same file."""


DOCUMENT_LANGUAGE = "en"
"""The core property ``dc:language`` (BCP 47): the document's own words are English; the
client's text in it (Turkish, German) keeps the reader's proofing language."""


def _core_text(props: CoreProperties, name: str, value: str) -> None:
    """Set the core property ``name`` (``title``, ``author``) to ``value`` whole.
    python-docx refuses a value over 255 characters (a limit of its own: the OPC core
    properties schema has none, and Word reads longer ones); a longer one, a request's
    long title, is written to its element directly, never cut."""
    if len(value) <= 255:
        setattr(props, name, value)
        return
    element = props._element  # noqa: SLF001 - the one way past python-docx's own limit
    tag = {"title": "get_or_add_title", "author": "get_or_add_creator"}[name]
    getattr(element, tag)().text = value


def _fields(doc: DocxDocument, pairs: tuple[tuple[str, str], ...]) -> None:
    table = doc.add_table(rows=0, cols=2)
    for label, value in pairs:
        row = table.add_row().cells
        run = row[0].paragraphs[0].add_run(label)
        run.bold = True
        row[1].paragraphs[0].add_run(value)


def _quote(doc: DocxDocument, text: str) -> None:
    para = doc.add_paragraph(style="Quote")
    lines = text.split("\n")
    for i, line in enumerate(lines):
        run = para.add_run(line)
        if i < len(lines) - 1:
            run.add_break()


def _blocks(doc: DocxDocument, blocks: tuple[Block, ...]) -> None:
    for b in blocks:
        if b.kind == "para":
            doc.add_paragraph(b.text)
        elif b.kind == "quote":
            _quote(doc, b.text)
        elif b.kind == "items":
            for item in b.items:
                doc.add_paragraph(item, style="List Bullet")
        elif b.kind == "fields":
            _fields(doc, b.pairs)
        elif b.kind == "heading":
            doc.add_heading(b.text, level=3)
        elif b.kind == "sign":
            doc.add_heading(b.text, level=3)
            for name in SIGN_LINES:
                doc.add_paragraph(f"{name}: " + "_" * 40)


def client_docx(cr: ClientCr) -> bytes:
    """The document as .docx bytes (see the module docstring): the title, the cover
    fields as a two-column table, each section a level-2 heading with its blocks
    (quotes in Word's Quote style, line breaks kept; lists bulleted), the internal
    appendix, when the document has one, on a page of its own."""
    doc = Document()
    section = doc.sections[0]
    section.page_width, section.page_height = Mm(210), Mm(297)
    for side in ("left_margin", "right_margin", "top_margin", "bottom_margin"):
        setattr(section, side, Mm(20))
    normal = doc.styles["Normal"].font
    normal.name = "Calibri"
    normal.size = Pt(11)
    props = doc.core_properties
    title = f"Change request {cr.ident}: {cr.title}"
    _core_text(props, "title", title)
    _core_text(props, "author", cr.author)
    props.last_modified_by = cr.author
    props.language = DOCUMENT_LANGUAGE
    props.created = props.modified = _FIXED
    props.revision = 1
    doc.add_heading(title, level=1)
    _fields(doc, cr.fields)
    for part in cr.sections:
        doc.add_heading(part.title, level=2)
        _blocks(doc, part.blocks)
    for i, part in enumerate(cr.internal):
        if i == 0:
            doc.add_page_break()
        doc.add_heading(part.title, level=2)
        _blocks(doc, part.blocks)
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()
