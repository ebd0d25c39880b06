"""``X`` on a change request (issue 35 item 1): the form before its document is
written. The PMO's terms the document states — assumptions and exclusions (one a line),
the contract clauses it cites (ticked in a list: those cited now first, then the ones
the engine's decision cites, marked, then the project's other clauses, as ``etki cr
edit --clause`` chooses any of them) and the date the offer is valid until — start as
those in force and are recorded, when changed, as ``etki cr edit`` records them (:meth:`etki.services.Desk.set_cr_terms`:
audited, in the case's history); the format (Word, HTML, Markdown: the file's ending
follows the choice); whether to add the internal appendix (``etki cr export
--internal``: the engine's deliberation, not for the client); and the file. Export checks
the terms as the command does (:func:`etki.domain.parse_cr_terms`, a validity date
before today refused) and the file's ending, saying what is wrong on the form, which
stays open; it closes with :class:`CrExportInput`, and the app's worker records the
terms and writes the document. Escape closes the form; with terms edited it asks first
(:class:`etki_tui.screens.new_request.DiscardTyped`)."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.segment import Segment
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import (
    Button,
    Checkbox,
    Footer,
    Input,
    Label,
    RadioSet,
    SelectionList,
    TextArea,
)
from textual.widgets.selection_list import Selection

from etki.domain import CrTerms, ScopeClause, parse_cr_terms
from etki.errors import EtkiError, InputError
from etki.text import printable
from etki_tui.actions import bindings
from etki_tui.glyphs import TICKED, UNTICKED
from etki_tui.inputs import TypingInput
from etki_tui.live import part
from etki_tui.screens.new_request import DiscardTyped
from etki_tui.toggles import MarkedCheckbox, MarkedRadioButton

FORMATS = (("docx", ".docx", "Word"), ("html", ".html", "HTML"), ("md", ".md", "Markdown"))
"""The formats offered: (format, file ending, the name on its button), Word first (a PMO
sends Word or PDF; the HTML prints to PDF)."""

_ENDINGS = {".docx": "docx", ".html": "html", ".htm": "html", ".md": "md", ".markdown": "md"}


@dataclass(frozen=True)
class CrExportInput:
    """What the form gives back: the ``path`` to write (its ending the format's),
    ``internal`` (add the internal appendix) and ``terms``: the new terms to record
    (the whole set, checked), or None when they were left as they were."""

    path: str
    internal: bool
    terms: CrTerms | None


def _lines(text: str) -> list[str]:
    """The non-empty lines of a text box, each one term."""
    return [line.strip() for line in text.splitlines() if line.strip()]


ENGINE_MARK = " · engine"
"""The mark of a clause the engine's decision cites (an agreed change request cites
them by default)."""

COVERING_MARK = " · engine read as covering"
"""The mark of a clause the engine cited for an IN_SCOPE proposal: it read the clause
as covering the work, so a change request does not cite it unless the PMO ticks it
(:attr:`etki.domain.CaseRecord.cr_clauses`)."""


def clause_options(
    cited: Sequence[str],
    engine: Sequence[str],
    known: Mapping[str, ScopeClause],
    *,
    covering: bool = False,
) -> list[Selection[str]]:
    """The clause list of the form: the refs ``cited`` now (ticked, in their order),
    then those of ``engine`` (the decision's cited clauses) not among them, then every
    other clause of ``known`` (ref -> clause, contract order). Each reads ``REF
    title``, the engine's ``REF · engine · title`` (:data:`ENGINE_MARK`), or ``REF ·
    engine read as covering · title`` when ``covering`` (the engine proposed
    IN_SCOPE, :data:`COVERING_MARK`): the mark before the title, which a narrow form
    cuts; a ref the contract no longer has says so. Client text is shown literally."""
    refs = list(dict.fromkeys([*cited, *engine, *known]))
    out: list[Selection[str]] = []
    for ref in refs:
        label = Text(printable(ref, multiline=False), style="bold", end="")
        if ref in engine:  # before the title: a long title is cut, never the mark
            label.append(COVERING_MARK if covering else ENGINE_MARK, style="dim")
            label.append(" ·")
        clause = known.get(ref)
        title = clause.title if clause is not None else "(not in the current contract)"
        label.append(" " + printable(title, multiline=False))
        out.append(Selection(label, ref, ref in cited))
    return out


class TickList(SelectionList[str]):
    """A :class:`SelectionList` whose boxes say without colour whether they are
    ticked: :data:`~etki_tui.glyphs.TICKED` in a ticked one, blank otherwise (Textual
    draws the same ``X`` in both and only colours them apart, a PMO trial of issue 35
    read with NO_COLOR)."""

    def render_line(self, y: int) -> Strip:
        """The line Textual draws, its box's inner cell the tick or a blank."""
        line = super().render_line(y)
        index = self.scroll_offset.y + y
        if not 0 <= index < self.option_count:
            return line
        segments = list(line)
        if len(segments) < 2:
            return line
        ticked = self.get_option_at_index(index).value in self.selected
        inner = segments[1]
        segments[1] = Segment(TICKED if ticked else UNTICKED, inner.style, inner.control)
        return Strip(segments, line.cell_length)


def clauses_title(ticked: bool) -> str:
    """The clause list's title: what Space does, and "none yet" while none is ticked
    (it follows the ticks: a trial saw "none yet" stay after one was ticked)."""
    if ticked:
        return "Clauses it cites (Space: tick or untick)"
    return "Clauses it cites: none yet (Space: tick)"


class CrExportForm(ModalScreen[CrExportInput | None]):
    """The form for ``case_id``; ``default`` the file name it starts with (in the
    working directory, its ending picks the format selected first), ``terms`` those in
    force (None: none yet), ``today`` the desk's day ``YYYY-MM-DD`` (a validity date
    before it is refused, as by ``etki cr edit``), ``engine`` the clause refs the
    case's decision cites, ``cited`` those the document cites now
    (:attr:`etki.domain.CaseRecord.cr_clauses`; None: the terms' choice, else
    ``engine``), ``covering`` whether the engine read its clauses as covering the work
    (it proposed IN_SCOPE: they are marked so, and unticked unless chosen) and ``known``
    the project's clauses (ref -> clause, contract order) to choose from. Fits 80x24
    whole: the two term boxes side by side, the buttons beside the appendix box, the
    hint in the frame's bottom edge. It opens on the assumptions box: the first field
    of the form and the first a PMO writes (the clauses are preset to what the
    document should cite, the file to the document's own name), so Tab walks the
    form top to bottom from there."""

    BINDINGS = bindings("crexport.cancel")

    DEFAULT_CSS = """
    CrExportForm { align: center middle; }
    #crx-dialog {
        width: 76; max-width: 100%; height: auto; max-height: 100%;
        border: thick $primary; border-title-align: left; background: $surface;
        padding: 0 1; overflow-y: auto;
    }
    #crx-dialog { border-subtitle-align: left; border-subtitle-color: $text-muted; }
    #crx-terms { height: auto; }
    #crx-assumptions, #crx-exclusions { height: 5; width: 1fr; }
    #crx-assumptions, #crx-exclusions, #crx-clauses, #crx-valid, #crx-path, #crx-format {
        border-title-align: left; border-title-color: $text-muted;
    }
    #crx-clauses { height: auto; max-height: 6; }
    #crx-row { height: auto; }
    #crx-valid { width: 18; }
    #crx-format { layout: horizontal; width: 1fr; height: auto; }
    #crx-error { width: 100%; color: $error; text-style: bold; height: auto; min-height: 1; }
    #crx-buttons { height: auto; }
    #crx-internal { border: none; height: 1; padding: 0; margin: 1 0 0 1; width: 1fr; }
    #crx-internal:ansi { border-left: blank; margin-left: 0; }
    #crx-internal:ansi:focus { border-left: heavy $border; }
    #crx-buttons Button { margin-left: 2; min-width: 10; }
    """

    def __init__(
        self,
        case_id: str,
        default: str,
        terms: CrTerms | None,
        today: str,
        *,
        engine: Sequence[str] = (),
        cited: Sequence[str] | None = None,
        covering: bool = False,
        known: Mapping[str, ScopeClause] | None = None,
        cursor_blink: bool = True,
    ) -> None:
        super().__init__()
        self.case_id = case_id
        self.default = default
        self.terms = terms or CrTerms()
        self.today = today
        self.engine = tuple(engine)
        self.known = dict(known or {})
        self.covering = covering
        if cited is None:
            cited = self.engine if self.terms.clauses is None else self.terms.clauses
        self.cited = tuple(cited)
        """The refs the document cites now (the terms' choice, else the default)."""
        self._cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        """The terms (assumptions and exclusions side by side, the clauses cited, the
        validity date), the format, the file, the error line, the appendix box beside
        the buttons, and the hint in the frame."""
        with Vertical(id="crx-dialog") as dialog:
            dialog.border_title = (
                f"Change request of {printable(self.case_id, multiline=False)} to send"
            )
            dialog.border_subtitle = (
                "Changed terms are recorded (audited) · Export: write it · Esc: cancel"
            )
            with Horizontal(id="crx-terms"):
                for ident, title, items in (
                    ("crx-assumptions", "Assumptions (one a line)", self.terms.assumptions),
                    ("crx-exclusions", "Exclusions (one a line)", self.terms.exclusions),
                ):
                    # with terms, a new empty last line to type the next one on (a
                    # trial typed onto the last term's end: "…sağlarYeni varsayım");
                    # empty lines are not terms (:func:`_lines`), so it is never saved
                    text = "\n".join(items) + ("\n" if items else "")
                    box = TextArea(text, id=ident, soft_wrap=True)
                    box.cursor_blink = self._cursor_blink
                    box.border_title = title
                    yield box
            clauses = TickList(
                *clause_options(self.cited, self.engine, self.known, covering=self.covering),
                id="crx-clauses",
            )
            clauses.border_title = clauses_title(bool(self.cited))
            yield clauses
            with Horizontal(id="crx-row"):
                valid = TypingInput(
                    self.terms.valid_until or "", placeholder="YYYY-MM-DD", id="crx-valid"
                )
                valid.cursor_blink = self._cursor_blink
                valid.border_title = "Valid until"
                yield valid
                with RadioSet(id="crx-format") as formats:
                    formats.border_title = "Format"
                    ending = Path(self.default).suffix.lower()
                    first = _ENDINGS.get(ending, FORMATS[0][0])
                    for fmt, _suffix, name in FORMATS:
                        yield MarkedRadioButton(name, value=first == fmt, name=fmt)
            path = TypingInput(self.default, placeholder="CR.docx", id="crx-path")
            path.cursor_blink = self._cursor_blink
            path.border_title = "File"
            yield path
            yield Label("", id="crx-error", markup=False)
            with Horizontal(id="crx-buttons"):
                yield MarkedCheckbox("Internal appendix (not for the client)", id="crx-internal")
                yield Button("Cancel", id="crx-cancel", variant="default")
                yield Button("Export", id="crx-write", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        """Focus on the assumptions, the cursor at the end of what they say (at the
        start of the empty line after the last term, when there are terms): the first
        field a PMO writes (issue 35: the form opened on the file, whose default name
        seldom needs a change, so every term took Shift+Tabs back up the form)."""
        box = part(self, "#crx-assumptions", TextArea)
        if box is not None:
            self.set_focus(box)
            box.move_cursor(box.document.end)

    def chosen_format(self) -> tuple[str, str]:
        """``(format, ending)`` of the format selected (Word when none is)."""
        formats = part(self, "#crx-format", RadioSet)
        pressed = formats.pressed_button if formats is not None else None
        for fmt, suffix, _name in FORMATS:
            if pressed is not None and pressed.name == fmt:
                return fmt, suffix
        return FORMATS[0][0], FORMATS[0][1]

    @on(RadioSet.Changed, "#crx-format")
    def _format_changed(self) -> None:
        """The file's ending follows the format chosen."""
        box = part(self, "#crx-path", Input)
        if box is None:
            return
        text = box.value.strip()
        path = Path(text)
        _fmt, suffix = self.chosen_format()
        if not text:
            return
        stem = text[: -len(path.suffix)] if path.suffix.lower() in _ENDINGS else text
        box.value = stem + suffix
        box.action_end()

    def ticked(self) -> tuple[str, ...]:
        """The clause refs ticked, in the list's order."""
        box = part(self, "#crx-clauses", SelectionList)
        if box is None:
            return tuple(self.cited)
        chosen = set(box.selected)
        return tuple(
            str(box.get_option_at_index(i).value)
            for i in range(box.option_count)
            if box.get_option_at_index(i).value in chosen
        )

    @on(SelectionList.SelectedChanged, "#crx-clauses")
    def _ticks_changed(self) -> None:
        """The list's title follows the ticks."""
        box = part(self, "#crx-clauses", SelectionList)
        if box is not None:
            box.border_title = clauses_title(bool(box.selected))

    def _clauses_changed(self) -> bool:
        return self.ticked() != tuple(self.cited)

    def _boxes(self) -> tuple[list[str], list[str], str]:
        area = part(self, "#crx-assumptions", TextArea)
        excl = part(self, "#crx-exclusions", TextArea)
        valid = part(self, "#crx-valid", Input)
        return (
            _lines(area.text) if area is not None else [],
            _lines(excl.text) if excl is not None else [],
            valid.value.strip() if valid is not None else "",
        )

    def new_terms(self) -> CrTerms | None:
        """The terms as the boxes now hold them, checked (:func:`parse_cr_terms`), or
        None when they are the ones in force. The clauses ticked are the document's
        choice once they differ from those it cites now (``etki cr edit --clause`` for
        each: audited as chosen); none ticked is refused where the decision's clauses
        are the default (an agreed change request cites what it answers; untouched, the
        list keeps them), and is the default where the engine read them as covering the
        work (:attr:`covering`). Raises
        :class:`EtkiError` naming the field (``valid-until`` before :attr:`today` too,
        ``clause`` for none ticked)."""
        assumptions, exclusions, valid = self._boxes()
        old = self.terms
        ticked = self.ticked()
        if not ticked and not self.covering:
            raise InputError(
                "cr edit: no clause ticked: tick the clauses the change request cites "
                "(the engine's are marked)"
            )
        terms = parse_cr_terms(
            old,
            assumptions=assumptions,
            exclusions=exclusions,
            valid_until=valid,
            clauses=list(ticked) if self._clauses_changed() else None,
        )
        if (terms.assumptions, terms.exclusions, terms.valid_until, terms.clauses) == (
            old.assumptions,
            old.exclusions,
            old.valid_until,
            old.clauses,
        ):
            return None
        if valid and terms.valid_until is not None and terms.valid_until < self.today:
            raise InputError(
                f"cr edit: field 'valid-until' is {terms.valid_until}: in the past (today is "
                f"{self.today}); an offer is valid until today or later"
            )
        return terms

    def edited(self) -> bool:
        """Whether the terms differ from those in force (what a cancel would lose)."""
        assumptions, exclusions, valid = self._boxes()
        nfc = [unicodedata.normalize("NFC", " ".join(t.split())) for t in assumptions]
        nfx = [unicodedata.normalize("NFC", " ".join(t.split())) for t in exclusions]
        old = self.terms
        return self._clauses_changed() or (tuple(nfc), tuple(nfx), valid or None) != (
            old.assumptions,
            old.exclusions,
            old.valid_until,
        )

    def action_cancel(self) -> None:
        """Close the form; nothing is recorded or written. With terms edited, ask first."""
        if not self.edited():
            self.dismiss(None)
            return
        focused = self.focused

        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)
            elif focused is not None and focused.is_attached:
                self.set_focus(focused)

        self.app.push_screen(DiscardTyped("the change request's terms"), answered)

    @on(Button.Pressed, "#crx-cancel")
    def _cancel(self) -> None:
        self.action_cancel()

    def _refuse(self, problem: str, where: str) -> None:
        error = part(self, "#crx-error", Label)
        if error is not None:
            error.update(printable(problem, multiline=False))
        box = part(self, where, Widget)
        if box is not None:
            self.set_focus(box)

    @on(Input.Submitted, "#crx-valid")
    @on(Input.Submitted, "#crx-path")
    @on(Button.Pressed, "#crx-write")
    def _write(self) -> None:
        try:
            terms = self.new_terms()
        except EtkiError as exc:
            said = str(exc).removeprefix("cr edit: ")
            where = next(
                (
                    f"#crx-{w}"
                    for w, k in (
                        ("valid", "valid-until"),
                        ("exclusions", "exclusion"),
                        ("clauses", "clause"),
                    )
                    if k in said
                ),
                "#crx-assumptions",
            )
            self._refuse(said, where)
            return
        box = part(self, "#crx-path", Input)
        text = box.value.strip() if box is not None else ""
        fmt, suffix = self.chosen_format()
        if not text:
            self._refuse(f"Type the file to write, e.g. CR{suffix}.", "#crx-path")
            return
        if text.endswith(("/", os.sep)) or Path(text).expanduser().is_dir():
            # a folder, as etki cr export --output takes one: the document's own name
            # inside it (a trial got "real/.md" refused, and "real" written as real.docx)
            text = str(Path(text) / (Path(self.default).stem + suffix))
        ending = Path(text).suffix.lower()
        if ending not in _ENDINGS:
            if ending:
                self._refuse("End the file name with .docx, .html or .md.", "#crx-path")
                return
            text += suffix  # no ending: the format's
        elif _ENDINGS[ending] != fmt:
            name = next(n for f, _s, n in FORMATS if f == fmt)
            self._refuse(
                f"The name ends {ending} but {name} is chosen: change one of them.", "#crx-path"
            )
            return
        internal = part(self, "#crx-internal", Checkbox)
        self.dismiss(CrExportInput(text, bool(internal is not None and internal.value), terms))
