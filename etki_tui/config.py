"""The desk's config file: a ``keymap:`` section (binding id -> key(s)), the live
refresh interval and the queue views a PMO saved (``views:``, issue 35 item 5).

Where: ``ETKI_CONFIG_FILE`` (``Settings.config_file``) when set, else ``config.yaml`` in
the user's config folder for ``etki`` as :func:`platformdirs.user_config_path` names it
(on Linux ``$XDG_CONFIG_HOME/etki/config.yaml``, by default
``~/.config/etki/config.yaml``). YAML is read with
Etki's one YAML loader (:class:`etki.frontmatter.CoreSafeLoader`: YAML 1.2 core types, so
``y`` or ``no`` stays a key name; anchors and aliases refused); a ``.toml`` file is read
as TOML. Example::

    keymap:
      approve: Y          # binding ids are listed in the help screen (? or F1)
      reject: R,ctrl+x    # several keys, comma-separated
    refresh_seconds: 5    # 0 turns the live refresh off
    views:                # saved with V on the queue; each is a queue filter
      my unsure:
        mine: true
        sureness: unsure
      payments CRs:
        verdict: CHANGE_REQUEST
        text: module:payments

``V`` saves a view by changing only that view in the file as it is at that moment
(:func:`save_view`: under a file lock, written atomically, every other line kept as
written, comments included); a file it cannot read is left as it is, and the desk says
why. The list ``V`` shows is read from the file each time it opens.

Nothing in the file can stop the desk from starting: a missing file is no config, and a
malformed file, an unknown binding id, a refused key or a key that another action live
at the same time already uses (:func:`etki_tui.actions.keymap_clashes`) becomes a
*warning* (shown as a toast on start) while the rest of the file still applies.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs
import yaml
from filelock import FileLock, Timeout

from etki.frontmatter import CoreSafeLoader
from etki.text import plural, printable
from etki_tui.actions import ACTIONS, forbidden, key_label, keymap_clashes

DEFAULT_REFRESH_SECONDS = 3.0
KNOWN_KEYS = ("keymap", "refresh_seconds", "views")
VIEW_NAME_MAX = 40
"""The longest name of a saved view, in characters."""


@dataclass(frozen=True)
class TuiConfig:
    """What the config file says. ``warnings`` are one-line messages for the reviewer."""

    path: Path | None = None
    keymap: dict[str, str] = field(default_factory=dict)
    refresh_seconds: float = DEFAULT_REFRESH_SECONDS
    warnings: tuple[str, ...] = ()
    views: dict[str, dict[str, object]] = field(default_factory=dict)
    """Saved queue views: name -> its fields as written (strings, booleans, None);
    :mod:`etki_tui.queue.views` reads them as queue filters."""


def config_path(config_file: str | None = None) -> tuple[Path, bool]:
    """(path, explicit): ``config_file`` when given (explicit, ``~`` expanded), else the
    default of the module docstring, read from this process's environment."""
    if config_file:
        return Path(config_file).expanduser(), True
    return platformdirs.user_config_path("etki", appauthor=False) / "config.yaml", False


def _parse(path: Path, text: str) -> object:
    if path.suffix.lower() == ".toml":
        return tomllib.loads(text)
    return yaml.load(text, Loader=CoreSafeLoader)  # noqa: S506 - Etki's safe loader


def _where(exc: Exception) -> str:
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        return f" (line {mark.line + 1})"
    line = getattr(exc, "lineno", None)
    return f" (line {line})" if line else ""


