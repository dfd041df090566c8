"""``process_docs`` (``harness/task_docs.py``): ``--num_fewshot`` above zero is a clear error."""

from __future__ import annotations

import pytest


def test_num_fewshot_above_zero_is_a_clear_error(monkeypatch):
    from temporal_tasks.harness.task_docs import check_zero_shot

    def simple_evaluate(model_args=None, num_fewshot=None):
        check_zero_shot()

    simple_evaluate(model_args="", num_fewshot=0)
    with pytest.raises(SystemExit, match="--num_fewshot 2: these temporal-reasoning tasks are zero-shot"):
        simple_evaluate(model_args="", num_fewshot=2)
