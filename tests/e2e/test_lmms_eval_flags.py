"""Every way people run lmms-eval gives the right number or a clear error (issue 24): one test per lmms-eval flag
(the README's "lmms-eval flags" table, docs/flags.md) and the Python API.

Each flag row runs the real CLI with temporal_replay on the small fixtures, timeblind_iacc (16 questions, 4
instances) unless N matters, and asserts exact values, computed here in-process from the task's own
process_docs/process_results/aggregations over the questions the flag selects, or a clear error.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from temporal_tasks import compat
from temporal_tasks.base import settings
from temporal_tasks.data.fixtures import write_fixtures
from temporal_tasks.harness.task_configs import resolve_function, task_config
from temporal_tasks.tools.rescore import rescore, task_metrics
from temporal_tasks.tools.samples import line_payload
from tests.helpers.benchmarks.timeblind import TRICKY
from tests.helpers.paths import SCRIPTS

TASK = "timeblind_iacc"

# ----------------------------------------------------------------------------- slow: the Python API


def _api_env(fixture_root: Path, cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        TEMPORAL_TASKS_DATA_DIR=str(fixture_root), TEMPORAL_TASKS_CACHE_DIR=str(cache), HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
    )  # fmt: skip
    env.pop(settings.ENV_NUM_FRAMES, None)
    env.pop("TEMPORAL_TASKS_PARSER", None)
    return env


def _vinoground_answers(path: Path) -> Path:
    qids = [f"{i}_{side}_{kind}" for i in range(4) for side in ("pos", "neg") for kind in ("text", "video")]
    path.write_text("".join(json.dumps({"question_id": q, "response": "A"}) + "\n" for q in qids))
    return path


@pytest.mark.parametrize("mode", ["evaluate", "simple_evaluate"])
def test_python_api_builds_the_models_n_and_prints_it(mode, fixture_root, tmp_path, lmms_launch):
    """A plain script with a model made with max_num_frames=8 (its own argv says 16): N = 8, printed."""
    script = SCRIPTS / "api_run.py"
    cache = tmp_path / "cache"
    responses = _vinoground_answers(tmp_path / "answers.jsonl")
    cmd = [sys.executable, str(script), mode, str(responses), str(tmp_path / "out.json"), "--model_args",
           "max_num_frames=16"]  # fmt: skip
    proc = lmms_launch(cmd, _api_env(fixture_root, cache), tmp_path, 600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "vinoground: paired videos have N=8 frames (model instance attribute max_num_frames=8)" in proc.stderr
    built = {p.parent.name for p in (cache / "paired_videos").rglob("*.mp4")}
    assert built == {"n8"}, built  # every paired video at N = 8, none at 16 or 32
    # the paired videos were planned for background builds also when the script built its tasks before evaluate()
    assert json.loads((tmp_path / "out.json").read_text())["_background_planned"] > 0
    # "A" everywhere (fixture golds): text right on both sides of pair 2 only, video on pair 0 only: 25, 25, 0
    metrics = json.loads((tmp_path / "out.json").read_text())
    assert metrics["text_score,none"] == 25.0 and metrics["video_score,none"] == 25.0
    assert metrics["group_score,none"] == 0.0


# ----------------------------------------------------------------------------- the flag rows


# error. README "lmms-eval flags" has the same table.


def _expected(env: dict[str, str], monkeypatch, *, start: int = 0, stop: int | None = None) -> dict[str, float]:
    """timeblind_iacc's metrics over docs[start:stop] answered from TRICKY, in the reading of ``env``."""
    for key in ("TEMPORAL_TASKS_DATA_DIR", "TEMPORAL_TASKS_PARSER"):
        if key in env:
            monkeypatch.setenv(key, env[key])
        else:
            monkeypatch.delenv(key, raising=False)
    cfg = task_config("timeblind_iacc")
    docs = list(resolve_function(cfg["process_docs"])(None))[start:stop]
    per_doc = [resolve_function(cfg["process_results"])(d, [TRICKY[d["question_id"]]]) for d in docs]
    out = {}
    for key, fn, _hib in task_metrics("timeblind_iacc"):
        items = [r[key] for r in per_doc if key in r]
        if items:
            out[key] = fn(items)
    return out


def _same_numbers(got: dict[str, float], want: dict[str, float]) -> None:
    assert set(got) == set(want), set(got) ^ set(want)
    for key, value in want.items():
        if isinstance(value, float) and value != value:  # NaN
            assert got[key] != got[key], key
        else:
            assert got[key] == pytest.approx(value, abs=1e-9), key


