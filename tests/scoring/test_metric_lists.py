"""The YAML metric lists (``scoring/metric_lists.py``): generated from the specs and current, and every generate task
reporting ``invalid_rate``, ``parse_disagreement`` and ``truncated_rate``."""

from __future__ import annotations

from temporal_tasks.harness.task_configs import our_tasks, task_config
from temporal_tasks.scoring.metric_lists import stale_files
from tests.helpers.payloads import GENERATE_TASKS


def test_every_generate_task_reports_parse_disagreement():
    generate = {t for t in our_tasks() if task_config(t).get("output_type") == "generate_until"}
    # the 12 main generate tasks and their shortcut variants (which include the main task's YAML)
    assert GENERATE_TASKS <= generate
    for task in sorted(generate - {"temporalbench_caption_sim"}):
        metrics = task_config(task)["metric_list"]
        names = [m["metric"] for m in metrics]
        at = names.index("parse_disagreement")
        assert names[at - 1] == "invalid_rate", task
        bench = task.split("_")[0]
        want = f"temporal_tasks.scoring.aggregations.{bench}__parse_disagreement"
        assert metrics[at]["aggregation"] == ("!function", want), task
        assert metrics[at]["higher_is_better"] is False, task


def test_metric_lists_and_named_aggregations_are_current():
    """The YAML metric lists are what the specs generate."""
    stale = stale_files()
    assert not stale, f"run `python -m temporal_tasks.scoring.metric_lists`: {[str(p) for p in stale]} are stale"


def test_every_generate_task_reports_truncated_rate_beside_invalid_rate():
    generate = {t for t in our_tasks() if task_config(t).get("output_type") == "generate_until"}
    assert GENERATE_TASKS <= generate
    for task in sorted(generate):
        metrics = task_config(task)["metric_list"]
        names = [m["metric"] for m in metrics]
        at = names.index("truncated_rate")
        assert task == "temporalbench_caption_sim" or "invalid_rate" in names[:at], task
        bench = task.split("_")[0]
        want = f"temporal_tasks.scoring.aggregations.{bench}__truncated_rate"
        assert metrics[at]["aggregation"] == ("!function", want), task
        assert metrics[at]["higher_is_better"] is False, task
