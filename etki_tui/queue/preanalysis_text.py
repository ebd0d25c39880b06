"""The queue detail's short "Pre-analysis" section: pure Rich ``Text`` from a case's
saved pre-analysis, no Textual, no I/O (moved out of :mod:`etki_tui.queue.detail`, which
keeps under its 800 lines)."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from etki.domain import Preanalysis
from etki.text import plural
from etki_tui.render import _bullets, _indent, _section, folded, one_line, when

NO_MODEL_LINE = "No pre-analysis: no model configured (ETKI_LLM_BASE_URL, ETKI_LLM_MODEL)"
"""What the detail pane says of a case without a pre-analysis when no model is set."""


_PREANALYSIS_PARTS = (
    ("affected_modules", "Affected modules"),
    ("approach", "Approach"),
    ("open_questions", "Open questions"),
)


def preanalysis_section(
    p: Preanalysis | None,
    *,
    llm_model: str | None = None,
    busy: bool = False,
    archived: bool = False,
) -> list[RenderableType]:
    """The detail pane's short "Pre-analysis" section: the case's newest saved
    pre-analysis (every string of it model text, shown literally, cut like client
    text), or what there is instead (none configured, none yet, one being written).
    ``p`` is offered only where it works: not on an ``archived`` project, which takes
    no new pre-analysis (a PMO trial)."""
    out: list[RenderableType] = []
    if p is None:
        out.append(_section("Pre-analysis"))
        if busy:
            line = f"Writing one with model {one_line(llm_model or '')}…"
        elif archived:
            line = "None: the project is archived and takes no new pre-analysis."
        elif llm_model is None:
            line = NO_MODEL_LINE
        else:
            line = f"None yet: p asks model {one_line(llm_model)} for one."
        out.append(_indent(Text(line, style="dim")))
        return out
    title = f"Pre-analysis ({one_line(p.model, 60)} · {one_line(p.prompt_version, 40)})"
    out.append(_section(title))
    head = Text(f"written {when(one_line(p.created_at, 40))}", style="dim")
    head.append(" · a language model's first look, never an input to the verdict", style="dim")
    if busy:
        head.append(" · writing a new one…", style="dim")
    elif llm_model is not None and not archived:
        head.append(" · p writes a new one", style="dim")
    out.append(_indent(head))
    if p.status != "ok" or p.body is None:
        out.append(_indent(Text("It failed: ") + folded(p.error or "no reason given", limit=600)))
        return out
    b = p.body
    for key, label in _PREANALYSIS_PARTS:
        claims = getattr(b, key)
        if not claims:
            continue
        out.append(_indent(Text(label, style="bold")))
        out.append(_bullets(_claim_text(c.text, c.node) for c in claims))
    if b.effort is not None:
        out.append(
            _indent(Text("Effort: ", style="bold") + _claim_text(b.effort.text, b.effort.node))
        )
    if not b.claims:
        out.append(_indent(Text("(no claim rests on a node of the context)", style="dim")))
    if b.dropped:
        nodes = ", ".join(one_line(n, 80) for _, n in b.dropped[:5])
        more = f" and {len(b.dropped) - 5} more" if len(b.dropped) > 5 else ""
        out.append(
            _indent(
                Text(
                    f"{len(b.dropped)} {plural(len(b.dropped), 'claim')} dropped: they named nodes not in the "
                    f"context ({nodes}{more})",
                    style="dim",
                )
            )
        )
    return out


def _claim_text(text: str, node: str) -> Text:
    """One claim: its text, then the node it rests on, dim (both literal)."""
    out = folded(text, limit=1_000)
    out.append(f"  [{one_line(node, 120)}]", style="dim")
    return out
