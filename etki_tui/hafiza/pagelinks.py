"""Links on a wiki page as the reader follows them: resolved inside the wiki only, the
list ``l`` offers, and clause links anchored at their clause (moved out of
:mod:`etki_tui.hafiza.reader` whole)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from urllib.parse import quote, unquote, urlsplit

from rich.cells import cell_len

from etki.wiki.paths import DISPUTED_TITLE, clause_link_ref, page_kind
from etki_tui.hafiza.frontmatter import split_frontmatter
from etki_tui.render import id_tail


def resolve_link(current: str, href: str) -> tuple[str | None, str]:
    """(wiki-relative page path or None, anchor) for a link ``href`` on page
    ``current``. None for external links, absolute paths, non-markdown targets and
    anything that would leave the wiki (``..`` above its root)."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        return None, ""
    path, anchor = unquote(parts.path), parts.fragment
    if not path:
        return current, anchor
    if path.startswith("/") or not path.endswith(".md"):
        return None, anchor
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(current), path))
    if joined.startswith("../") or joined == "..":
        return None, anchor
    return joined, anchor


_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")


def link_label(label: str, target: str) -> str:
    """The words the links list shows for a link ``label`` to page ``target``: the
    label itself, unless it has no letter (``index.md``'s counts table links
    ``disputed.md`` by its count, ``[0](disputed.md)``: a trial saw "0" in the list);
    then the page's title with the label after it, ``Disputed clauses (0)``. The title
    of a fixed page is the wiki's own (:data:`etki.wiki.paths.DISPUTED_TITLE`), of any
    other its file name. A contract page's labels stay as written: a bare number there
    names a clause (:func:`etki.wiki.paths.clause_link_ref`)."""
    kind = page_kind(target)
    if kind == "contract" or any(ch.isalpha() for ch in label):
        return label
    if kind == "disputed":
        title = DISPUTED_TITLE
    elif kind == "index":
        title = "Index"
    else:
        title = posixpath.basename(target).removesuffix(".md")
    return f"{title} ({label})" if label.strip() else title


def page_links(current: str, text: str) -> list[tuple[str, str]]:
    """(label, wiki-relative path) of the links on page ``current`` that stay inside the
    wiki, in page order, each target once; links to a contract page once per label
    (each names a clause: ``l`` offers every one, see
    :func:`etki_tui.hafiza.cards.page_clause_links`). A label without a letter is
    named by its page (:func:`link_label`)."""
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for label, href in _LINK.findall(split_frontmatter(text)[1]):
        target, _ = resolve_link(current, href)
        if target is None or target == current:
            continue
        key = (target, label if page_kind(target) == "contract" else "")
        if key not in out:
            out[key] = (link_label(label, target), target)
    return list(out.values())


def clause_anchors(current: str, body: str, refs: Iterable[str]) -> str:
    """``body`` (markdown of page ``current``) with each link to a contract page that
    names a clause of ``refs`` (its label is the wiki's clause label,
    :func:`etki.wiki.paths.clause_link_ref`) and has no anchor given the clause's ref as
    its anchor (percent-encoded), so that following it lands on the clause
    (:class:`ClauseWanted`); the words shown are unchanged."""
    known = frozenset(refs)
    if not known:
        return body

    def anchored(match: re.Match[str]) -> str:
        label, href = match.group(1), match.group(2)
        target, anchor = resolve_link(current, href)
        if target is None or anchor or page_kind(target) != "contract":
            return match.group(0)
        ref = clause_link_ref(label, known)
        if ref is None:
            return match.group(0)
        return f"[{label}]({href}#{quote(ref, safe='')})"

    return _LINK.sub(anchored, body)


def short_link_labels(body: str, width: int) -> str:
    """``body`` (markdown) with each link label that has no space and is longer than
    ``width`` cells (a page's slug, ``PRE-bidders-want-…--req-talentmap-6cee39a2``)
    shortened to ``…`` and its end (:func:`etki_tui.render.id_tail`): Textual's
    Markdown wraps at spaces only and folded such a label mid-word at 80 columns (issue
    34 trial, "…not-only-c" / "urrent--req-…"). The link's target is unchanged, so it is
    followed as before; the links list (``l``) names it whole. ``width`` < 1: unchanged."""
    if width < 1:
        return body

    def shortened(match: re.Match[str]) -> str:
        label = match.group(1)
        if any(ch.isspace() for ch in label) or cell_len(label) <= width:
            return match.group(0)
        return f"[{id_tail(label, width)}]({match.group(2)})"

    return _LINK.sub(shortened, body)
