"""End-to-end runs: each test in this folder drives a real command line (lmms-eval, lm-eval, temporal-tasks), a
real model or a browser, and is marked ``slow`` by its folder, here. ``-m "not slow"`` or ``--ignore=tests/e2e``
skips them all; no test outside this folder is slow (``tests/architecture/test_tests_layout.py`` checks).

Their session-wide fixtures (the lmms-eval runner and its warm parent, the runs several tests read, the fixtures
written once) live in the root ``tests/conftest.py``: one of each per session, whichever folders run."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_itemcollected(item: pytest.Item) -> None:
    """Mark every test of this folder ``slow`` (the hook sees every item of the session: only this folder's)."""
    if HERE in Path(item.path).resolve().parents:
        item.add_marker(pytest.mark.slow)
