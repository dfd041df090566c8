"""``rescore`` and ``export`` of live runs: the run's numbers again, and the official scorer's."""

from __future__ import annotations

import json
import math

import pytest

from temporal_tasks import cli
from temporal_tasks.tools.export import export
from temporal_tasks.tools.rescore import rescore
from tests.helpers.benchmarks.timeblind import TRICKY, official_get_scores


def _same(a: dict, b: dict) -> None:
    assert set(a) == set(b)
    for key in a:
        assert (math.isnan(a[key]) and math.isnan(b[key])) or a[key] == pytest.approx(b[key], abs=1e-9), key


def _rescored(result: dict, task: str) -> dict[str, float]:
    return {k.split(",")[0]: v for k, v in result["results"][task].items() if k.endswith(",none")}


def test_rescore_reproduces_runs_and_export_matches_official(shared_lmms_eval, tmp_path, capsys):
    robust = shared_lmms_eval("timeblind_iacc", responses=TRICKY)
    official = shared_lmms_eval("timeblind_iacc", responses=TRICKY, env={"TEMPORAL_TASKS_PARSER": "official"})
    robust_dir = robust.out / "results"  # read only: rescore and export write under tmp_path

    # 1. the same mode reproduces the run exactly, every key (CIs included)
    _same(_rescored(rescore([robust_dir]), "timeblind_iacc"), robust.metrics("timeblind_iacc"))
    # 2. switching the parser after the run gives what a run in that mode gives
    _same(_rescored(rescore([robust_dir], "official"), "timeblind_iacc"), official.metrics("timeblind_iacc"))

    # ... and only the parser explains the change: exactly the answers noted in TRICKY parse differently
    def preds(run):
        return {s["trial_acc"]["question_id"]: s["trial_acc"]["pred"] for s in run.samples["timeblind_iacc"]}

    r, o = preds(robust), preds(official)
    assert {q for q in r if r[q] != o[q]} == {"0", "8", "12"}
    # parse_disagreement reports exactly those: 3 of 16 answers, whatever the mode in force
    assert robust.metrics("timeblind_iacc")["parse_disagreement"] == pytest.approx(100 * 3 / 16)
    assert official.metrics("timeblind_iacc")["parse_disagreement"] == pytest.approx(100 * 3 / 16)
    sample = robust.samples["timeblind_iacc"][0]["trial_acc"]
    assert {"pred", "pred_robust", "pred_official", "option_keys"} <= set(sample)

    # 3. the CLI writes lmms-eval's results format
    assert cli.main(["rescore", str(robust_dir), "--out", str(tmp_path / "re")]) == 0
    written = json.loads((tmp_path / "re" / "rescored_results.json").read_text())
    assert written["results"]["timeblind_iacc"]["instance_acc,none"] == robust.metrics("timeblind_iacc")["instance_acc"]
    assert "| timeblind_iacc | instance_acc |" in capsys.readouterr().out

    # 4. the export is what the official scorer reads, and it scores like the official-mode run
    (path,) = export("timeblind", [robust_dir], tmp_path / "export")
    preds = json.loads(path.read_text())
    assert [p["index"] for p in preds] == list(range(16))
    from temporal_tasks.answers.parsing import get_parser

    labels = {}
    for p in preds:
        parser = get_parser("timeblind_yes_no" if p["type"] == "yes_no" else "timeblind_mc")
        labels[p["index"]] = {"yes": 1, "A": 1, "no": 0, "B": 0}.get(parser.parse(p["model_output"], "official"), -1)
    got = official.metrics("timeblind_iacc")
    for metric, value in official_get_scores(labels).items():
        assert got[metric] == pytest.approx(value), metric
    assert [p["model_output"] for p in preds] == [TRICKY[str(i)] for i in range(16)]
