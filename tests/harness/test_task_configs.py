"""Our task list (``harness/task_configs.py``)."""

from __future__ import annotations

from pathlib import Path

from temporal_tasks.harness.task_configs import our_tasks


def test_our_task_list():
    names = our_tasks()
    assert names["timeblind_iacc"][0] == "task"
    assert all(Path(path).is_file() for _kind, path in names.values())
