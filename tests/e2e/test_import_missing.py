"""Official answer files with lines missing, imported and scored through the real lmms-eval CLI (``import`` then the
``--score`` run of ``temporal_replay``): the official reading equals the official script on the same files, and our
export of the scored run writes no line for a missing answer, so the official script on it gives the run's numbers.

TimeBlind (``build_answers``): an instance with a trial missing is all wrong; one with none is not counted.
TemporalBench (``get_qa_acc.py``): only the questions with a line count, a video with none is not counted.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from temporal_tasks import cli
from temporal_tasks.tools.importer import score_command
from temporal_tasks.tools.rescore import rescore
from tests.helpers.benchmarks.temporalbench import check_metrics, official_get_qa_acc_script
from tests.helpers.benchmarks.temporalbench import data_rows as tb_rows
from tests.helpers.benchmarks.timeblind import data_rows, official_predictions, official_scores_of_predictions
from tests.helpers.files import read_jsonl


def _score(imported: Path, env: dict, launch, mode: str) -> dict:
    cmd, score_env, results_dir = score_command(imported, parser=mode)
    proc = launch(cmd, {**env, **score_env}, imported, 600)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    (path,) = sorted(results_dir.rglob("*_results.json"))
    results = json.loads(path.read_text())["results"]
    return {task: {k.split(",")[0]: v for k, v in r.items() if k.endswith(",none")} for task, r in results.items()}


@pytest.fixture
def env(offline_env, cache_root) -> dict:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("TEMPORAL_TASKS_")}
    return {**keep, "TEMPORAL_TASKS_DATA_DIR": str(offline_env), "TEMPORAL_TASKS_CACHE_DIR": str(cache_root),
            "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}  # fmt: skip


def test_timeblind_missing_lines_score_as_build_answers(offline_env, env, tmp_path, lmms_launch, capsys):
    rows = data_rows(offline_env)
    # instance 0: all answered (one wrong); 1: one trial missing; 2: three missing; 3: none answered
    outputs: dict[int, str | None] = {0: "Yes", 1: "Yes", 2: "no", 3: "Yes", 4: "Yes", 6: "No", 7: "Yes", 9: "B"}
    assert {r["index"] for r in rows} == set(range(16)) and rows[9]["type"] == "multiple_choice"
    src = tmp_path / "predictions.json"
    src.write_text(json.dumps(official_predictions(rows, outputs)), encoding="utf-8")
    official = official_scores_of_predictions(official_predictions(rows, outputs), rows)
    assert official["trial_acc"] == pytest.approx(100 * 3 / 12)  # instances 1 and 2 all -1, instance 3 not in N
    assert cli.main(["import", "--benchmark", "timeblind", str(src), "--out", str(tmp_path / "imp")]) == 0
    assert "8 without an answer" in capsys.readouterr().out
    scored = _score(tmp_path / "imp", env, lmms_launch, "official")["timeblind_iacc"]
    for key, value in official.items():
        assert scored[key] == pytest.approx(value), key
    # rescore reads the same from the samples file (the payload's answer_missing), in either reading
    results = tmp_path / "imp" / "results"
    again = rescore([results], mode="official")["results"]["timeblind_iacc"]
    for key, value in official.items():
        assert again[f"{key},none"] == pytest.approx(value), key
    # the robust reading reads a missing answer as an empty one: instance 3 counts, all wrong (every output is
    # right but index 1's "Yes")
    assert rescore([results], mode="robust")["results"]["timeblind_iacc"]["trial_acc,none"] == pytest.approx(
        100 * 7 / 16
    )
    # our export of the official run: no line for a missing answer, and the official numbers of that file
    assert cli.main(["export", "--benchmark", "timeblind", str(results), "--out", str(tmp_path / "exp")]) == 0
    (exported,) = (tmp_path / "exp").glob("*_predictions.json")
    preds = json.loads(exported.read_text())
    assert sorted(p["index"] for p in preds) == sorted(outputs)
    assert official_scores_of_predictions(preds, rows) == pytest.approx(official)


@pytest.mark.parametrize("part", ["short_qa", "long_qa"])
def test_temporalbench_missing_lines_score_as_get_qa_acc(offline_env, env, tmp_path, lmms_launch, part):
    rows = tb_rows(offline_env, part)
    videos: dict[str, list[dict]] = {}
    for r in rows:
        videos.setdefault(r["video_name"], []).append(r)
    first, *rest = sorted(videos)
    kept = []
    for i, r in enumerate(rows):
        if r["video_name"] == first or (i % 3 == 1 and len(videos[r["video_name"]]) > 1):
            continue  # the first video has no line at all; every third question of another video none
        kept.append({"idx": r["idx"], "response": r["GT"] if i % 4 else ("B" if r["GT"] == "A" else "A")})
    assert rest and len(kept) < len(rows)
    folder = tmp_path / "answers" / f"temporalbench_{part}"
    folder.mkdir(parents=True)
    (folder / "model.jsonl").write_text("".join(json.dumps(x) + "\n" for x in kept), encoding="utf-8")
    official = official_get_qa_acc_script(rows, kept, part == "short_qa")
    assert cli.main(["import", "--benchmark", "temporalbench", str(folder / "model.jsonl"), "--out",
                     str(tmp_path / "imp")]) == 0  # fmt: skip
    task = f"temporalbench_{'short' if part == 'short_qa' else 'long'}_mba"
    scored = _score(tmp_path / "imp", env, lmms_launch, "official")[task]
    check_metrics(scored, official, f"{part} imported with missing lines")
    results = tmp_path / "imp" / "results"
    assert cli.main(["export", "--benchmark", "temporalbench", str(results), "--out", str(tmp_path / "exp")]) == 0
    (exported,) = (tmp_path / "exp").rglob(f"{task}.jsonl")
    lines = read_jsonl(exported)
    assert sorted(x["idx"] for x in lines) == sorted(x["idx"] for x in kept)
    check_metrics(official_get_qa_acc_script(rows, lines, part == "short_qa"), official, f"{part} export")
