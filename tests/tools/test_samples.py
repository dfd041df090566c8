"""Reading samples files back (``tools/samples.py``): lean lines, the answer of old and new lines, and a task's docs
without builds."""

from __future__ import annotations

import json
import pickle

import pytest

from temporal_tasks.base.run_state import STATE
from temporal_tasks.data.sources import DataError
from temporal_tasks.scoring.payloads import SharedPayload, share
from temporal_tasks.tools.samples import answer_of, fed_keys, line_payload


def _payload(**kw) -> dict:
    return {"question_id": "1", "group_id": "g", "role": "a", "group_size": 1, "categories": [], "answer": "Yes.",
            "gold": "yes", "parser": "timeblind_yes_no", "pred": "yes", "correct": True, **kw}  # fmt: skip


def test_share_writes_the_payload_once_without_the_answer():
    payload = _payload()
    out = share(payload, ["trial_acc", "invalid_rate", "trial_acc_ci_low", "instance_acc_speed"])
    assert list(out)[0] == "invalid_rate" and "answer" not in json.loads(json.dumps(out["invalid_rate"]))
    refs = [out[k] for k in ("trial_acc", "trial_acc_ci_low", "instance_acc_speed")]
    assert all(r is refs[0] for r in refs)  # one object under every key but the primary
    assert dict(refs[0]) == payload and refs[0]["correct"] is True  # in the process: the full payload
    line = json.loads(json.dumps({"filtered_resps": "Yes.", **out}))
    assert line["trial_acc"] == {"same_as": "invalid_rate"}
    assert json.dumps(line).count("Yes.") == 1
    assert line_payload(line) == payload and sorted(fed_keys(line)) == sorted(out)
    # lmms-eval gathers ranks by pickling: the full payload travels
    back = pickle.loads(pickle.dumps(out["trial_acc"]))
    assert isinstance(back, SharedPayload) and dict(back) == payload and back.primary == "invalid_rate"
    # a task without invalid_rate: its first key holds the payload
    assert list(share(payload, ["caption_sim"])) == ["caption_sim"]


def test_answer_of_unflattened_and_old_lines():
    assert answer_of({"filtered_resps": [["B"]]}) == "B"
    assert answer_of({"resps": ["A"]}) == "A"
    assert answer_of({"filtered_resps": None}) == ""
    old = {"trial_acc": _payload(answer="old"), "filtered_resps": "new"}
    assert line_payload(old)["answer"] == "old"  # older files carry the answer in the payload


def test_task_docs_come_from_the_task_configs_process_docs_without_builds(offline_env, monkeypatch):
    from temporal_tasks.benchmarks.temporalbench import tasks as temporalbench
    from temporal_tasks.benchmarks.timeblind import tasks as timeblind
    from temporal_tasks.benchmarks.velociti import tasks as velociti
    from temporal_tasks.benchmarks.vinoground import tasks as vinoground
    from temporal_tasks.tools.samples import docs_of_task

    expected = {
        "timeblind_iacc": lambda: timeblind.load_docs(),
        "vinoground_group": lambda: vinoground.load_docs(variant="group"),
        "vinoground_group_official": lambda: vinoground.load_docs(variant="official"),
        "temporalbench_long_mba": lambda: temporalbench.load_qa("long_qa"),
        "temporalbench_caption_sim": lambda: temporalbench.load_caption_docs(),
        "velociti_mc_subset": lambda: velociti.load_docs(kind="mc", subset=True),
    }
    for task, load in expected.items():
        assert docs_of_task(task) == load(), task
    assert not STATE.deferred  # the paired-video builds of a run were neither started nor deferred
    with pytest.raises(DataError, match="not one of our tasks"):
        docs_of_task("no_such_task")
