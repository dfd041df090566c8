"""The shortcut variants through the real CLI: listed by lmms-eval, scored like the main task, an API model given 0,
1 or N frames, the shuffled files built in the background with the model's N."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from temporal_tasks import video
from temporal_tasks.base import settings
from temporal_tasks.scoring.aggregations import functions
from temporal_tasks.tools.rescore import rescore_task
from tests.helpers.shortcuts import MAIN, SHORTCUT_TASKS

decord = pytest.importorskip("decord")


def test_lmms_eval_tasks_list_shows_the_variants(lmms_tasks_list):
    out = lmms_tasks_list.stdout
    listed = set(out.split())
    for bench, names in SHORTCUT_TASKS.items():
        assert set(names) | {f"{bench}_shortcuts"} <= listed, sorted(set(names) - listed)


# --------------------------------------------------------------------------- scoring through the real CLI


def _answers(bench: str) -> dict[str, str]:
    """Seeded random right, wrong, garbage and empty answers for every question of the benchmark's main task."""
    import importlib

    package = f"temporal_tasks.benchmarks.{bench}"
    module = importlib.import_module(f"{package}.tasks")
    load_docs = getattr(module, "load_docs", None) or importlib.import_module(f"{package}.loader").load_docs
    docs = load_docs() if bench != "vinoground" else load_docs(variant="group")
    rng = random.Random(14)
    out = {}
    for d in docs:
        gold = d["gold"]
        flip = {"yes": "No", "no": "Yes", "A": "B", "B": "A"}
        wrong = flip.get(gold.lower(), flip.get(gold, "?"))
        choices = [gold, gold.upper(), wrong, "", "dunno"]
        out[d["question_id"]] = rng.choice(choices)
    return out


def _shortcut_lines() -> list[dict]:
    """Replay lines for every task of the four ``*_shortcuts`` groups: ``_answers(bench)`` under each task's name
    (question ids are unique within a benchmark, not across them)."""
    return [
        {"task": task, "question_id": qid, "response": text}
        for bench, main in MAIN.items()
        for qid, text in _answers(bench).items()
        for task in (main, *SHORTCUT_TASKS[bench])
    ]


@pytest.mark.parametrize("bench", list(MAIN))
def test_cli_variants_score_like_the_main_task(shared_lmms_eval, offline_env, bench):
    # one run of the four groups serves the four benchmarks (each group alone: the same numbers, as a task's
    # metrics depend on its own questions only)
    groups = ",".join(f"{b}_shortcuts" for b in MAIN)
    run = shared_lmms_eval(groups, responses=_shortcut_lines(), env={settings.ENV_NUM_FRAMES: "5"})
    main = run.metrics(MAIN[bench])
    assert main, run.output[-3000:]
    for name in SHORTCUT_TASKS[bench]:
        got = run.metrics(name)
        if name == "vinoground_text_blind":  # the text-score questions only: the text-score keys agree
            got_keys = set(got)
            assert got_keys and got_keys <= set(main) | {"invalid_rate"}
            for key in got_keys - {"invalid_rate"}:
                assert got[key] == pytest.approx(main[key], nan_ok=True), (name, key)
            continue
        assert got == pytest.approx(main, nan_ok=True), name
        assert len(run.samples[name]) == len(run.samples[MAIN[bench]])
        # `temporal-tasks rescore` reads the variants' sample files like the main task's
        assert rescore_task(name, run.raw_samples[name]) == pytest.approx(got, nan_ok=True), name


# --------------------------------------------------------------------------- an API model on a loopback server


def _api_reply(text: str) -> str:
    """A deterministic answer from the prompt alone (never the images), so every variant gets the same answers."""
    import hashlib

    options = ["Yes", "No", "A", "B", "The answer is yes.", "I cannot tell."]
    return options[hashlib.sha256(text.encode()).digest()[0] % len(options)]


