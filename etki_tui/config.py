"""The desk's config file: a ``keymap:`` section (binding id -> key(s)) and the live
refresh interval.

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

Nothing in the file can stop the desk from starting: a missing file is no config, and a
malformed file, an unknown binding id, a refused key or a key that another action live
at the same time already uses (:func:`etki_tui.actions.keymap_clashes`) becomes a
*warning* (shown as a toast on start) while the rest of the file still applies.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs
import yaml

from etki.frontmatter import CoreSafeLoader
from etki_tui.actions import ACTIONS, forbidden, key_label, keymap_clashes

DEFAULT_REFRESH_SECONDS = 3.0
KNOWN_KEYS = ("keymap", "refresh_seconds")


@dataclass(frozen=True)
class TuiConfig:
    """What the config file says. ``warnings`` are one-line messages for the reviewer."""

    path: Path | None = None
    keymap: dict[str, str] = field(default_factory=dict)
    refresh_seconds: float = DEFAULT_REFRESH_SECONDS
    warnings: tuple[str, ...] = ()


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
    return TuiConfig(path, keymap, refresh, tuple(warnings))
