"""The one run state of an evaluation (``base/run_state.py``): reset in place, forgetting warnings, counters and
deferred docs, or keeping the deferred docs of a script's own ``evaluate``."""

from __future__ import annotations

from temporal_tasks.base import run_state
from temporal_tasks.base.log import warn_once
from temporal_tasks.base.run_state import STATE, reset


def test_reset_forgets_warnings_counters_and_deferred_docs(warnings_seen):
    warn_once("a warning of the first evaluation")
    warn_once("a warning of the first evaluation")
    STATE.parser_errors, STATE.api_failures = 3, 2
    STATE.deferred[("owner", "task")] = [{"question_id": "q"}]

    class Builder:
        closed = False

        def shutdown(self) -> None:
            Builder.closed = True

    STATE.builder("b", Builder)
    reset()
    assert Builder.closed
    assert (STATE.parser_errors, STATE.api_failures, STATE.deferred, STATE.builders) == (0, 0, {}, {})
    warn_once("a warning of the first evaluation")
    assert [w.strip() for w in warnings_seen].count("a warning of the first evaluation") == 2


def test_the_state_is_one_object_reset_in_place():
    before = run_state.STATE
    reset()
    assert run_state.STATE is before  # modules that imported STATE keep seeing the live state


def test_evaluate_called_by_a_script_keeps_the_deferred_docs_of_its_tasks():
    from temporal_tasks.base.run_state import reset_keeping_deferred

    warn_once("from the tasks' building")
    STATE.deferred[("vinoground", "group")] = [{"question_id": "q"}]
    STATE.api_failures = 4
    reset_keeping_deferred()
    assert STATE.deferred == {("vinoground", "group"): [{"question_id": "q"}]} and STATE.api_failures == 0
    reset()
    assert STATE.deferred == {}