@pytest.fixture
def flag_run(lmms_eval, tmp_path):
    """``run(*args, **kw)``: timeblind_iacc on TRICKY with this test's own ``--cache_requests`` folder."""
    request_cache = tmp_path / "request_cache"  # lmms-eval's --cache_requests folder, this test's own
    request_cache.mkdir()
    env = {"LM_HARNESS_CACHE_PATH": str(request_cache)}

    def run(*args: str, **kw):
        return lmms_eval(TASK, responses=TRICKY, args=list(args), env={**env, **kw.pop("env", {})}, **kw)

    run.env = env
    run.request_cache = request_cache
    return run


@dataclass(frozen=True)
class Row:
    """A flag that selects questions (or none) and must give exactly the task's numbers over them."""

    flag: str
    args: tuple[str, ...]
    start: int = 0  # the questions the flag selects: docs[start:stop]
    stop: int | None = None
    results: dict = field(default_factory=dict)  # {path in the results file: value} the flag must leave there


SAME_NUMBERS = [
    Row("limit_offset", ("--limit", "8", "--offset", "4"), start=4, stop=12),
    Row("process_docs_parallel", ("--process_docs_parallel", "1")),
    Row("seed", ("--seed", "7,8,9,10")),
    Row("gen_kwargs", ("--gen_kwargs", "max_new_tokens=8,temperature=0"),
        results={("configs", TASK, "generation_kwargs", "max_new_tokens"): 8}),
    Row("system_instruction", ("--system_instruction", "Answer briefly."),
        results={("system_instruction",): "Answer briefly."}),
]  # fmt: skip


@pytest.mark.parametrize("row", SAME_NUMBERS, ids=[r.flag for r in SAME_NUMBERS])
def test_flag_scores_the_questions_it_selects(row, flag_run, fixture_root, monkeypatch):
    missing = compat.missing_flag(row.args[0]) if row.args[0] in compat.FLAGS_SINCE else None
    if missing is not None:  # a flag of a later lmms-eval than the one installed
        pytest.skip(missing)
    done = flag_run(*row.args)
    _same_numbers(done.metrics(TASK), _expected(_data(fixture_root), monkeypatch, start=row.start, stop=row.stop))
    for path, value in row.results.items():
        got = done.results
        for key in path:
            got = got[key]
        assert got == value, path


def _data(fixture_root: Path) -> dict[str, str]:
    return {"TEMPORAL_TASKS_DATA_DIR": str(fixture_root)}


def _rescored(results_dir: Path) -> dict[str, float]:
    again = rescore([results_dir])["results"][TASK]
    return {k.split(",")[0]: v for k, v in again.items() if k.endswith(",none")}


def test_flag_log_samples_then_rescore(shared_lmms_eval):
    done = shared_lmms_eval(TASK, responses=TRICKY)  # --log_samples is on in every test run
    assert len(done.samples[TASK]) == 16
    _same_numbers(_rescored(done.out / "results"), done.metrics(TASK))


def test_flag_predict_only_then_rescore(flag_run, fixture_root, tmp_path, monkeypatch):
    done = flag_run("--predict_only")
    assert set(done.metrics(TASK)) == {"bypass"}  # lmms-eval computes no metric of ours: answers only
    # rescore rebuilds each question's payload from the task's data (checked against the run's provenance)
    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(fixture_root))
    _same_numbers(_rescored(tmp_path / "run1" / "results"), _expected(_data(fixture_root), monkeypatch))


def test_flag_use_cache(flag_run, fixture_root, tmp_path, monkeypatch):
    responses_cache = tmp_path / "responses_cache"
    first = flag_run("--use_cache", str(responses_cache))
    second = flag_run("--use_cache", str(responses_cache))
    _same_numbers(first.metrics(TASK), _expected(_data(fixture_root), monkeypatch))
    _same_numbers(second.metrics(TASK), first.metrics(TASK))


