"""Evaluation of triage quality across engagements (``etki eval triage``).

Modules, one job each: ``metrics`` (pure figures: verdict metrics, bootstrap intervals,
clause-number matching), ``confidence`` (whether confidence ranks right answers first:
selective accuracy, reliability, per-kind calibration set leave-one-engagement-out),
``triage`` (inputs, running the engine, leave-one-engagement-out, the
:class:`~etki.evaluation.triage.Evaluation`), ``report`` (the text report), ``cli``
(the subcommand). Nothing here changes a decision: the engine is only called.
"""
