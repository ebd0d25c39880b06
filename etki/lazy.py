"""Lazy re-exports of a package's names (PEP 562 module ``__getattr__``)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: a name of ``names`` (name -> the module
    defining it) is imported on first use and kept in the package's namespace; any
    other name raises :class:`AttributeError`. Lets a package re-export its parts
    without importing them all whenever one of its submodules is imported."""

    def __getattr__(name: str) -> Any:
        if name in names:
            module = importlib.import_module(package)
            value = getattr(importlib.import_module(names[name]), name)
            setattr(module, name, value)
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