def test_flag_cache_requests(lmms_eval, flag_run, fixture_root, tmp_path, monkeypatch):
    # visuals=true: the model fetches each request's visuals, as a real video model does (lmms-eval 0.7.3
    # drops doc_to_visual from a cache hit; compat.restore_cached_visuals puts it back for our tasks)
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"question_id": q, "response": r}) + "\n" for q, r in TRICKY.items()))

    def run(*args: str, **kw):
        return lmms_eval(TASK, model_args=f"responses={answers},visuals=true", args=list(args), env=flag_run.env, **kw)

    first = run("--cache_requests", "true")
    assert list(flag_run.request_cache.iterdir()), "lmms-eval wrote no request cache"
    _same_numbers(first.metrics(TASK), _expected(_data(fixture_root), monkeypatch))
    hit = run("--cache_requests", "true")  # a cache hit: same data, same numbers, no crash
    assert "not callable" not in hit.output
    _same_numbers(hit.metrics(TASK), first.metrics(TASK))
    # a bigger data folder with the stale cache: the clear error, never scores over 16 of 2,400 questions
    full = tmp_path / "full"
    write_fixtures(full, ["timeblind"], full=True)
    stale = run("--cache_requests", "true", data_dir=full, expect_ok=False)
    assert stale.returncode != 0 and not stale.results
    assert "the run selected 2400 questions" in stale.output and "only 16 were answered" in stale.output
    assert "--cache_requests refresh" in stale.output
    fresh = run("--cache_requests", "refresh", data_dir=full)
    assert fresh.results["n-samples"][TASK]["effective"] == 2400


def test_flag_repeats(flag_run, fixture_root, monkeypatch):
    # lmms-eval 0.7.3 asks each question k times and every answer is scored (issue 23). The replay gives
    # both repeats the same answer: every value is the single run's, plus the stability keys of each group
    # metric (consensus = the value, every group consistent, SD 0). tests/scoring/test_metrics.py: differing repeats.
    done = flag_run("--repeats", "2").metrics(TASK)
    want = _expected(_data(fixture_root), monkeypatch)
    grouped = {k for k in want if _group_metric(k)}
    stability = {f"{k}_{s}" for k in grouped for s in ("consensus_accuracy", "consistency_rate", "repeat_sd")}
    assert set(done) == set(want) | stability
    _same_numbers({k: v for k, v in done.items() if k in want}, want)
    for key, value in want.items():
        if key in grouped and value == value:
            assert done[f"{key}_consensus_accuracy"] == pytest.approx(value, abs=1e-9), key
            assert done[f"{key}_consistency_rate"] == 100.0 and done[f"{key}_repeat_sd"] == 0.0, key


def _group_metric(key: str) -> bool:
    """A TimeBlind group metric: a value or per-category key of the spec's (no diagnostic, no CI)."""
    from temporal_tasks.benchmarks.timeblind import METRIC_LIST

    return key in METRIC_LIST.values or any(key in block.keys() for block in METRIC_LIST.per_category)


def _config_run(entries: list[dict], tmp_path: Path, fixture_root: Path, cache_root: Path, env: dict, launch):
    config = tmp_path / "run.yaml"
    config.write_text(yaml.safe_dump(entries))
    cmd = [sys.executable, "-m", "lmms_eval", "--config", str(config)]
    return launch(cmd, {**_api_env(fixture_root, cache_root), **env}, tmp_path, 900)


def _config_entries(tmp_path: Path, two: bool) -> list[dict]:
    responses = tmp_path / "answers.jsonl"
    responses.write_text("".join(json.dumps({"question_id": q, "response": r}) + "\n" for q, r in TRICKY.items()))
    entry = {"model": "temporal_replay", "model_args": f"responses={responses}", "tasks": TASK, "batch_size": 1,
             "log_samples": True, "verbosity": "DEBUG"}  # fmt: skip
    entries = [{**entry, "output_path": str(tmp_path / "a"), "env": {"TEMPORAL_TASKS_PARSER": "official"}}]
    if two:
        entries.append({**entry, "output_path": str(tmp_path / "b")})  # sets no parser
    return entries


def test_flag_config_one_entry(flag_run, fixture_root, cache_root, tmp_path, monkeypatch, lmms_launch):
    proc = _config_run(_config_entries(tmp_path, False), tmp_path, fixture_root, cache_root, flag_run.env, lmms_launch)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (results,) = (tmp_path / "a").rglob("*_results.json")
    got = json.loads(results.read_text())["results"][TASK]
    official = _expected({**_data(fixture_root), "TEMPORAL_TASKS_PARSER": "official"}, monkeypatch)
    scored = {k.split(",")[0]: v for k, v in got.items() if k.endswith(",none") and "_stderr" not in k}
    _same_numbers(scored, official)
    (samples,) = (tmp_path / "a").rglob("*_samples_*.jsonl")
    modes = {line_payload(json.loads(x))["parser_mode"] for x in samples.read_text().splitlines() if x}
    assert modes == {"official"}  # the samples say which reading scored them


