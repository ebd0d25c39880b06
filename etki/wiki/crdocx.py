"""The client-facing change request as a Word document (issue 35 item 1), written with
python-docx from a :class:`etki.wiki.clientcr.ClientCr`.

Every piece of text goes in as a run's text (python-docx escapes it for XML: nothing of
the client's can become markup); it is already printable and NFC-normalised, so no
control character reaches the XML and Turkish and German letters are stored composed.
The document's language is set to none in particular (the runs take the reader's), its
font one with Turkish and German glyphs (Calibri, the Word default), A4 with 20 mm
margins. The core properties carry the title and no author or time (the file depends
only on the stored case, so an export is reproducible).
"""

from __future__ import annotations

import io
from datetime import datetime

from docx import Document
from docx.document import Document as DocxDocument
from docx.shared import Mm, Pt

from etki.wiki.clientcr import SIGN_LINES, Block, ClientCr

__all__ = ["client_docx"]

_FIXED = datetime(2000, 1, 1)
"""The core properties' times: fixed, so the same case gives the same file."""


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
    props.title = f"Change request {cr.ident}: {cr.title}"
    props.author = ""
    props.last_modified_by = ""
    props.created = props.modified = _FIXED
    props.revision = 1
    doc.add_heading(props.title, level=1)
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
