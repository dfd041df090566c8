"""The diagnostic aggregations every generate task reports beside its metrics: readings that disagree, answers cut
off while thinking (with the warning that says which flag to raise), and parser exceptions."""

from __future__ import annotations

import operator

from temporal_tasks.compat import aggregating_task
from temporal_tasks.log import first_time, logger
from temporal_tasks.question_rates import question_rate
from temporal_tasks.scoring import payload_table, percent


def parse_disagreement(items: list) -> float:
    """lmms-eval aggregation of every generate task: percent of scored answers (complete groups) whose
    robust and official readings differ. The same in both parser modes."""
    return question_rate(items, "disagree", "parse_disagreement")


TRUNCATED_WARN_PERCENT = 5.0


def truncated_rate(items: list) -> float:
    """lmms-eval aggregation of every generate task: percent of scored answers (complete groups) cut off inside
    their reasoning (an opened ``<think>`` never closed: ``max_new_tokens`` ran out). Such answers are unreadable,
    so they are part of ``invalid_rate`` too. Above 5% it warns once per task with the flag to raise; it also
    reports parser exceptions (bugs in this package), which are counted apart from unreadable answers."""
    if items and "pred" not in items[0]:  # free-text answers (captions): groups of one, nothing parsed
        unique = {p["question_id"]: bool(p.get("truncated")) for p in items}
        value = percent(sum(unique.values()), len(unique))
    else:
        value = question_rate(items, "truncated", "truncated_rate")

    task, max_new_tokens = aggregating_task()
    if value == value and value > TRUNCATED_WARN_PERCENT and first_time(f"truncated_rate:{task}"):
        now = f" (now {max_new_tokens})" if max_new_tokens else ""
        logger.warning(
            f"{task}: {value:.1f}% of the scored answers were cut off inside <think> before any final answer, so "
            f"they count as unreadable and wrong. The model is still thinking when max_new_tokens runs out{now}: "
            f"rerun with --gen_kwargs max_new_tokens=4096 (or more) for a thinking model."
        )
    if items and "pred" in items[0]:
        errors = payload_table(items, "truncated_rate").parser_errors  # the pass's table: no second read
    else:
        errors = sum(filter(None, map(operator.methodcaller("get", "parser_errors", 0), items)))
    if errors:
        logger.warning(
            f"{task}: {errors} reading(s) of answers raised inside the temporal-tasks parser and were counted as "
            "unreadable. That is a bug in temporal-tasks, not the model's fault: report it with the first traceback "
            "in this log."
        )
    return value
