"""etki_tui uses Textual's public API only, so moving the exact pin (pyproject pins
``textual==8.2.8`` for the SVG snapshots, tests/test_pins.py) is a small step: no module imports ``textual._…`` (or a private module
below a public package), and none reads, sets or overrides a private attribute of a
Textual object.

A private name is one starting with ``_`` (not a dunder). What counts as Textual's:

* in a class that subclasses a Textual class, ``self._x`` or a method ``_x`` where a
  Textual class in its MRO defines ``_x`` (in its class body or as ``self._x = …`` in
  its source);
* anywhere else, ``obj._x`` or ``getattr(obj, "_x")`` where Textual's source defines
  ``_x`` somewhere and etki_tui itself defines no ``_x`` (a name of our own is ours).
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import pkgutil
import textwrap
from functools import cache
from pathlib import Path

import textual

import etki_tui

ALLOWED: dict[tuple[str, str], str] = {}
"""(module, private name) -> why it is allowed. Empty: no exception is needed."""


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name != "_"


def _defined_names(tree: ast.AST) -> set[str]:
    """Private names a source defines: functions, ``self.x = …`` and class-level or
    module-level assignments."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
                elif (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    names.add(target.attr)
    return {n for n in names if _private(n)}


@cache
def _textual_names() -> frozenset[str]:
    """Every private name Textual's source defines."""
    names: set[str] = set()
    for path in Path(textual.__file__).parent.rglob("*.py"):
        names |= _defined_names(ast.parse(path.read_text(encoding="utf-8")))
    return frozenset(names)


@cache
def _names_of_textual_class(cls: type) -> frozenset[str]:
    """Private names one Textual class defines (class body, ``self._x = …``)."""
    names = {n for n in vars(cls) if _private(n)}
    with contextlib.suppress(OSError, TypeError):  # no source: a class made at run time
        names |= _defined_names(ast.parse(textwrap.dedent(inspect.getsource(cls))))
    return frozenset(names)


def _textual_bases_names(cls: type) -> set[str]:
    names: set[str] = set()
    for base in cls.__mro__:
        if base.__module__.split(".")[0] == "textual":
            names |= _names_of_textual_class(base)
    return names


def _modules() -> list[str]:
    return ["etki_tui"] + [m.name for m in pkgutil.walk_packages(etki_tui.__path__, "etki_tui.")]


def _tree(module: str) -> ast.Module:
    path = importlib.import_module(module).__file__
    assert path is not None
    return ast.parse(Path(path).read_text(encoding="utf-8"))


def _own_names() -> set[str]:
    names: set[str] = set()
    for module in _modules():
        names |= _defined_names(_tree(module))
    return names


def test_no_private_textual_module_is_imported() -> None:
    bad = []
    for module in _modules():
        for node in ast.walk(_tree(module)):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                paths = [node.module]
            elif isinstance(node, ast.Import):
                paths = [alias.name for alias in node.names]
            else:
                continue
            for path in paths:
                parts = path.split(".")
                if parts[0] == "textual" and any(_private(p) for p in parts[1:]):
                    bad.append(f"{module}:{node.lineno} imports {path}")
    assert not bad, "\n".join(bad)


def _class_bodies(tree: ast.Module, module: object):  # noqa: ANN202
    """(class object, class node) for every class of the module, nested ones too."""

    def walk(body: list[ast.stmt], owner: object):  # noqa: ANN202
        for node in body:
            if isinstance(node, ast.ClassDef):
                cls = getattr(owner, node.name, None)
                if isinstance(cls, type):
                    yield cls, node
                    yield from walk(node.body, cls)

    yield from walk(tree.body, module)


def test_no_private_textual_attribute_is_used() -> None:
    textual_names = _textual_names()
    ours = _own_names()
    bad = []
    for name in _modules():
        module = importlib.import_module(name)
        tree = _tree(name)
        in_textual_class: set[int] = set()
        for cls, node in _class_bodies(tree, module):
            theirs = _textual_bases_names(cls)
            if not theirs:
                continue
            for child in ast.walk(node):
                if (
                    isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
                    and child.name in theirs
                ):
                    bad.append((name, child.name, child.lineno, f"{cls.__name__} overrides"))
                if (
                    isinstance(child, ast.Attribute)
                    and isinstance(child.value, ast.Name)
                    and child.value.id == "self"
                    and _private(child.attr)
                ):
                    in_textual_class.add(id(child))
                    if child.attr in theirs:
                        bad.append((name, child.attr, child.lineno, f"{cls.__name__} uses"))
        for child in ast.walk(tree):
            attr = None
            if isinstance(child, ast.Attribute) and id(child) not in in_textual_class:
                attr = child.attr
            elif (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Name)
                and child.func.id in ("getattr", "setattr", "hasattr")
                and len(child.args) > 1
                and isinstance(child.args[1], ast.Constant)
                and isinstance(child.args[1].value, str)
            ):
                attr = child.args[1].value
            if attr is not None and _private(attr) and attr in textual_names and attr not in ours:
                bad.append((name, attr, child.lineno, "reads"))
    bad = [b for b in bad if (b[0], b[1]) not in ALLOWED]
    assert not bad, "\n".join(f"{m}:{line} {what} Textual's {attr}" for m, attr, line, what in bad)
