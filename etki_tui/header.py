"""Who and where (issue 12 item 5): the header line "project · reviewer · role · store"
and the read-only banner of a reviewer who may not rule (or of an archived project).

:func:`header_text` fits the line to a width (pure, no Textual): it gives up, in this
order, the project's name (its id stays), the leading folders of a SQLite path (the file
name stays, after ``…/``), the app title, and finally the end of the reviewer's name.
The reviewer name and the project are untrusted text: they are shown literally
(:func:`etki.text.printable`), never as markup.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from rich.cells import cell_len
from rich.text import Text
from textual.content import Content
from textual.events import Click
from textual.widget import Widget

from etki.services import Seat
from etki.text import printable
from etki_tui.errors import UPDATE_REVIEWERS

SEP = " · "


def role_label(seat: Seat) -> str:
    """The role as the header says it: ``approver``, ``viewer``, ``not listed``, or
    ``approver (no list)`` when the project lists no reviewers (anyone may rule); on an
    archived project `` · ARCHIVED`` follows (read-only for everyone)."""
    role = "approver (no list)" if seat.open else seat.role
    return f"{role}{SEP}ARCHIVED" if seat.archived else role


def archived_text(project_id: str, what: str) -> str:
    """The toast of a write refused on an archived project: ``what`` (``a ruling on
    req-1``, ``a note``) was not recorded, and how to work on it again."""
    pid = printable(project_id, multiline=False)
    return (
        f"Project {pid} is archived: nothing was recorded ({what}). Its cases stay "
        f"readable; to work on it again: etki project unarchive {pid}, then Ctrl+R here."
    )


def short_store(store: str, *, cwd: Path | None = None, home: Path | None = None) -> str:
    """``store`` (:func:`etki.services.store_label`) with a SQLite path made shorter
    for people: relative to ``cwd`` when the file is under it, ``~/…`` when under
    ``home``; PostgreSQL labels are returned as they are."""
    if not store.startswith("sqlite ") or store == "sqlite (in memory)":
        return store
    raw = store.removeprefix("sqlite ")
    path = Path(raw)
    if path.is_absolute():
        for base, prefix in ((cwd or Path.cwd(), ""), (home or Path.home(), "~/")):
            try:
                return f"sqlite {prefix}{path.relative_to(base)}"
            except ValueError:
                continue
    return store


def _cut_path(store: str, keep: int) -> str:
    """A SQLite label keeping only the last ``keep`` parts of its path after ``…/``."""
    if not store.startswith("sqlite ") or store == "sqlite (in memory)":
        return store
    parts = Path(store.removeprefix("sqlite ")).parts
    if keep >= len(parts):
        return store
    return "sqlite …/" + "/".join(parts[-keep:])


def header_text(
    title: str, project_name: str, project_id: str, seat: Seat | None, store: str, width: int
) -> str:
    """The header line for ``width`` cells: ``TITLE — NAME (ID) · REVIEWER · ROLE ·
    STORE``, shortened as the module docstring says until it fits (a line that still
    does not fit is cut by the header with an ellipsis). Without ``seat`` (not read
    yet) the reviewer and role are left out. All parts are made printable."""
    name = printable(project_name, multiline=False)
    pid = printable(project_id, multiline=False)
    who = printable(seat.reviewer, multiline=False) if seat is not None else ""
    role = role_label(seat) if seat is not None else ""
    store = printable(store, multiline=False)

    def line(project: str, reviewer: str, where: str, with_title: bool) -> str:
        parts = [project, *((reviewer, role) if seat is not None else ()), where]
        body = SEP.join(p for p in parts if p)
        return f"{title} — {body}" if with_title and title else body

    project = f"{name} ({pid})" if name and name != pid else pid
    candidates: list[Callable[[], str]] = [
        lambda: line(project, who, store, True),
        lambda: line(pid, who, store, True),
    ]
    depth = len(Path(store.removeprefix("sqlite ")).parts)

    def cut_to(k: int) -> str:
        return line(pid, who, _cut_path(store, k), True)

    candidates += [functools.partial(cut_to, k) for k in range(depth - 1, 0, -1)]
    candidates.append(lambda: line(pid, who, _cut_path(store, 1), False))
    for make in candidates:
        text = make()
        if cell_len(text) <= width:
            return text
    # last: the end of the reviewer's name gives way (at least 8 cells of it stay)
    text = line(pid, "", _cut_path(store, 1), False)
    room = width - cell_len(text) - cell_len(SEP)
    if seat is not None and room >= 8:
        cut = Text(who)
        cut.truncate(room, overflow="ellipsis")
        return line(pid, cut.plain, _cut_path(store, 1), False)
    return line(pid, who, _cut_path(store, 1), False)


def read_only_banner(seat: Seat, project_id: str) -> Text:
    """The banner of a desk whose reviewer may not rule: why (the project is archived:
    how to unarchive it; a viewer, or not listed), and how to become an approver (``etki.yaml`` reviewers and
    :data:`~etki_tui.errors.UPDATE_REVIEWERS`; the toast of a refused ruling key adds ``ETKI_REVIEWER`` and
    Ctrl+R). The name itself is in the header right above (and in that toast), so the
    banner stays two lines at 80 columns whatever the name."""
    pid = printable(project_id, multiline=False)
    out = Text()
    if seat.archived:  # whoever sits here: nothing is taken until it is unarchived
        out.append(" ARCHIVED ", style="bold reverse")
        out.append(
            f" Project {pid} is archived: read-only, it takes no rulings, notes or "
            f"estimates. To work on it again: etki project unarchive {pid}, then Ctrl+R."
        )
        return out
    out.append(" READ-ONLY ", style="bold reverse")
    if seat.role == "viewer":
        out.append(f" You are a viewer of {pid}, not an approver.")
    else:
        out.append(f" You are not a reviewer of {pid}.")
    if seat.did_you_mean:  # ETKI_REVIEWER typed without Turkish/German letters
        out.append(" Did you mean ")
        out.append(f"'{printable(seat.did_you_mean, multiline=False)}'", style="bold")
        out.append("? Set ETKI_REVIEWER to it exactly.")
        return out
    out.append(f" To rule: an approver lists you in etki.yaml and runs {UPDATE_REVIEWERS}.")
    return out


class DeskHeader(Widget):
    """The one-line header (public Textual API only): the app's title and
    :func:`header_text` of the app's ``header_parts()``, fitted to the widget's width
    on every render, so a resize or :meth:`update_title` draws it again. A click opens
    the command palette, as Textual's own header icon does."""

    DEFAULT_CSS = """
    DeskHeader {
        dock: top;
        width: 100%;
        height: 1;
        background: $panel;
        color: $foreground;
        content-align: center middle;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def render(self) -> Content:
        """The fitted line, the part after the title dim."""
        title = self.app.title
        parts: Callable[[], tuple[str, str, Seat | None, str]] | None = getattr(
            self.app, "header_parts", None
        )
        if parts is None:
            return Content(title)
        width = self.size.width or 80
        mark = " READ-ONLY " if getattr(self.app, "read_only_in_header", False) else ""
        text = header_text(title, *parts(), width=width - len(mark) - 1 if mark else width)
        lead = f"{title} — "
        if text.startswith(lead):
            line = Content.assemble(title, (" — ", "dim"), (text.removeprefix(lead), "dim"))
        else:
            line = Content(text).stylize("dim")
        if mark:  # the banner is hidden on a short terminal: the warning stays in sight
            return Content.assemble((mark, "bold reverse"), " ", line)
        return line

    def update_title(self) -> None:
        """Render the line again (the seat, the project or the width changed)."""
        self.refresh()

    async def on_click(self, event: Click) -> None:
        """Open the command palette."""
        event.stop()
        await self.run_action("app.command_palette")


STATUS_KEPT = 200
"""Messages the status line keeps for the messages view (oldest dropped first)."""


def one_line(title: str, message: str, width: int, more_key: str = "L") -> Text:
    """``title: message`` on one line of ``width`` cells: line breaks become `` · ``,
    and a message that does not fit is cut with ``…`` at the end of a word and ends
    with where to read it whole (``more_key`` opens the messages view). Untrusted text
    stays literal."""
    flat = " · ".join(part.strip() for part in message.splitlines() if part.strip())
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    if title:
        text.append(printable(title, multiline=False), style="bold")
        text.append(": ")
    text.append(printable(flat, multiline=False))
    cut = "\n" in message.strip() or text.cell_len > width
    if cut and width > 0:
        hint = Text(f" ({more_key}: all)", style="dim", end="")
        room = max(1, width - hint.cell_len)
        if text.cell_len > room:
            text.truncate(room - 1, overflow="crop")
            # at the end of a word, never inside one (a fresh trial of issue 34 read
            # "the others…"), unless the last word would take half the line with it
            space = text.plain.rstrip().rfind(" ")
            if space > (room - 1) // 2:
                text = text[:space]
                text.rstrip()
                while text.plain and text.plain[-1] in ":;,·-—":
                    text = text[:-1]
                    text.rstrip()
            text.append("…")
        text.append_text(hint)
        text.truncate(width)
    return text


class StatusLine(Widget):
    """One line over the footer for routine confirmations (a toast is kept for what
    needs attention: warnings and errors): the newest message, on one line; every
    message (toasts too) is kept, whole, for the messages view (``L``)."""

    DEFAULT_CSS = """
    StatusLine { height: 1; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[tuple[str, str, str, str]] = []
        self._title = ""
        self._message = ""
        self.more_key = "L"
        self._standing = ("", "")
        """The last message said to stay (a read-only desk's reason): a passing one gives
        way to it (:meth:`lapse`)."""
        self._until: float | None = None
        """When the passing message shown has been up its time (a timestamp), or None."""

    def keep(self, stamp: str, severity: str, title: str, message: str) -> None:
        """Keep a message (any severity) for the messages view."""
        self.entries.append((stamp, severity, title, message))
        del self.entries[:-STATUS_KEPT]

    def say(
        self,
        title: str,
        message: str,
        *,
        lasts: float | None = None,
        now: float = 0.0,
        standing: bool = False,
    ) -> None:
        """Show ``title: message`` on the line. ``lasts``: a passing confirmation's
        seconds (the timeout its toast had, ``App.notify``), said at ``now`` (a
        timestamp): it lapses when the reviewer moves on (:meth:`lapse`). Without
        ``lasts`` the message stays until the next one. ``standing`` (a read-only desk's
        reason): the line goes back to it when a later passing message lapses; no other
        message ever comes back (a PMO trial of issue 35 saw an old export's message
        return over newer ones after a tab switch)."""
        self._title, self._message = title, message
        self._until = None if lasts is None else now + lasts
        if standing:
            self._standing = (title, message)
        self.refresh()

    def lapse(self, now: float | None = None) -> None:
        """The reviewer moved on: a passing message leaves the line, back to the last
        standing one (or nothing); ``now`` given (a key was pressed at that
        timestamp), only once it has been up its time. (A trial: "Detail unfolded (z
        folds it)." stayed on the line for good, over the Hafıza tab too.)"""
        if self._until is None or (now is not None and now < self._until):
            return
        self._until = None
        self._title, self._message = self._standing
        self.refresh()

    @property
    def said(self) -> str:
        """What the line says now, as plain text."""
        return one_line(self._title, self._message, self.content_region.width or 80).plain

    def render(self) -> Text:
        """The newest routine message, fitted to the width."""
        return one_line(self._title, self._message, self.content_region.width, self.more_key)
