"""Hypothesis profiles: ``ci`` for the README's test command, ``deep`` for the full fuzzing budgets.

``TEMPORAL_TASKS_HYPOTHESIS=deep python -m pytest -q -n 2 tests/answers`` runs every property test (they all test
the answer parsers) with its deep example count
(the counts the suite used before issue 29): run it after changing a parser, the answer text helpers or the
label-swap rules. The ``ci`` counts are smaller; the properties and strategies are the same.
"""

from __future__ import annotations

import os

from hypothesis import settings

ENV = "TEMPORAL_TASKS_HYPOTHESIS"
PROFILES = ("ci", "deep")


def profile() -> str:
    """The session's profile: ``TEMPORAL_TASKS_HYPOTHESIS`` (default ``ci``)."""
    name = os.environ.get(ENV, "ci") or "ci"
    if name not in PROFILES:
        raise ValueError(f"{ENV}={name!r}: use one of {', '.join(PROFILES)}")
    return name


def examples(*, ci: int, deep: int) -> int:
    """A property test's example count under the session's profile."""
    return deep if profile() == "deep" else ci


def load() -> None:
    """Register both profiles and load the session's (tests without their own count get its default)."""
    settings.register_profile("ci", deadline=None)
    settings.register_profile("deep", deadline=None, max_examples=1_000)
    settings.load_profile(profile())
