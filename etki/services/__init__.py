"""Services: the one door the CLI, the TUI and the MCP server use into the core.

:class:`Desk` (:mod:`etki.services.desk`, composed of parts) is the reviewer's desk: queue, case detail, clause memory, rulings,
wiki search and pages, and report counts — every number computed from the DB. The
other parts, one module each, re-exported here:

* :mod:`etki.services.intake`: :func:`init_project` loads a project folder, builds its
  knowledge index, triages every request that is not stored yet and stores the cases
  with their frozen decisions; ``add`` and ``import`` of requests;
* :mod:`etki.services.preanalysis`: the developer pre-analysis of new cases;
* :mod:`etki.services.admin`: the store's label, the seat, approvals, schema revisions;
* :mod:`etki.engines` (below the services): engines, embedders, ruling indexes.

Memory beside the verdict (``Decision.similar_rulings``/``memory_verdict``,
:mod:`etki.triage.similar`) is computed in two places, always after the engine and
never as its input: at intake (:func:`init_project`, :func:`stored_triage` for ``etki
triage``) from the rulings stored at that moment, frozen into the decision; and live on
the desk (:meth:`Desk.ruling_index_of`, :meth:`Desk.beside_with`, :meth:`Desk.beside`),
because most rulings are made after a case arrived.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from etki.triage.similar import Beside, RulingIndex

# the parts, re-exported: ``from etki.services import X`` keeps working for each
from etki.engines import (
    clause_background,
    embedder_for,
    make_engine_for,
    project_ruling_index,
    ruling_index,
    stored_triage,
    triaged,
    vector_cache_path,
    with_memory,
)
from etki.services.admin import (
    Seat,
    approval_service,
    schema_revision,
    schema_upgrade,
    store_label,
)
from etki.services.desk import Desk
from etki.services.intake import (
    IMPORT_ENDINGS,
    INIT_CHUNK,
    InitSummary,
    IntakeSummary,
    add_request,
    import_format,
    import_path,
    import_requests,
    init_project,
    store_requests,
)
from etki.services.preanalysis import (
    FOLDER_SOURCES,
    FROM_INIT,
    FROM_REREAD,
    PreanalysisRun,
    PreanalysisUnavailableError,
    preanalyse_case,
    preanalyse_cases,
    preanalysis_context,
)