def load_config(
    config_file: str | None = None,
    *,
    known_ids: Iterable[str] | None = None,
    view_check: ViewCheck | None = None,
) -> TuiConfig:
    """Read the config file (see the module docstring). Never raises for the file's
    content or absence; problems become ``warnings``. ``view_check`` judges each saved
    view's fields (the queue's vocabulary lives above this module); without it only
    their types are checked."""
    path, explicit = config_path(config_file)
    known = set(ACTIONS if known_ids is None else known_ids)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if explicit:
            return TuiConfig(
                path, warnings=((f"config file {path} not found; using the default keys."),)
            )
        return TuiConfig(None)
    except (OSError, UnicodeDecodeError) as exc:
        return TuiConfig(
            path,
            warnings=(
                (
                    f"config file {path} could not be read "
                    f"({exc.__class__.__name__}); using the default keys."
                ),
            ),
        )
    try:
        data = _parse(path, text)
    except (yaml.YAMLError, tomllib.TOMLDecodeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "syntax error"
        return TuiConfig(
            path,
            warnings=(
                (
                    f"config file {path} is not valid "
                    f"{'TOML' if path.suffix == '.toml' else 'YAML'}"
                    f"{_where(exc)}: {first}; using the default keys."
                ),
            ),
        )
    if data is None:
        return TuiConfig(path)
    if not isinstance(data, dict):
        return TuiConfig(
            path,
            warnings=(
                (
                    f"config file {path}: expected a mapping with a "
                    "'keymap:' section; using the default keys."
                ),
            ),
        )
    warnings: list[str] = []
    unknown_top = sorted(str(k) for k in data if k not in KNOWN_KEYS)
    if unknown_top:
        warnings.append(
            f"config file {path}: unknown {plural(len(unknown_top), 'setting')} {', '.join(unknown_top)} "
            f"ignored (known: {', '.join(KNOWN_KEYS)})."
        )
    keymap: dict[str, str] = {}
    raw = data.get("keymap") or {}
    if not isinstance(raw, dict):
        warnings.append(f"config file {path}: 'keymap' must map binding ids to keys; ignored.")
        raw = {}
    unknown_ids: list[str] = []
    for binding_id, value in raw.items():
        name = str(binding_id)
        if name not in known:
            unknown_ids.append(name)
            continue
        keys = value if isinstance(value, list) else [value]
        if not keys or not all(
            isinstance(k, str) and k.strip() and " " not in k.strip() for k in keys
        ):
            warnings.append(
                f"keymap: '{name}' needs a key name such as 'A' or 'ctrl+x' "
                f"(got {value!r}); default kept."
            )
            continue
        parts = [p.strip() for k in keys for p in k.split(",") if p.strip()]
        refused = forbidden(parts)
        if refused:
            warnings.append(
                f"keymap: '{name}' not remapped: {', '.join(refused)} is "
                "swallowed by many terminals (flow control, Enter, Backspace "
                "or Tab); choose another key."
            )
            continue
        keymap[name] = ",".join(parts)
    if unknown_ids:
        warnings.append(
            f"keymap: unknown binding {plural(len(unknown_ids), 'id')} {', '.join(sorted(unknown_ids))} "
            "ignored; the help screen (? or F1) lists the ids."
        )
    for key, action_id, other in keymap_clashes(keymap):
        warnings.append(
            # what clashed first: the status line shows the start of it (the file last)
            f"keymap binds '{action_id}' to {key_label(key)}, which '{other}' already "
            f"uses there; {key_label(key)} now does only one of them — choose another "
            f"key (config file {path})."
        )
    refresh = DEFAULT_REFRESH_SECONDS
    if "refresh_seconds" in data:
        value = data["refresh_seconds"]
        if (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and (value == 0 or 1 <= value <= 3600)
        ):
            refresh = float(value)
        else:
            warnings.append(
                f"config file {path}: refresh_seconds must be 0 (off) or "
                f"1–3600 (got {value!r}); using {DEFAULT_REFRESH_SECONDS:g}."
            )
    views = _views(data.get("views"), path, warnings, view_check)
    return TuiConfig(path, keymap, refresh, tuple(warnings), views)


ViewCheck = Callable[[Mapping[str, object]], list[str]]
"""What is wrong with a saved view's fields, one phrase per field naming it and its
value (``verdict 'MAYBE' is not one of IN_SCOPE, CHANGE_REQUEST, REJECT``); empty when
nothing is (:func:`etki_tui.queue.views.problems`)."""


def shown_value(value: object) -> str:
    """A value of the config file as a warning quotes it: text in quotes (made
    printable, cut at 40 characters), ``true``/``false``/``null`` as YAML writes them,
    anything else as Python shows it (``12``, ``['a']``)."""
    if isinstance(value, str):
        text = printable(value, multiline=False)
        return repr(text if len(text) <= VIEW_NAME_MAX else text[: VIEW_NAME_MAX - 1] + "…")
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    return printable(repr(value), multiline=False)[:80]


def _field_types(fields: Mapping[str, object]) -> list[str]:
    """The fields whose value is not a word, true/false or empty (no vocabulary known)."""
    return [
        f"{name} {shown_value(value)} is not a word or true/false"
        for name, value in fields.items()
        if not (value is None or isinstance(value, str | bool))
    ]


def _views(
    raw: object, path: Path, warnings: list[str], check: ViewCheck | None = None
) -> dict[str, dict[str, object]]:
    """The ``views:`` section: name -> mapping of field names to strings, booleans or
    None. A view whose name, shape or fields are wrong is left out with a warning that
    says which and why (``check`` judges the fields when given, else only their types);
    it stays in the file (:func:`view_edit` keeps it)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        warnings.append(f"config file {path}: 'views' must map view names to filters; ignored.")
        return {}
    out: dict[str, dict[str, object]] = {}
    for name, fields in raw.items():
        label = shown_value(name)
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > VIEW_NAME_MAX:
            why = f"the name {label} is not 1-{VIEW_NAME_MAX} characters of text"
        elif not isinstance(fields, dict):
            why = f"{label} must map filter fields to values (got {shown_value(fields)})"
        elif not all(isinstance(k, str) for k in fields):
            why = f"{label}: a field name is not text"
        else:
            problems = check(fields) if check is not None else _field_types(fields)
            why = f"{label}: {'; '.join(problems)}" if problems else ""
        if why:
            warnings.append(f"views: {why}; view ignored (it stays in {path}).")
            continue
        out[name.strip()] = dict(fields)
    return out


LOCK_TIMEOUT_S = 5.0
"""How long a save waits for another desk's save of the same config file (seconds)."""
_BREAK = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")
"""YAML's line breaks (the parser counts lines by these, not by ``str.splitlines``)."""


def _lines(text: str) -> list[str]:
    """``text`` cut after each YAML line break (each line keeps its break)."""
    out: list[str] = []
    at = 0
    for m in _BREAK.finditer(text):
        out.append(text[at : m.end()])
        at = m.end()
    if at < len(text):
        out.append(text[at:])
    return out


def _last_line(node: yaml.Node) -> int:
    """The 0-based line of the last character of ``node`` in its text: a block
    collection ends where its last child ends (its own end mark is the next token's
    start, past any comments that follow); a mark at column 0 ends the line before."""
    if isinstance(node, yaml.MappingNode | yaml.SequenceNode) and not node.flow_style:
        children: list[yaml.Node] = []
        for item in node.value:
            children.extend(item if isinstance(item, tuple) else (item,))
        if children:
            return max(_last_line(c) for c in children)
    end = node.end_mark
    return end.line - 1 if end.column == 0 and end.line > node.start_mark.line else end.line


def _dump(data: Mapping[str, object], indent: int, newline: str) -> str:
    """``data`` as block YAML lines indented by ``indent`` spaces (flow style only for an
    empty mapping), each ending with ``newline``."""
    text = yaml.safe_dump(
        dict(data), allow_unicode=True, sort_keys=False, default_flow_style=False, width=4096
    )
    return "".join(" " * indent + line + newline for line in text.splitlines())


def _not_saved(path: Path, why: str) -> ValueError:
    return ValueError(f"{path} {why}; the view was not saved and the file is unchanged")


def _views_of(data: object, path: Path) -> dict[object, object]:
    raw = data.get("views") if isinstance(data, dict) else None
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise _not_saved(path, "has a 'views:' that is not a mapping of names to filters")
    return raw


@dataclass(frozen=True)
class _Entry:
    """One entry of a block mapping: its key (as read), first and last line, column."""

    key: object
    first: int
    last: int
    column: int


def _entries(text: str) -> tuple[yaml.Node | None, list[_Entry], list[_Entry] | None]:
    """The document node of ``text``, its top-level entries, and the entries of its
    ``views:`` when that is a non-empty block mapping (else None). Raises
    :class:`yaml.YAMLError`."""
    loader = CoreSafeLoader(text)
    try:
        root = loader.get_single_node()
        if not isinstance(root, yaml.MappingNode):
            return root, [], None

        def entries(node: yaml.MappingNode) -> list[_Entry]:
            return [
                _Entry(
                    loader.construct_object(k, deep=True),
                    k.start_mark.line,
                    _last_line(v),
                    k.start_mark.column,
                )
                for k, v in node.value
            ]

        top = entries(root)
        views = next((v for k, v in root.value if k.value == "views"), None)
        inner = (
            entries(views)
            if isinstance(views, yaml.MappingNode) and not views.flow_style and views.value
            else None
        )
        return root, top, inner
    finally:
        loader.dispose()


def view_edit(path: Path, text: str, name: str, fields: Mapping[str, object] | None) -> str:
    """``text``, the YAML config file ``path`` as it is now, with the saved view ``name``
    set to ``fields`` (None: deleted) and nothing else changed: every other line is kept
    as written, comments, other settings and other views included (also the views
    :func:`load_config` warns about and leaves out). The view's own lines are replaced
    (every entry whose name is ``name`` once stripped), or new lines are added after the
    last view (a ``views:`` section at the end of the file when there is none); a
    ``views:`` that is empty or written in flow style (``{...}``) is written again as a
    block, its entries kept. Deleting the last view removes the section.

    Raises :class:`ValueError` (nothing to write) when ``text`` is not YAML Etki reads,
    is not a mapping of settings, has a ``views:`` that is not a mapping, or would not
    read back with exactly this change."""
    newline = "\r\n" if "\r\n" in text else "\n"
    try:
        before = _parse(path, text) if text.strip() else None
        root, top, inner = _entries(text)
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "syntax error"
        raise _not_saved(path, f"is not valid YAML{_where(exc)}: {first}") from None
    if not isinstance(before, dict | None) or not isinstance(root, yaml.MappingNode | None):
        raise _not_saved(path, "does not hold a mapping of settings")
    if root is not None and root.flow_style:
        raise _not_saved(path, "is written in flow style ({...}); add the view there by hand")
    old = _views_of(before, path)
    want = {k: v for k, v in old.items() if not (isinstance(k, str) and k.strip() == name)}
    if fields is not None:
        want[name] = dict(fields)
    if want == old:
        return text
    lines = _lines(text)
    if lines and not _BREAK.search(lines[-1]):
        lines[-1] += newline
    section = next((e for e in top if e.key == "views"), None)
    if section is None:  # no section yet: one at the end
        lines.append(_dump({"views": want}, 0, newline))
    elif not want:
        lines[section.first : section.last + 1] = []
    elif inner is None:  # views: empty, or {...}
        lines[section.first : section.last + 1] = [_dump({"views": want}, section.column, newline)]
    else:
        mine = [e for e in inner if isinstance(e.key, str) and e.key.strip() == name]
        for entry in reversed(mine):
            lines[entry.first : entry.last + 1] = []
        if fields is not None:
            block = _dump({name: want[name]}, inner[0].column, newline)
            lines.insert(mine[0].first if mine else inner[-1].last + 1, block)
    new = "".join(lines)
    after = _parse(path, new) if new.strip() else None
    if (
        not isinstance(after, dict | None)
        or {k: v for k, v in (after or {}).items() if k != "views"}
        != {k: v for k, v in (before or {}).items() if k != "views"}
        or _views_of(after, path) != want
    ):
        raise _not_saved(path, "would not read back with only this view changed")
    return new


def save_view(
    path: Path,
    name: str,
    fields: Mapping[str, object] | None,
    *,
    timeout: float = LOCK_TIMEOUT_S,
) -> None:
    """Save the queue view ``name`` (its ``fields``; None deletes it) in the YAML config
    file ``path``, created with its folder when missing: under a lock
    (:class:`filelock.FileLock` on ``.NAME.lock`` beside it, so two desks saving at once
    take turns), the file is read as it is now, :func:`view_edit` changes that one view
    and keeps every other line, and the new text replaces the file atomically (a
    temporary file in the same folder, renamed over it; the file's mode is kept, and a
    symlinked config file is written where it points).

    Raises :class:`ValueError` (nothing written) for a TOML file (views are written to
    YAML only) and for a file :func:`view_edit` cannot change safely, and
    :class:`OSError` when the file cannot be read or written or the lock is not free
    within ``timeout`` seconds (a ``TimeoutError``)."""
    if path.suffix.lower() == ".toml":
        raise ValueError(
            f"{path} is TOML: add the view under [views] by hand, or use a YAML config file"
        )
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(target.with_name(f".{target.name}.lock")), timeout=timeout)
    try:
        lock.acquire()
    except Timeout:
        raise TimeoutError(
            f"{path} is being saved by another desk (waited {timeout:g} s); the view was not saved"
        ) from None
    try:
        try:
            with target.open(encoding="utf-8", newline="") as f:
                text = f.read()
            mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            text, mode = "", None
        except UnicodeDecodeError:
            raise _not_saved(path, "is not UTF-8 text") from None
        new = view_edit(path, text, name, fields)
        if new == text:
            return
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
                out.write(new)
                out.flush()
                os.fsync(out.fileno())
            if mode is not None:
                os.chmod(tmp, mode)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    finally:
        lock.release()
