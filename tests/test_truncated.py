"""Thinking cut off by max_new_tokens: unreadable, counted in ``truncated_rate``, and warned about once per task."""

from __future__ import annotations

import math
import random

import pytest

from temporal_tasks.answers.answer_text import truncated_thinking
from temporal_tasks.harness.task_configs import our_tasks, task_config
from temporal_tasks.scoring.aggregations import truncated_rate
from temporal_tasks.scoring.payloads import make_payload
from tests.helpers.payloads import CUT_KIMI, CUT_OFF, GENERATE_TASKS, yes_no_doc


@pytest.mark.parametrize(
    ("answer", "cut"),
    [
        (CUT_OFF, True),
        (CUT_KIMI, True),
        ("<think>reasoning</think>No", False),
        ("reasoning closed by the template\n</think>\nNo", False),
        ("No", False),
        ("", False),
        (None, False),
        ("<think>a</think><think>second block never closed", True),
    ],
)
def test_truncated_thinking(answer, cut):
    assert truncated_thinking(answer) is cut


def test_cut_off_answer_is_unreadable_even_if_the_reasoning_says_yes_or_no():
    p = make_payload(yes_no_doc("g", "r0", 1), "<think>At first glance no, the cup stays. But wait")
    assert p["truncated"] is True and p["pred_robust"] is None and p["correct"] is False
    assert p["parser_errors"] == 0


def test_truncated_rate_hand_computed_any_order():
    # g1 (4): two cut off; g2 (2): none cut; g3 is cut by --limit (1 of 2 answers) and cut off: not counted.
    items = [
        make_payload(yes_no_doc("g1", "r0", 4), CUT_OFF),
        make_payload(yes_no_doc("g1", "r1", 4), "No"),
        make_payload(yes_no_doc("g1", "r2", 4), CUT_KIMI),
        make_payload(yes_no_doc("g1", "r3", 4), ""),  # empty: unreadable, but not cut off
        make_payload(yes_no_doc("g2", "r0", 2), "<think>done</think>Yes"),
        make_payload(yes_no_doc("g2", "r1", 2), "garbage !!"),
        make_payload(yes_no_doc("g3", "r0", 2), CUT_OFF),
    ]
    for seed in range(5):
        random.Random(seed).shuffle(items)
        assert truncated_rate(items) == pytest.approx(100 * 2 / 6)
    assert math.isnan(truncated_rate([]))
    assert math.isnan(truncated_rate([make_payload(yes_no_doc("c", "r0", 2), CUT_OFF)]))  # nothing complete
    old = {k: v for k, v in make_payload(yes_no_doc("o", "r0", 1), CUT_OFF).items() if k != "truncated"}
    assert truncated_rate([old]) == 0.0  # samples written before the key existed: not counted as cut off


def test_warns_once_above_five_percent(warnings_seen):

    few = [make_payload(yes_no_doc(f"g{i}", "r0", 1), "No") for i in range(40)] + [
        make_payload(yes_no_doc("x", "r0", 1), CUT_OFF)
    ]
    assert truncated_rate(few) == pytest.approx(100 / 41)  # 2.4%: no warning
    assert not [w for w in warnings_seen if "cut off inside <think>" in w]
    many = few + [make_payload(yes_no_doc(f"y{i}", "r0", 1), CUT_OFF) for i in range(3)]
    truncated_rate(many)
    truncated_rate(many)
    warned = [w for w in warnings_seen if "cut off inside <think>" in w]
    assert len(warned) == 1 and "max_new_tokens" in warned[0]


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


def test_caption_truncated_rate_counts_each_caption_once():
    from temporal_tasks.benchmarks.temporalbench.tasks import process_results_caption

    doc = {"question_id": "c1", "group_id": "c1", "role": "caption", "gold": "A man walks.", "categories": []}
    cut = process_results_caption(doc, ["<think>The man starts walking and then"])
    done = process_results_caption({**doc, "question_id": "c2", "group_id": "c2"}, ["<think>ok</think>A man walks."])
    assert cut["truncated_rate"]["truncated"] is True and done["truncated_rate"]["truncated"] is False
    items = [cut["truncated_rate"], done["truncated_rate"], cut["truncated_rate"]]  # a repeated shard counts once
    assert truncated_rate(items) == 50.0


@pytest.mark.slow
def test_cli_timeblind_cut_off_thinking_reports_and_warns(lmms_eval):
    # 16 fixture questions (gold by trial position: yes/no rows yes,no,no,yes; MC rows A,B,B,A), answered right
    # after a closed think block, except instance 1 (questions 4-7), cut off while thinking.
    answers = {}
    for i in range(16):
        gold = ("Yes", "No", "No", "Yes")[i % 4] if i < 8 else ("A", "B", "B", "A")[i % 4]
        answers[str(i)] = f"<think>Looking at the frames.</think><answer>{gold}</answer>"
    for i in (4, 5, 6, 7):
        answers[str(i)] = "<think>The object moves, then it stops. Is the second motion slower? Looking again at"
    run = lmms_eval("timeblind_iacc", responses=answers, args=["--gen_kwargs", "max_new_tokens=64"])
    got = run.metrics("timeblind_iacc")
    assert got["truncated_rate"] == 25.0
    assert got["invalid_rate"] == 25.0 and got["instance_acc"] == 75.0
    assert "timeblind_iacc: 25.0% of the scored answers were cut off inside <think>" in run.output
    assert "--gen_kwargs max_new_tokens=" in run.output
    sample = run.samples["timeblind_iacc"][4]
    assert sample["truncated_rate"]["truncated"] is True
