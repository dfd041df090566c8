"""``temporal-tasks import``, the round trip: the real lmms-eval runs the full-size fixtures of all four benchmarks
once (official reading), its answers are exported and imported back, and one ``--score`` run gives the same
numbers."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
import shutil
import sys
import time
from pathlib import Path

import pytest

from temporal_tasks import cli
from temporal_tasks.data.sources import DataError
from temporal_tasks.tools.importer import RECORD, RESPONSES, score_command
from temporal_tasks.tools.provenance import differences
from tests.conftest import made_once
from tests.helpers.benchmarks.timeblind import data_rows, official_get_scores, official_predictions
from tests.helpers.files import read_jsonl

# ----------------------------------------------------------------------------- round trip (full size)

ROUND_TRIP_TASKS = (
    "timeblind_iacc", "vinoground_group", "temporalbench_short_mba", "temporalbench_long_mba", "velociti_mc",
    "velociti_strictvle_prob",
)  # fmt: skip


# velociti_strictvle (generated Yes/No; a format of our export only) is left out of the full-size runs to keep them
# short: test_velociti_exported_closed_model_answers covers its import.
BENCHMARKS = ("timeblind", "vinoground", "temporalbench", "velociti")

LABEL = {"yes": 1, "A": 1, "no": 0, "B": 0, None: -1}


def _thinking_answers(rows: list[dict], rng: random.Random) -> tuple[dict[int, str | None], dict, dict]:
    """A thinking model's outputs per row (2% null), and the hand labels: careful and official (answer corpus)."""
    from tests.helpers.answer_corpus import THINKING

    outputs, careful, official = {}, {}, {}
    for r in rows:
        if rng.random() < 0.02:
            outputs[r["index"]], careful[r["index"]], official[r["index"]] = None, -1, -1
            continue
        text, c, o, _why = rng.choice(THINKING["timeblind_yn" if r["type"] == "yes_no" else "timeblind_mc"])
        outputs[r["index"]], careful[r["index"]], official[r["index"]] = text, LABEL[c], LABEL[o]
    return outputs, careful, official


def _answers(root: Path, docs: dict[str, list[dict]], rng: random.Random) -> list[dict]:
    """Replay lines for every task: right, wrong, unreadable and empty answers (the two readings differ)."""
    pick = {
        "A": ["A", "a", "(A)", "The answer is A.", " A", "A. yes"], "B": ["B", "b.", "(B)", "Answer: B", "B) x"],
        "yes": ["Yes", "yes", "Yes.", "Yes, it does.", "**Yes**"], "no": ["No", "no", "No.", "Nothing", "No, never."],
    }  # fmt: skip
    bad = ["", "I cannot tell.", "Both", "maybe"]
    lines = []
    for task, task_docs in docs.items():
        for d in task_docs:
            if task.endswith("_prob"):
                roll = rng.random()
                ll = None if roll < 0.03 else {"Yes": -rng.random() * 3, "No": -rng.random() * 3}
                if ll is not None and roll < 0.06:
                    ll["No"] = ll["Yes"]  # an exact tie: e = 0.5, wrong both ways
                lines.append({"task": task, "question_id": d["question_id"], "loglikelihood": ll or {}})
                continue
            labels = [o["label"] for o in d["options"]] if d.get("options") else ["A", "B"]
            roll = rng.random()
            label = d["gold"] if roll < 0.7 else rng.choice([x for x in labels if x != d["gold"]] or labels)
            text = rng.choice(bad) if roll > 0.93 else rng.choice(pick.get(label, [label]))
            lines.append({"task": task, "question_id": d["question_id"], "response": text})
    return lines


def _lmms_eval(tasks: str, responses: Path, out: Path, launch) -> None:
    cmd = [sys.executable, "-m", "lmms_eval", "--model", "temporal_replay", "--model_args", f"responses={responses}",
           "--tasks", tasks, "--batch_size", "1", "--output_path", str(out), "--log_samples"]  # fmt: skip
    proc = launch(cmd, dict(os.environ), out.parent, 900)
    assert proc.returncode == 0 and list(out.rglob("*_results.json")), (proc.stdout + proc.stderr)[-6000:]


def _results(folder: Path) -> dict:
    (path,) = sorted(folder.rglob("*_results.json"))
    return json.loads(path.read_text())


def _metrics(results: dict, task: str) -> dict[str, float]:
    raw = results["results"][task]
    return {k.split(",")[0]: v for k, v in raw.items() if k.endswith(",none") and "_stderr" not in k}