# N = 6: lmms-eval's `openai` chat model samples video frames with qwen_vl_utils, which rounds the frame
# count to an even number (N = 5 would arrive as 4 images).
@pytest.mark.parametrize(("variant", "images"), [("blind", {0}), ("single_frame", {1}), ("shuffled", {6})])
def test_api_model_gets_0_1_or_n_frames(lmms_eval, offline_env, variant, images):
    from temporal_tasks.benchmarks.timeblind import tasks as timeblind
    from temporal_tasks.scoring.payloads import make_payload
    from tests.helpers.openai_server import OpenAIServer

    timeblind_agg = SimpleNamespace(**functions("timeblind"))

    tasks = [f"{MAIN[b]}_{variant}" for b in ("timeblind", "velociti", "temporalbench")]
    with OpenAIServer(rule=lambda req: _api_reply(req.text), max_requests=200, lifetime_s=600) as server:
        run = lmms_eval(
            ",".join(tasks), model="openai",
            model_args=f"model_version=loopback,base_url={server.base_url},max_frames_num=6,num_concurrent=1,"
            "max_retries=1,timeout=60",
            env={settings.ENV_NUM_FRAMES: "6", "OPENAI_API_KEY": "sk-loopback"},
        )  # fmt: skip
    assert len(server.requests) == sum(len(run.samples[t]) for t in tasks) >= 50  # one per question, none retried
    assert {len(req.images) for req in server.requests} == images and not server.refused
    # TimeBlind: the scores are the official rule (the shared core) on the answers the server gave
    docs = {d["question_id"]: d for d in timeblind.load_docs()}
    samples = run.samples[tasks[0]]
    payloads = [s["instance_acc"] for s in sorted(samples, key=lambda s: s["doc_id"])]
    assert all(p["answer"] == _api_reply(docs[p["question_id"]]["prompt"]) for p in payloads)
    rescored = [make_payload(docs[p["question_id"]], p["answer"]) for p in payloads]
    got = run.metrics(tasks[0])
    for key in ("trial_acc", "question_acc", "video_acc", "instance_acc", "invalid_rate"):
        assert got[key] == pytest.approx(getattr(timeblind_agg, key)(rescored), nan_ok=True), key
    # VELOCITI and TemporalBench: every metric is what rescoring the logged answers gives
    for task in tasks[1:]:
        assert run.metrics(task) == pytest.approx(rescore_task(task, run.raw_samples[task]), nan_ok=True), task


def test_cli_shuffled_variant_builds_in_the_background_with_the_models_n(lmms_eval, offline_env, tmp_path):
    # a stand-in for a GPU model: fetches every visual and takes 20 ms; N comes from its frame argument
    from tests.conftest import write_responses

    answers = _answers("timeblind")
    responses = write_responses(tmp_path / "answers.jsonl", answers)
    cache_root = tmp_path / "cache"  # its own: the session's cache holds other tests' files
    run = lmms_eval(
        "timeblind_iacc,timeblind_iacc_shuffled",
        model_args=f"responses={responses},latency_ms=20,max_frames_num=6",
        env={settings.ENV_NUM_FRAMES: "", "TEMPORAL_TASKS_CACHE_DIR": str(cache_root)},
    )
    assert "timeblind_iacc_shuffled: shortcut visuals have N=6 frames (--model_args max_frames_num=6)" in run.output
    assert "shuffled files of this rank are checked and built in the background" in run.output
    from temporal_tasks.benchmarks.timeblind import tasks as timeblind

    clips = {video.content_hash(d["videos"][0]) for d in timeblind.load_docs()}  # one file per clip
    built = sorted((cache_root / "shortcuts" / "shuffled" / "n6").glob("*.mp4"))
    assert len(built) == len(clips) and all(len(decord.VideoReader(str(p))) == 6 for p in built)
    assert f"shortcuts: background build finished: {len(built)} shortcut files built, 0 already cached" in run.output
    assert "shortcuts: every shortcut-file question of this rank served" in run.output
    assert [p.name for p in (cache_root / "shortcuts" / "shuffled").iterdir()] == ["n6"]
    # results unchanged: the same answers score the same as the main task
    assert run.metrics("timeblind_iacc_shuffled") == pytest.approx(run.metrics("timeblind_iacc"), nan_ok=True)
