"""The store: SQLAlchemy 2.0 models and :class:`CaseFileRepository`."""

from etki.store.repository import CaseFileRepository
from etki.store.repository.base import iso, utc_now

__all__ = ["CaseFileRepository", "iso", "utc_now"]
