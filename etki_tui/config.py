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

Nothing in the file can stop the desk from starting: a missing file is no config, and a
malformed file, an unknown binding id, a refused key or a key that another action live
at the same time already uses (:func:`etki_tui.actions.keymap_clashes`) becomes a
*warning* (shown as a toast on start) while the rest of the file still applies.
"""

from __future__ import annotations

import os
import re
import tempfile
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs
import yaml

from etki.frontmatter import CoreSafeLoader
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
    config_file: str | None = None, *, known_ids: Iterable[str] | None = None
) -> TuiConfig:
    """Read the config file (see the module docstring). Never raises for the file's
    content or absence; problems become ``warnings``."""
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
            f"config file {path}: unknown setting(s) {', '.join(unknown_top)} "
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
            f"keymap: unknown binding id(s) {', '.join(sorted(unknown_ids))} "
            "ignored; the help screen (? or F1) lists the ids."
        )
    for key, action_id, other in keymap_clashes(keymap):
        warnings.append(
            f"config file {path}: keymap binds '{action_id}' to {key_label(key)}, which "
            f"'{other}' already uses there; {key_label(key)} now does only one of them "
            "— choose another key."
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
    views = _views(data.get("views"), path, warnings)
    return TuiConfig(path, keymap, refresh, tuple(warnings), views)


def _views(raw: object, path: Path, warnings: list[str]) -> dict[str, dict[str, object]]:
    """The ``views:`` section: name -> mapping of field names to strings, booleans or
    None; anything else is left out with a warning."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        warnings.append(f"config file {path}: 'views' must map view names to filters; ignored.")
        return {}
    out: dict[str, dict[str, object]] = {}
    for name, fields in raw.items():
        if (
            not isinstance(name, str)
            or not name.strip()
            or len(name) > VIEW_NAME_MAX
            or not isinstance(fields, dict)
            or not all(
                isinstance(k, str) and (v is None or isinstance(v, str | bool))
                for k, v in fields.items()
            )
        ):
            warnings.append(
                f"views: {str(name)[:VIEW_NAME_MAX]!r} is not a name (1-{VIEW_NAME_MAX} "
                "characters) with a mapping of filter fields to words or true/false; ignored."
            )
            continue
        out[name.strip()] = dict(fields)
    return out


_TOP_VIEWS = re.compile(r"^views\s*:")


def save_views(path: Path, views: Mapping[str, Mapping[str, object]]) -> None:
    """Write ``views`` as the ``views:`` section of the YAML config file ``path``
    (created with its folder when missing), the rest of the file kept as written: the
    lines of a top-level ``views:`` block (up to the next line that starts in the first
    column) are replaced, or the section is appended. The new text is read back before
    it replaces the file (written atomically: a temporary file renamed over it).

    Raises :class:`ValueError` for a TOML file (saved views are written to YAML only)
    or when the file as it would be written does not read back with these views, and
    :class:`OSError` when it cannot be read or written."""
    if path.suffix.lower() == ".toml":
        raise ValueError(
            f"{path} is TOML: add the view under [views] by hand, or use a YAML config file"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    block = (
        yaml.safe_dump(
            {"views": {k: dict(v) for k, v in views.items()}},
            allow_unicode=True,
            sort_keys=True,
            default_flow_style=False,
        )
        if views
        else ""
    )
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if _TOP_VIEWS.match(line)), None)
    if start is None:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        new = "".join(lines) + block
    else:
        end = start + 1
        while end < len(lines) and (not lines[end].strip() or lines[end][0] in " \t"):
            end += 1
        new = "".join(lines[:start]) + block + "".join(lines[end:])
    data = _parse(path, new) if new.strip() else None
    back = (data.get("views") if isinstance(data, dict) else None) or {}
    if not isinstance(data, dict | None) or back != {k: dict(v) for k, v in views.items()}:
        raise ValueError(f"{path}: the views would not read back as saved; nothing written")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(new)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
