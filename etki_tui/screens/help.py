"""``?``/F1: the keys of the current screen and what they do, built from the same action
definitions as the bindings, the footer and the palette, with the keys the keymap gave
them and the binding ids a ``keymap:`` section uses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from etki_tui.actions import CONTEXTS, WIDGET_KEYS, bindings, keys_label, live_in
from etki_tui.live import part


def help_body(
    contexts: Sequence[str], keymap: Mapping[str, str], config_path: Path | None = None
) -> RenderableType:
    """One section per context: what the screen is for, then one row per key: the key,
    and the action's name, what it does and its binding id (for a ``keymap:``)."""
    parts: list[RenderableType] = []
    for context in contexts:
        title, intro = CONTEXTS[context]
        parts.append(Text(title, style="bold underline"))
        parts.append(Text(intro, style="italic"))
        table = Table(box=None, show_header=False, pad_edge=False, expand=True, padding=(0, 1))
        table.add_column("key", no_wrap=True, min_width=7, max_width=14, style="bold")
        table.add_column("what it does", ratio=1)
        for action in live_in(context):
            what = Text()
            what.append(action.label, style="bold")
            what.append(" — " + action.help + " ")
            remapped = " *" if action.id in keymap else ""
            what.append(f"[{action.id}{remapped}]", style="dim")
            table.add_row(keys_label(action, keymap), what)
        for keys, description in WIDGET_KEYS.get(context, ()):
            table.add_row(keys, Text(description))
        parts.append(table)
        parts.append(Text(""))
    note = Text("[binding id] is what a keymap: section in ", style="dim")
    note.append(
        str(config_path)
        if config_path
        else "$XDG_CONFIG_HOME/etki/config.yaml (or ETKI_CONFIG_FILE)",
        style="dim",
    )
    note.append(" remaps, e.g.  keymap: {approve: e}.", style="dim")
    if keymap:
        note.append(" * = remapped there.", style="dim")
    parts.append(note)
    return Group(*parts)


class HelpScreen(ModalScreen[None]):
    """Help for the screen it was opened from."""

    BINDINGS = bindings("help.close", "help")

    def __init__(
        self, contexts: Sequence[str], keymap: Mapping[str, str], config_path: Path | None = None
    ) -> None:
        super().__init__()
        self.contexts = list(contexts)
        self.keymap = dict(keymap)
        self.config_path = config_path

    def compose(self) -> ComposeResult:
        """A scrollable body in a dialog."""
        title = CONTEXTS[self.contexts[0]][0]
        with Vertical(id="help-dialog") as dialog:
            dialog.border_title = f"Help — {title}"
            dialog.border_subtitle = "Esc closes · ↑↓ scroll"
            with VerticalScroll(id="help-scroll", can_focus=True):
                yield Static(
                    help_body(self.contexts, self.keymap, self.config_path),
                    id="help-body",
                    markup=False,
                )
        yield Footer()

    def on_mount(self) -> None:
        """Focus the body so the arrows scroll it (none when the desk closes while the
        help is built)."""
        body = part(self, "#help-scroll")
        if body is not None:
            body.focus()

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)
