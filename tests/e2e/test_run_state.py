"""One run state: two evaluations in one process give what two processes give (results, provenance, warnings).

Two processes run the same two evaluations in opposite orders (A then B; B then A), so each evaluation runs once
first in a fresh process and once after the other one in the same process; the records must be equal.
A and B differ in data folder (B lacks one TimeBlind instance), in N (8 vs 16) and so in the paired videos.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

from temporal_tasks.tools.samples import docs_of_task
from tests.conftest import write_responses
from tests.helpers.paths import SCRIPTS

TASKS = ["timeblind_iacc", "vinoground_group"]

CUT = "<think>Let me look at the first video frame by frame. The square starts"


def _answers(docs: list[dict]) -> dict[str, str]:
    """Gold for most, one wrong per eight, and two cut off while thinking (over 5%: the truncation warning)."""
    out = {}
    for i, doc in enumerate(docs):
        gold = doc["gold"]
        text = {"yes": "Yes", "no": "No"}.get(gold, gold)
        out[doc["question_id"]] = CUT if i in (1, 6) else ("Yes" if text == "No" else "No") if i % 8 == 3 else text
    return out


def test_two_evaluations_in_one_process_equal_two_processes(
    offline_env, fixture_root, cache_root, tmp_path, lmms_launch
):
    data_b = tmp_path / "data_b"
    shutil.copytree(fixture_root, data_b)
    rows = (data_b / "timeblind" / "data.jsonl").read_text().splitlines()
    (data_b / "timeblind" / "data.jsonl").write_text("\n".join(rows[:-4]) + "\n")  # one instance fewer
    answers = {}
    for task in TASKS:
        answers.update(_answers(docs_of_task(task)))
    responses = write_responses(tmp_path / "responses.jsonl", answers)
    a = {"data_dir": str(fixture_root), "n": 8, "tasks": TASKS, "responses": str(responses)}
    b = {"data_dir": str(data_b), "n": 16, "tasks": TASKS, "responses": str(responses)}
    script = SCRIPTS / "two_evaluations.py"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEMPORAL_TASKS_")}
    env.update(TEMPORAL_TASKS_CACHE_DIR=str(cache_root), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    records = {}
    for order in ("ab", "ba"):
        plan = tmp_path / f"{order}.json"
        plan.write_text(json.dumps([a if x == "a" else b for x in order]))
        out = tmp_path / f"{order}.out.json"
        # a process of its own (forked from the warm parent: tests/helpers/lmms_runner.py), as each order must be
        proc = lmms_launch([sys.executable, str(script), str(plan), str(out)], env, tmp_path, 600)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        first, second = json.loads(out.read_text())
        records[order[0] + "_first"], records[order[1] + "_second"] = first, second
    for name in ("a", "b"):
        fresh, after = records[f"{name}_first"], records[f"{name}_second"]
        assert after["results"] == fresh["results"], name
        assert after["provenance"] == fresh["provenance"], name
        assert after["warnings"] == fresh["warnings"], name
        assert after["notes"] == fresh["notes"], name
        assert any("cut off inside <think>" in w for w in fresh["warnings"]), name  # the warning both must give
    # the two evaluations really differ: data, N and the TimeBlind questions
    pa, pb = records["a_first"]["provenance"], records["b_first"]["provenance"]
    assert pa["vinoground_group"]["frames"]["n"] == 8 and pb["vinoground_group"]["frames"]["n"] == 16
    assert pa["timeblind_iacc"]["data"]["questions"] == 16 and pb["timeblind_iacc"]["data"]["questions"] == 12
    assert any("N=8" in x for x in records["a_second"]["notes"]) and any(
        "N=16" in x for x in records["b_second"]["notes"]
    )
