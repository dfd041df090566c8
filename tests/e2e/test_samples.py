"""The samples of a ``--predict_only`` run rescored like the full run's."""

from __future__ import annotations

import json
import math

import pytest

from temporal_tasks import cli
from temporal_tasks.data.sources import DataError
from temporal_tasks.tools.rescore import rescore
from temporal_tasks.tools.samples import rebuild_lines


def _metrics(result: dict, task: str) -> dict[str, float]:
    return {k.split(",")[0]: v for k, v in result["results"][task].items() if k.endswith(",none")}


def _same(a: dict, b: dict) -> None:
    assert set(a) == set(b)
    for k in a:
        assert (math.isnan(a[k]) and math.isnan(b[k])) or a[k] == pytest.approx(b[k], abs=1e-12), k


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
