"""The store: SQLAlchemy 2.0 models and :class:`CaseFileRepository`, and the lean read
path without SQLAlchemy (:mod:`etki.store.lean`). The repository is imported on first
use, so a read command importing :mod:`etki.store.lean` does not load SQLAlchemy."""

from typing import TYPE_CHECKING

from etki.lazy import lazy_exports

if TYPE_CHECKING:
    from etki.store.repository import CaseFileRepository
    from etki.store.repository.base import iso, utc_now

__all__ = ["CaseFileRepository", "iso", "utc_now"]

__getattr__ = lazy_exports(
    "etki.store",
    {
        "CaseFileRepository": "etki.store.repository",
        "iso": "etki.store.repository.base",
        "utc_now": "etki.store.repository.base",
    },
)