@pytest.fixture(scope="module")
def round_trip(tmp_path_factory, lmms_launch):
    """The original run (official reading), the export of its answers, the imports, and one ``--score`` run: built
    once per session, by the first pytest-xdist worker that needs it (the others wait and read it)."""

    def make(work: Path) -> None:
        built = _build_round_trip(work, lmms_launch)
        (work / "built.pickle").write_bytes(pickle.dumps({k: v for k, v in built.items() if k != "work"}))

    work = made_once(tmp_path_factory, "import_round_trip", make)
    return {"work": work, **pickle.loads((work / "built.pickle").read_bytes())}


def _build_round_trip(work: Path, launch) -> dict:
    from temporal_tasks.tools.samples import docs_of_task

    root = work / "data"
    from temporal_tasks.data.fixtures import write_fixtures

    write_fixtures(root, full=True)
    env = {"TEMPORAL_TASKS_DATA_DIR": str(root), "TEMPORAL_TASKS_CACHE_DIR": str(work / "cache"),
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "TEMPORAL_TASKS_PARSER": "official"}  # fmt: skip
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        rng = random.Random(31)
        rows = data_rows(root)
        outputs, careful, official = _thinking_answers(rows, rng)
        docs = {t: docs_of_task(t) for t in ROUND_TRIP_TASKS if t != "timeblind_iacc"}
        lines = [{"task": "timeblind_iacc", "question_id": str(i), "response": o or ""} for i, o in outputs.items()]
        lines += _answers(root, docs, rng)
        responses = work / "responses.jsonl"
        responses.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
        timings = {}
        start = time.perf_counter()
        _lmms_eval(",".join(ROUND_TRIP_TASKS), responses, work / "original", launch)
        timings["original run"] = time.perf_counter() - start

        start = time.perf_counter()
        for bench in BENCHMARKS:
            exported, imported = work / "export" / bench, work / "import" / bench
            assert cli.main(["export", "--benchmark", bench, str(work / "original"), "--out", str(exported)]) == 0
            assert cli.main(["import", "--benchmark", bench, str(exported), "--out", str(imported)]) == 0
        # the thinking model's outputs in evaluate.py's shape (nulls where the run had empty answers)
        official_file = work / "sources" / "timeblind" / "predictions.json"
        official_file.parent.mkdir(parents=True)
        official_file.write_text(json.dumps(official_predictions(rows, outputs), indent=2), encoding="utf-8")
        assert cli.main(["import", "--benchmark", "timeblind", str(official_file), "--out", str(work / "tb")]) == 0
        # one --score run for everything: TimeBlind from the official-shape file (whose replay lines equal those of
        # the export's import: test_the_official_shape_imports_to_the_answers_of_the_export), the rest from exports
        merged = {"version": 1, "benchmark": None, "num_frames": None, "files": [], "tasks": {}}
        (work / "all").mkdir()
        with open(work / "all" / RESPONSES, "w", encoding="utf-8") as fh:
            for imported in [work / "tb", *(work / "import" / b for b in BENCHMARKS if b != "timeblind")]:
                fh.write((imported / RESPONSES).read_text(encoding="utf-8"))
                record = json.loads((imported / RECORD).read_text(encoding="utf-8"))
                merged["files"] += record["files"]
                merged["tasks"].update(record["tasks"])
        (work / "all" / RECORD).write_text(json.dumps(merged), encoding="utf-8")
        timings["export + import"] = time.perf_counter() - start

        start = time.perf_counter()
        # `import --score`'s run (score() starts it with subprocess.run: test_score_runs_the_command_it_builds),
        # here as a child of the warm parent
        cmd, env, results_dir = score_command(work / "all", parser="official")
        proc = launch(cmd, env, work, 900)
        assert proc.returncode == 0 and list(results_dir.rglob("*_results.json")), (proc.stdout + proc.stderr)[-6000:]
        timings["--score"] = time.perf_counter() - start
    print(f"[import] {', '.join(f'{k}: {v:.1f} s' for k, v in timings.items())}")
    return {"work": work, "original": _results(work / "original"), "scored": _results(results_dir),
            "results_dir": results_dir, "careful": careful, "official": official}  # fmt: skip


@pytest.mark.parametrize("task", ROUND_TRIP_TASKS)
def test_round_trip_gives_the_same_metrics_in_the_official_reading(round_trip, task):
    original, scored = _metrics(round_trip["original"], task), _metrics(round_trip["scored"], task)
    assert set(scored) == set(original)
    for key, value in original.items():
        assert scored[key] == pytest.approx(value, abs=1e-9, nan_ok=True), (task, key)
    prov = round_trip["scored"]["configs"][task]["metadata"]["provenance"]
    assert prov["reading"] == "official"
    assert prov["frames"]["n"] is None and prov["frames"]["source"] == "unknown (imported answers)"
    counts = prov["imported"]["counts"]
    assert counts["answered"] == counts["questions"] and counts["unknown"] == counts["missing"] == 0
    # the source files are named with their sha256: those export wrote for this task
    bench = task.split("_", 1)[0]
    exported = round_trip["work"] / ("sources" if bench == "timeblind" else "export") / bench
    written = {(p.name, hashlib.sha256(p.read_bytes()).hexdigest()) for p in exported.rglob("*") if p.is_file()}
    named = {(f["name"], f["sha256"]) for f in prov["imported"]["files"]}
    assert named and named <= written, task