def test_flag_config_two_entries(flag_run, fixture_root, cache_root, tmp_path, lmms_launch):
    proc = _config_run(_config_entries(tmp_path, True), tmp_path, fixture_root, cache_root, flag_run.env, lmms_launch)
    # lmms-eval exports every entry's env before the first run: entry 2 would be scored `official` too
    assert proc.returncode != 0, "two entries with different parser settings ran"
    out = proc.stdout + proc.stderr
    assert "--config: the entries set TEMPORAL_TASKS_PARSER differently" in out
    assert "entry 1=official, entry 2=(unset)" in out and "model_args" in out
    assert not list(tmp_path.rglob("*_results.json"))


def test_flag_num_fewshot(flag_run):
    done = flag_run("--num_fewshot", "2", expect_ok=False)
    assert done.returncode != 0 and not done.results
    assert "--num_fewshot 2: these temporal-reasoning tasks are zero-shot" in done.output
    assert "has no attribute 'sampler'" not in done.output


def test_flag_limit_0(lmms_eval, flag_run, tmp_path):
    videos = tmp_path / "videos"
    # visuals=true: a model that reads visuals, for which the paired videos are built ahead (none for plain replay)
    responses = _vinoground_answers(tmp_path / "v.jsonl")
    done = lmms_eval("vinoground_group", model_args=f"responses={responses},visuals=true", args=["--limit", "0"],
                     env={**flag_run.env, "TEMPORAL_TASKS_CACHE_DIR": str(videos)}, expect_ok=False)  # fmt: skip
    assert not done.results  # lmms-eval stops: no document selected
    built = list((videos / "paired_videos").rglob("*.mp4"))
    assert not built, "a paired video was built for a run that selects no question"


def test_flag_power(fixture_root, cache_root, tmp_path, lmms_launch):
    """``lmms-eval power`` runs on our tasks but sizes them in questions, as if each were independent: the small
    TimeBlind fixture's 16 questions, not its 4 instances (what I-Acc is over). Hence the row's advice: the
    group-bootstrap CIs and ``temporal-tasks compare``."""
    rows = [json.loads(x) for x in (fixture_root / "timeblind" / "data.jsonl").read_text().splitlines() if x]
    assert (len(rows), len({r["index"] // 4 for r in rows})) == (16, 4)
    cmd = [sys.executable, "-m", "lmms_eval", "power", "--tasks", TASK]
    proc = lmms_launch(cmd, _api_env(fixture_root, cache_root), tmp_path, 600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f"{TASK}:" in proc.stdout, proc.stdout[-3000:]
    sized = proc.stdout.split(f"{TASK}:", 1)[1].split("\n")[1]
    assert sized.split() == ["Sample", "size:", "n", "=", "16"], sized  # questions, not the 4 instances


# Several processes (torchrun, two ranks): tests/e2e/test_reliability.py::test_two_processes_give_identical_metrics runs
# every demo task on one and on two ranks and checks every number equal (and rescored from both runs' samples).


def test_flag_frames_from_model_args(lmms_eval, flag_run, tmp_path):
    videos = tmp_path / "videos"
    responses = _vinoground_answers(tmp_path / "v.jsonl")
    done = lmms_eval("vinoground_group", model_args=f"responses={responses},max_num_frames=8,visuals=true",
                     env={**flag_run.env, "TEMPORAL_TASKS_CACHE_DIR": str(videos)})  # fmt: skip
    assert "paired videos have N=8 frames (model instance attribute max_num_frames=8)" in done.output
    built = [p for p in (videos / "paired_videos").rglob("*") if p.is_file()]
    assert {p.parent.name for p in built} == {"n8"} and len(built) == 6  # 8 video questions, 6 distinct videos
    assert done.metrics("vinoground_group")["group_score"] == 0.0
    # plain replay reads no visuals (issue 39): no paired video built, the same N and numbers in the results
    plain_cache = tmp_path / "plain"
    plain = lmms_eval("vinoground_group", model_args=f"responses={responses},max_num_frames=8",
                      env={**flag_run.env, "TEMPORAL_TASKS_CACHE_DIR": str(plain_cache)})  # fmt: skip
    assert (
        "no paired video built ahead: the model (TemporalReplay) reads no visuals (reads_visuals=False)" in plain.output
    )
    assert not (plain_cache / "paired_videos").exists()
    assert plain.metrics("vinoground_group") == pytest.approx(done.metrics("vinoground_group"), nan_ok=True)
    record = {k: plain.results["configs"]["vinoground_group"]["metadata"]["provenance"][k] for k in ("frames",
              "paired_layout")}  # fmt: skip
    assert record == {k: done.results["configs"]["vinoground_group"]["metadata"]["provenance"][k] for k in record}
    assert record["frames"]["n"] == 8
