"""The desk's flows (issue 31): every ``@on`` handler of a flow is registered with
Textual, and the one guard says when this desk may not rule a case.

The trap this checks: Textual registers ``@on`` handlers through the metaclass of
``MessagePump`` (``_decorated_handlers`` in the class's own namespace), so a handler
written in a plain mixin of an ``App`` is silently never called. Every flow class in
``etki_tui.flows`` derives from ``App`` (so from ``MessagePump``); a class of the desk's
MRO whose handlers are not registered fails here."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from textual import on
from textual.message import Message

import etki_tui
import etki_tui.flows
from etki.domain import CaseRecord, RulingRecord
from etki.services import Seat
from etki_tui.app import EtkiApp
from etki_tui.flows.guard import refusal
from tests.factories import make_decision


def _unregistered(cls: type) -> list[str]:
    """The ``@on`` handlers defined in ``cls``'s own body that Textual will never call
    (they are not in the class's own handler table)."""
    table = cls.__dict__.get("_decorated_handlers") or {}
    registered = {id(handler) for entries in table.values() for handler, _ in entries}
    return [
        f"{cls.__qualname__}.{name}"
        for name, value in cls.__dict__.items()
        if callable(value) and hasattr(value, "_textual_on") and id(value) not in registered
    ]


def _handlers(cls: type) -> list[str]:
    return [n for n, v in cls.__dict__.items() if callable(v) and hasattr(v, "_textual_on")]


def test_the_check_finds_a_handler_in_a_plain_mixin() -> None:
    """The control: a plain mixin's handler is not registered, and the check says so."""

    class Plain:
        @on(Message)
        def _seen(self, message: Message) -> None:
            raise AssertionError("never called")

    assert _unregistered(Plain) == [
        "test_the_check_finds_a_handler_in_a_plain_mixin.<locals>.Plain._seen"
    ]


def test_every_handler_of_the_desk_is_registered() -> None:
    ours = [c for c in EtkiApp.__mro__ if c.__module__.startswith("etki_tui.")]
    assert [c for c in ours if c.__module__.startswith("etki_tui.flows.")], ours
    assert [name for cls in ours for name in _unregistered(cls)] == []


def test_no_class_of_etki_tui_has_a_handler_textual_never_calls() -> None:
    """The same for every class of every module of etki_tui (the queue pane's parts in
    ``etki_tui.queue`` are a chain of widgets too)."""
    classes = []
    for info in pkgutil.walk_packages(etki_tui.__path__, "etki_tui."):
        module = importlib.import_module(info.name)
        classes += [
            c for _, c in inspect.getmembers(module, inspect.isclass) if c.__module__ == info.name
        ]
    assert any(_handlers(c) for c in classes if c.__module__ == "etki_tui.queue.shown")
    assert [name for cls in classes for name in _unregistered(cls)] == []


def test_each_flow_module_is_in_the_desk_and_handles_messages() -> None:
    """Every flow class is a base of the desk (none is left out of the chain), and each
    flow but the base and the guard handles at least one message."""
    found = {}
    for info in pkgutil.iter_modules(etki_tui.flows.__path__, "etki_tui.flows."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == info.name and "Flow" in cls.__name__:
                found[cls.__name__] = cls
    assert set(found) == {
        "FlowBase",
        "QueueFeedFlow",
        "HafizaFlow",
        "RulingFlow",
        "BulkFlow",
        "IntakeFlow",
        "ExportFlow",
        "DocumentFlow",
        "AssignFlow",
    }
    for cls in found.values():
        assert cls in EtkiApp.__mro__, cls
    assert all(_handlers(cls) for name, cls in found.items() if name != "FlowBase")


APPROVER = Seat(reviewer="ayse", role="approver", may_rule=True)
VIEWER = Seat(reviewer="Jürgen", role="viewer", may_rule=False)


def _ruled(case_id: str) -> CaseRecord:
    d = make_decision(case_id)
    ruling = RulingRecord(
        case_id, "REJECT", "reject", "İlkay", "why", "2026-11-29T12:00:00Z", d.verdict
    )
    return CaseRecord(
        case_id=case_id,
        project_id="demo",
        request_id="R",
        title="t",
        text="text",
        submitted_by=None,
        submitted_at=None,
        created_at="2026-11-29T12:00:00Z",
        version=2,
        decision=d,
        ruling=ruling,
    )


def test_the_guard_lets_an_approver_rule_a_quiet_case() -> None:
    assert refusal(APPROVER, "demo", "req-1", case_id="req-1") is None
    assert refusal(None, "demo", "req-1", case_id="req-1") is None  # seat not read yet


def test_the_guard_refuses_a_read_only_desk_first() -> None:
    no = refusal(VIEWER, "demo", "req-1", case_id="req-1", in_flight={"req-1"})
    assert no is not None and no.why == "read_only"
    assert no.title == "Not an approver" and no.timeout == 8
    assert no.text.startswith(
        "Read-only desk: Jürgen may not rule on demo (viewer); nothing was recorded for req-1."
    )
    amend = refusal(VIEWER, "demo", "req-1", case_id="req-1", amend=True)
    assert amend is not None and amend.text == (
        "Read-only desk: Jürgen may not amend rulings on demo (viewer); nothing was "
        "recorded for req-1."
    )


def test_the_guard_refuses_a_case_ruled_elsewhere_then_one_in_flight() -> None:
    seen = {"req-1": _ruled("req-1")}
    no = refusal(
        APPROVER, "demo", "req-1", case_id="req-1", in_flight={"req-1"}, ruled_elsewhere=seen
    )
    assert no is not None and no.why == "ruled_elsewhere"
    assert no.ruling is not None and no.ruling.reviewer == "İlkay"
    busy = refusal(
        APPROVER, "demo", "req-2", case_id="req-2", in_flight={"req-2"}, ruled_elsewhere=seen
    )
    assert busy is not None and busy.why == "in_flight"
    assert busy.text == "The ruling on req-2 is still being recorded."
    assert busy.title == "" and busy.timeout == 3
