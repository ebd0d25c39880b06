"""Etki: a scope-triage desk with a decision memory.

The core library. It never imports Textual (``tests/test_import_hygiene.py`` proves it);
the terminal UI lives in ``etki_tui`` and talks to this package through its services.
"""

__version__ = "0.1.0"
