"""The verdict words every ``etki`` command takes (issue 34's trial: ``etki dispute
resolve --verdict in_scope`` was accepted while ``etki rule CASE in_scope`` was refused).

One spelling table for ``etki rule`` and ``etki dispute resolve``: a verdict may be given
as the engine writes it (``IN_SCOPE``, ``CHANGE_REQUEST``, ``REJECT``), as the desk's
keys say it (``approve``, ``cr``, ``reject``) or in either case with ``-`` or ``_``
(``in-scope``, ``change_request``). The table is ours (the engine's three verdicts,
:data:`etki.domain.RESOLUTION_VERDICTS`, and the desk's action names); nothing is guessed
beyond it.
"""

from __future__ import annotations

import argparse

__all__ = ["VERDICT_SPELLINGS", "rule_action_of", "verdict_of"]

VERDICT_SPELLINGS: dict[str, tuple[str, ...]] = {
    "in_scope": ("approve", "in_scope", "in-scope", "IN_SCOPE"),
    "cr": ("cr", "change_request", "change-request", "CHANGE_REQUEST", "convert_to_cr"),
    "reject": ("reject", "REJECT"),
}
"""verdict (``in_scope`` | ``cr`` | ``reject``) -> the spellings shown in the error; any
letter case and ``-``/``_``/space are accepted for each."""

_FOLDED = {
    spelling.casefold().replace("-", "_"): verdict
    for verdict, spellings in VERDICT_SPELLINGS.items()
    for spelling in spellings
}


def verdict_of(text: str) -> str:
    """The verdict ``in_scope`` | ``cr`` | ``reject`` that ``text`` spells (letter case,
    ``-``, ``_`` and spaces ignored).

    Raises :class:`argparse.ArgumentTypeError` (argparse's exit 2, "bad input") naming
    every accepted spelling when ``text`` spells none; used as an argparse ``type=``.
    """
    key = "_".join(text.strip().casefold().replace("-", " ").replace("_", " ").split())
    verdict = _FOLDED.get(key)
    if verdict is None:
        said = "; ".join(
            f"{v}: {', '.join(spellings)}" for v, spellings in VERDICT_SPELLINGS.items()
        )
        raise argparse.ArgumentTypeError(
            f"unknown verdict {text!r}; give one of ({said}); letter case, '-' and '_' "
            "do not matter"
        )
    return verdict


def rule_action_of(text: str) -> str:
    """The ``etki rule`` action word (``approve`` | ``cr`` | ``reject``, the keys of
    :data:`etki.commands.cases.RULE_ACTIONS`) that ``text`` spells (:func:`verdict_of`:
    ``in_scope`` is ``approve``). Raises :class:`argparse.ArgumentTypeError` as it does."""
    verdict = verdict_of(text)
    return "approve" if verdict == "in_scope" else verdict
