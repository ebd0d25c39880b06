"""The command palette (Ctrl+P): jump to a case by id or words of its title, run any
action (from the same definitions as the bindings), switch project.

Everything the palette searches is already in memory (the queue worker loads it), so a
keystroke never waits on the database; the stored projects are read again as the palette
opens, in a thread (:meth:`DeskCommands.startup`). Client text goes into ``Text`` prompts; the help
line is markup, so anything client-written there is escaped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, cast

from rich.text import Text
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape

from etki.text import fold, printable, words
from etki_tui.actions import ACTIONS, ARCHIVED_HIDDEN, CONTEXTS, ActionDef, keys_label
from etki_tui.render import VERDICT_GLYPH, highlight

if TYPE_CHECKING:
    from etki.domain import CaseRecord


class PaletteHost(Protocol):
    """What the palette reads from the running app (:class:`etki_tui.app.EtkiApp`
    provides it): the key map (action id -> keys), the cases in memory, the stored
    projects as (id, name) and the current one, whether it is archived, and callables
    that run an action, jump to a case or switch project. A protocol, so this module
    never imports the app."""

    keymap: dict[str, str]
    projects: list[tuple[str, str]]
    project_id: str

    @property
    def archived(self) -> bool: ...

    @property
    def case_index(self) -> Sequence[CaseRecord]: ...

    def current_context(self) -> str: ...

    def palette_runner(self, action_id: str) -> Callable[[], None]: ...

    def case_jumper(self, case_id: str) -> Callable[[], None]: ...

    def project_switcher(self, project_id: str) -> Callable[[], None]: ...

    def read_projects(self) -> list[tuple[str, str]]: ...


MAX_CASE_HITS = 25


def _action_prompt(action: ActionDef, keymap: dict[str, str]) -> Text:
    out = Text()
    out.append(action.label, style="bold")
    out.append(f"   key {keys_label(action, keymap)}", style="dim")
    if action.context in ("queue", "hafiza", "raporlar"):
        out.append(f"   ({CONTEXTS[action.context][0]})", style="dim")
    return out


def action_score(action: ActionDef, query: str) -> float:
    """How well ``query`` names ``action``: every word starting a word of its label
    scores high, words found in its label or tooltip less; 0 otherwise (no loose fuzzy
    matches, so cases are not buried under actions)."""
    tokens = words(query)
    if not tokens:
        return 0.0
    label = words(action.label + " " + action.id.replace(".", " "))
    if all(any(w.startswith(t) for w in label) for t in tokens):
        return 0.95
    hay = fold(f"{action.label} {action.tooltip}")
    if all(t in hay for t in tokens):
        return 0.6
    return 0.0


def case_score(case: CaseRecord, query: str) -> float:
    """How well ``query`` finds ``case``: 1.0 for its id (or the id's last part), 0.9
    for an id prefix, 0.7–0.9 when every word occurs in the title (more of the title
    covered scores higher), 0 otherwise."""
    q = query.strip().casefold()
    if not q:
        return 0.0
    case_id = case.case_id.casefold()
    short = case_id.rsplit("-", 1)[-1]
    if q in (case_id, short):
        return 1.0
    if case_id.startswith(q) or short.startswith(q) or (len(q) >= 4 and q in case_id):
        return 0.9
    tokens = words(query)
    title = fold(case.title)
    if tokens and all(t in title for t in tokens):
        covered = sum(len(t) for t in tokens) / max(1, len(title.replace(" ", "")))
        return 0.7 + 0.2 * min(1.0, covered)
    return 0.0


class DeskCommands(Provider):
    """Cases, actions and projects of the running app (a :class:`PaletteHost`)."""

    @property
    def desk_app(self) -> PaletteHost:
        return cast("PaletteHost", self.app)

    def _actions(self) -> list[ActionDef]:
        """The actions the palette offers: none that writes on an archived project
        (:data:`etki_tui.actions.ARCHIVED_HIDDEN`)."""
        hidden = ARCHIVED_HIDDEN if self.desk_app.archived else frozenset()
        return [a for a in ACTIONS.values() if a.palette and a.id not in hidden]

    async def startup(self) -> None:
        """Read the stored projects again as the palette opens (in a thread: keys never
        wait on the database), so a project stored while the desk was open is listed
        without Ctrl+R (issue 34 item 8). When the read fails the list read with the
        queue stays."""
        app = self.desk_app
        try:
            app.projects = await asyncio.to_thread(app.read_projects)
        except Exception as exc:  # noqa: BLE001 - the palette still opens
            self.app.log.warning(f"palette: projects not read again: {exc}")

    async def discover(self) -> Hits:
        """With nothing typed: the actions of this tab first, then the rest, then the
        other projects."""
        app = self.desk_app
        keymap = app.keymap
        here = app.current_context()
        ordered = sorted(
            self._actions(), key=lambda a: (a.context not in (here, "app"), a.context != here)
        )
        for action in ordered:
            yield DiscoveryHit(
                _action_prompt(action, keymap),
                app.palette_runner(action.id),
                text=action.label,
                help=escape(action.tooltip),
            )
        for project_id, name in app.projects:
            if project_id != app.project_id:
                yield DiscoveryHit(
                    self._project_prompt(project_id, name),
                    app.project_switcher(project_id),
                    text=f"Switch project {project_id}",
                    help=escape(f"Open project {project_id}"),
                )

    def _project_prompt(self, project_id: str, name: str) -> Text:
        out = Text("Switch project: ", style="bold")
        out.append(printable(project_id, multiline=False), style="bold")
        if name:
            out.append(f"  {printable(name, multiline=False)}", style="dim")
        return out

    async def search(self, query: str) -> Hits:
        """Cases by id or title words, actions by fuzzy name, projects by id or name."""
        app = self.desk_app
        keymap = app.keymap
        matcher = self.matcher(query)
        tokens = words(query)
        scored: list[tuple[float, CaseRecord]] = []
        for case in app.case_index:
            score = case_score(case, query) - (0.05 if case.ruling is not None else 0.0)
            if score > 0:
                scored.append((score, case))
        scored.sort(key=lambda p: (-p[0], p[1].case_id))
        for score, case in scored[:MAX_CASE_HITS]:
            yield Hit(
                score,
                self._case_prompt(case, tokens),
                app.case_jumper(case.case_id),
                text=case.case_id,
                help=escape(self._case_help(case)),
            )
        for action in self._actions():
            score = action_score(action, query)
            if score > 0:
                yield Hit(
                    score,
                    _action_prompt(action, keymap),
                    app.palette_runner(action.id),
                    text=action.label,
                    help=escape(action.tooltip),
                )
        for project_id, name in app.projects:
            if project_id == app.project_id:
                continue
            score = max(matcher.match(f"switch project {project_id}"), matcher.match(name))
            if score > 0:
                yield Hit(
                    score,
                    self._project_prompt(project_id, name),
                    app.project_switcher(project_id),
                    text=f"Switch project {project_id}",
                    help=escape(f"Open project {project_id}"),
                )

    def _case_prompt(self, case: CaseRecord, tokens: list[str]) -> Text:
        out = Text()
        out.append(printable(case.case_id, multiline=False), style="bold")
        out.append("  ")
        title = Text(printable(case.title, multiline=False))
        if len(title) > 60:
            title = Text(title.plain[:59] + "…")
        out.append_text(highlight(title, tokens))
        return out

    def _case_help(self, case: CaseRecord) -> str:
        verdict = case.decision.verdict
        if case.ruling is None:
            return (
                f"pending · engine {VERDICT_GLYPH.get(verdict, '')} {verdict} · "
                f"confidence {case.decision.confidence:.2f} — go to it in the queue"
            )
        r = case.ruling
        who = printable(r.reviewer, multiline=False)
        return (
            f"ruled {VERDICT_GLYPH.get(r.ruling, '')} {r.ruling} by {who} — open its "
            "decision page in Hafıza"
        )
