"""Lean samples files, and rescoring the samples of --predict_only runs."""

from __future__ import annotations

import json
import math
import pickle

import pytest

from temporal_tasks import cli
from temporal_tasks.base.run_state import STATE
from temporal_tasks.data.sources import DataError
from temporal_tasks.scoring.payloads import SharedPayload, share
from temporal_tasks.tools.rescore import rescore
from temporal_tasks.tools.samples import answer_of, fed_keys, line_payload, rebuild_lines


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


def _metrics(result: dict, task: str) -> dict[str, float]:
    return {k.split(",")[0]: v for k, v in result["results"][task].items() if k.endswith(",none")}


def _same(a: dict, b: dict) -> None:
    assert set(a) == set(b)
    for k in a:
        assert (math.isnan(a[k]) and math.isnan(b[k])) or a[k] == pytest.approx(b[k], abs=1e-12), k


@pytest.mark.slow
def test_predict_only_samples_score_like_the_full_run(lmms_eval, fixture_root, tmp_path, monkeypatch, capsys):
    from temporal_tasks.benchmarks.timeblind import tasks as timeblind
    from temporal_tasks.benchmarks.vinoground import tasks as vinoground

    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(fixture_root))
    docs = timeblind.load_docs() + vinoground.load_docs(variant="group")
    answers = {line["question_id"]: line["response"] for line in cli.demo_responses(docs, seed=5)}
    tasks = "timeblind_iacc,vinoground_group"
    full = lmms_eval(tasks, responses=answers)
    predicted = lmms_eval(tasks, responses=answers, args=["--predict_only"])
    out = next(p for p in (tmp_path / "run2").rglob("results") if p.is_dir())
    assert all("bypass" in line for line in predicted.raw_samples["timeblind_iacc"])
    result = rescore([out])
    for task in tasks.split(","):
        _same(_metrics(result, task), full.metrics(task))
        rescored = result["configs"][task]["metadata"]["provenance"]
        assert rescored["rescored"]["predict_only"] is True and rescored["data"]["questions"] == 16
    # the CLI prints the table and exits 0
    assert cli.main(["rescore", str(out)]) == 0
    assert "| timeblind_iacc | instance_acc |" in capsys.readouterr().out

    # The data changed since the run: refused, naming what differs.
    (samples,) = out.rglob("*_samples_timeblind_iacc.jsonl")
    lines = [json.loads(x) for x in samples.read_text().splitlines()]
    record = result["configs"]["timeblind_iacc"]["metadata"]["provenance"]
    other = {**record, "data": {**record["data"], "videos_sha256": "0" * 64}}
    with pytest.raises(DataError, match="videos_sha256"):
        rebuild_lines("timeblind_iacc", lines, samples, other)
    lines[3]["target"] = "maybe"
    with pytest.raises(DataError, match="line 4 .doc_id 3"):
        rebuild_lines("timeblind_iacc", lines, samples, None)


def test_unscorable_samples_file_is_an_error(tmp_path, capsys):
    empty = tmp_path / "20260101_samples_timeblind_iacc.jsonl"
    empty.write_text("")
    with pytest.raises(DataError, match="cannot score timeblind_iacc: it is empty"):
        rescore([empty])
    empty.write_text(json.dumps({"doc_id": 0, "target": "yes"}) + "\n")
    assert cli.main(["rescore", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "cannot score timeblind_iacc" in err and "--log_samples" in err


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
