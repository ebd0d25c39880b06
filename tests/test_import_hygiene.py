"""The core never imports Textual (DESIGN.md: etki/ has no Textual import anywhere)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import etki


def test_etki_never_imports_textual():
    modules = sorted(m.name for m in pkgutil.walk_packages(etki.__path__, "etki."))
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    if name.endswith('__main__'): continue\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"etki imported textual: {out.stdout}"
    assert len(modules) > 5