def test_replay_runs_and_import_score_build_no_paired_video(round_trip):
    # the original run and `import --score` both replay answers on the full-size fixture: no video is opened, so
    # none is built (issue 39); the folder is the runs' TEMPORAL_TASKS_CACHE_DIR
    cache = round_trip["work"] / "cache"
    assert cache.is_dir()  # the runs used it (the archives they read are extracted there)
    assert not list(cache.rglob("paired_videos/**/*.mp4")) and not (cache / "shortcuts").exists()


def test_round_trip_keeps_timeblind_raw_answers_in_both_readings(round_trip):
    from temporal_tasks.tools.rescore import rescore_task

    work = round_trip["work"]
    original = read_jsonl(next((work / "original").rglob("*_samples_timeblind_iacc.jsonl")))
    scored = read_jsonl(next(round_trip["results_dir"].rglob("*_samples_timeblind_iacc.jsonl")))
    robust_original = rescore_task("timeblind_iacc", original, "robust")
    robust_scored = rescore_task("timeblind_iacc", scored, "robust")
    for key, value in robust_original.items():
        assert robust_scored[key] == pytest.approx(value, abs=1e-9, nan_ok=True), key
    # the thinking model: official reading = the official get_scores on its answers; robust = a careful reading
    official = _metrics(round_trip["scored"], "timeblind_iacc")
    for key, value in official_get_scores(round_trip["official"]).items():
        assert official[key] == pytest.approx(value, abs=1e-9), key
    for key, value in official_get_scores(round_trip["careful"]).items():
        assert robust_scored[key] == pytest.approx(value, abs=1e-9), key
    assert official["instance_acc"] != robust_scored["instance_acc"]  # the two readings do differ on these answers


def test_the_official_shape_imports_to_the_answers_of_the_export(round_trip):
    """evaluate.py's predictions.json and our export of the same outputs give the same replay lines (nulls empty)."""
    work = round_trip["work"]
    from_official = read_jsonl(work / "tb" / RESPONSES)
    from_export = read_jsonl(work / "import" / "timeblind" / RESPONSES)
    assert from_official == from_export
    record = json.loads((work / "tb" / RECORD).read_text())
    nulls = sum(1 for v in round_trip["careful"].values() if v == -1)
    assert record["tasks"]["timeblind_iacc"]["null"] == sum(1 for x in from_official if x["response"] == "") > 0
    assert nulls >= record["tasks"]["timeblind_iacc"]["null"]
    assert record["files"][0]["format"].startswith("TimeBlind evaluate.py predictions")


def test_compare_refuses_an_imported_run_then_pairs_it_with_force(round_trip):
    from temporal_tasks.tools.compare import compare_runs

    # two tasks of each run (samples and results JSON) keep this quick; the refusal and pairing are per task
    original, imported = (round_trip["work"] / "compare" / name for name in ("original", "imported"))
    for source, folder in ((round_trip["work"] / "original", original), (round_trip["results_dir"], imported)):
        folder.mkdir(parents=True)
        kept = ("_results.json", "_samples_timeblind_iacc.jsonl", "_samples_vinoground_group.jsonl")
        for path in source.rglob("*"):
            if path.name.endswith(kept):
                shutil.copy(path, folder / path.name)
    with pytest.raises(DataError, match=r"the runs are not comparable.*answers: lmms-eval run != imported from \S+ "
                       r"\(sha256 [0-9a-f]{12}\)"):  # fmt: skip
        compare_runs(original, imported, iters=50)
    # Vinoground's paired videos were built at N = 32 for our run; the other pipeline's N is unknown
    ours, theirs = (
        round_trip[k]["configs"]["vinoground_group"]["metadata"]["provenance"] for k in ("original", "scored")
    )
    named = differences(ours, theirs)
    assert named[0].startswith("answers: lmms-eval run != imported from textscore-response.jsonl (sha256 ")
    assert "frames.n: 32 != unknown (imported)" in named
    rows, notes = compare_runs(original, imported, force=True, iters=50)
    assert {r.task for r in rows} == {"timeblind_iacc", "vinoground_group"}
    assert all(r.diff == 0 for r in rows)  # the same answers: no group flipped
    assert any("compared with --force although answers: lmms-eval run" in n for n in notes)
