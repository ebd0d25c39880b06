"""The store: SQLAlchemy 2.0 models and :class:`CaseFileRepository`."""

from etki.store.repository import CaseFileRepository, iso, utc_now

__all__ = ["CaseFileRepository", "iso", "utc_now"]
