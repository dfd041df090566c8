"""One run state: everything the package remembers during one evaluation, in one object with ``reset()``.

lmms-eval's entry points (``simple_evaluate``, and ``evaluate`` when a script calls it directly) call
:func:`reset` when an evaluation starts (:mod:`temporal_tasks.harness.hook` wraps them), so two evaluations in one
process warn, count, download and build exactly as two processes would. Nothing else in the package keeps
module-level mutable state (``tests/architecture/test_layering.py`` checks it): configuration filled at import
(the parser and benchmark registries) is not run state, and an explicit ``functools.lru_cache`` of a pure
function is a cache, not state.

This module is a leaf: it imports nothing of the package, so every layer may use it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

__all__ = ["STATE", "RunState", "reset", "reset_keeping_deferred"]


@dataclass
class RunState:
    """What one evaluation has seen so far. Fields are grouped by who writes them."""

    # log.warn_once / log.info_once: messages (or keys) already logged in this evaluation.
    logged: set[str] = field(default_factory=set)
    # parsing: parser exceptions counted (each read as unreadable; the first is logged with its traceback).
    parser_errors: int = 0
    # answers: failed API answers seen (warned at the 1st, 10th, 100th, ...).
    api_failures: int = 0
    # data: Hub snapshots fetched, name -> (snapshot folder, patterns fetched; None = all), and URLs that failed.
    fetched: dict[str, tuple[Any, set[str] | None]] = field(default_factory=dict)
    failed_urls: set[str] = field(default_factory=set)
    # compat.stack: the selection (task, selected, answered) read once per aggregation.
    selections: dict[tuple, tuple[str, int, int]] = field(default_factory=dict)
    # docs whose background builds wait for the first request (tasks built before `evaluate(lm, task_dict)`),
    # keyed by (owner, task or variant).
    deferred: dict[tuple[str, str], list[dict]] = field(default_factory=dict)
    # background builders of derived videos, by label (each shut down at reset).
    builders: dict[str, Any] = field(default_factory=dict)
    # scoring.metrics: the payload lists aggregated in this evaluation, with their tables and results (the last few).
    tables: list[Any] = field(default_factory=list)

    def builder(self, label: str, make: Callable[[], Any]) -> Any:
        """The background builder ``label`` of this evaluation, made by ``make()`` on first use."""
        with _LOCK:
            found = self.builders.get(label)
            if found is None:
                found = self.builders[label] = make()
            return found


# One lock for the state's read-modify-write steps (lmms-eval's --process_docs_parallel runs hooks in threads).
_LOCK = threading.RLock()

STATE = RunState()


def lock() -> threading.RLock:
    """The state's lock, for read-modify-write steps of several fields."""
    return _LOCK


def reset(keep: tuple[str, ...] = ()) -> None:
    """Forget the previous evaluation: warnings, counters, fetched snapshots, deferred docs, builders, pass
    (except the fields named in ``keep``).

    Builders of the previous evaluation are shut down (running builds finish, queued ones are dropped).
    """
    with _LOCK:
        old = [] if "builders" in keep else list(STATE.builders.values())
        fresh = RunState()
        for f in fields(RunState):
            if f.name not in keep:
                setattr(STATE, f.name, getattr(fresh, f.name))
    for builder in old:
        shutdown = getattr(builder, "shutdown", None)
        if shutdown is not None:
            shutdown()


def reset_keeping_deferred() -> None:
    """:func:`reset` for ``evaluate(lm, task_dict)`` called by a script: the tasks were built before it, outside any
    evaluation, and the docs they deferred to the first request (N unknown then) belong to this evaluation."""
    reset(keep=("deferred",))
