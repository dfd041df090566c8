"""Shortcut analyses: blind, single-frame and shuffled variants of every benchmark's main task."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from temporal_tasks import video
from temporal_tasks.api.registry import get
from temporal_tasks.base import settings
from temporal_tasks.base.run_state import STATE
from temporal_tasks.data.fixtures.clips import moving, resizing, write_video
from temporal_tasks.data.sources import DataError
from temporal_tasks.harness import shortcuts
from temporal_tasks.harness.task_configs import our_tasks, task_config
from temporal_tasks.scoring.aggregations import functions
from temporal_tasks.tools.rescore import rescore_task
from temporal_tasks.video import shortcut_files

decord = pytest.importorskip("decord")

MAIN = {
    "timeblind": "timeblind_iacc",
    "velociti": "velociti_strictvle",
    "temporalbench": "temporalbench_short_mba",
    "vinoground": "vinoground_group",
}
VARIANTS = {
    bench: ["vinoground_text_blind" if bench == "vinoground" else f"{main}_blind"]
    + [f"{main}_{v}" for v in ("single_frame", "shuffled")]
    for bench, main in MAIN.items()
}


def _decode_all(path: Path) -> np.ndarray:
    reader = decord.VideoReader(str(path))
    return reader.get_batch(list(range(len(reader)))).asnumpy().astype(np.int16)


def _nearest(frames: np.ndarray, src: np.ndarray) -> list[int]:
    """For each frame, the index of the closest source frame (mean absolute difference), asserting it is close."""
    out = []
    for f in frames:
        dists = [float(np.abs(f - s.astype(np.int16)).mean()) for s in src]
        j = int(np.argmin(dists))
        assert dists[j] < 3.0, dists[j]
        out.append(j)
    return out


@pytest.fixture
def clip(tmp_path) -> Path:
    # 24 frames of a moving square: every uniformly sampled frame is distinct
    return write_video(tmp_path / "clip.mp4", moving("left_to_right"), num_frames=24)


# --------------------------------------------------------------------------- task tree


def test_variant_configs_reuse_the_main_task():
    tasks = our_tasks()
    for bench, main in MAIN.items():
        main_cfg = task_config(main)
        for name in VARIANTS[bench]:
            assert tasks[name][0] == "task"
            cfg = task_config(name)
            # same docs (except vinoground's text-only blind task), parser, prompt and aggregation
            if name != "vinoground_text_blind":
                # variants with files to build load the main docs through their own process_docs (which plans
                # this rank's background builds); test_variant_docs_are_the_main_docs checks they are the same
                own = (
                    ("task", "doc_to_visual") if name.endswith("_blind") else ("task", "doc_to_visual", "process_docs")
                )
                assert {k: v for k, v in cfg.items() if k not in own} == {
                    k: v for k, v in main_cfg.items() if k not in own
                }
                variant = name.rsplit(main + "_", 1)[1]
                assert cfg["doc_to_visual"][1] == f"temporal_tasks.harness.kit.{variant}_visual"
                if variant != "blind":  # one process_docs per variant; the main task from the benchmark's spec
                    assert cfg["process_docs"][1] == f"temporal_tasks.harness.kit.process_docs_{variant}"
                    assert get(bench).shortcut_main == main
        group = task_config(f"{bench}_shortcuts")
        assert group["task"] == [main, *VARIANTS[bench]]


@pytest.mark.slow
def test_lmms_eval_tasks_list_shows_the_variants(lmms_tasks_list):
    out = lmms_tasks_list.stdout
    listed = set(out.split())
    for bench, names in VARIANTS.items():
        assert set(names) | {f"{bench}_shortcuts"} <= listed, sorted(set(names) - listed)


# --------------------------------------------------------------------------- visuals


def test_seeds_are_stable_and_depend_on_the_question():
    assert shortcut_files.seed_for("a", 1) == shortcut_files.seed_for("a", 1) != shortcut_files.seed_for("a", 2)
    picks = [shortcut_files.frame_choice(str(q), 32) for q in range(200)]
    assert all(0 <= p < 32 for p in picks)
    assert len(set(picks)) > 20  # not one frame for everyone
    # a pinned value: a change of the seed derivation (and so of every published number) fails here
    assert [shortcut_files.frame_choice(q, 32) for q in ("0", "1", "2")] == [11, 16, 4]
    assert shortcut_files.shuffle_order("abc", 8).tolist() == [6, 1, 0, 2, 3, 7, 4, 5]
    for n in (2, 3, 8, 32):
        order = shortcut_files.shuffle_order("abc", n)
        assert sorted(order.tolist()) == list(range(n)) and order.tolist() != list(range(n))


def test_blind_visual_is_empty():
    assert shortcuts.blind_visual({"question_id": "0", "videos": ["x.mp4"]}) == []


def test_single_frame_is_one_reproducible_image(clip, tmp_path, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "8")
    src = video.sample_clip(clip, 8).frames
    seen = {}
    for qid in [str(i) for i in range(12)]:
        doc = {"question_id": qid, "videos": [str(clip)]}
        first = shortcuts.single_frame_visual(doc)
        assert len(first) == 1 and first[0].mode == "RGB"
        again = np.asarray(shortcuts.single_frame_visual(doc)[0])
        assert np.array_equal(np.asarray(first[0]), again)  # same question, same frame
        # lossless: exactly the sampled frame frame_choice names
        assert np.array_equal(again, src[shortcut_files.frame_choice(qid, 8)])
        seen[qid] = _nearest(again[None].astype(np.int16), src)[0]
    assert len(set(seen.values())) >= 3, seen  # different questions, different frames
    # rebuilt from scratch (another machine, an emptied cache): the same frame
    for p in (tmp_path / "cache").rglob("*.png"):
        p.unlink()
    assert np.array_equal(np.asarray(shortcuts.single_frame_visual({"question_id": "5", "videos": [str(clip)]})[0]),
                          src[shortcut_files.frame_choice("5", 8)])  # fmt: skip


def test_shuffled_video_is_a_permutation_of_the_uniform_frames(clip, tmp_path, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "8")
    [path] = shortcuts.shuffled_visual({"question_id": "0", "videos": [str(clip)]})
    frames = _decode_all(Path(path))
    assert len(frames) == 8
    # the uniformly sampled frames of the clip, decoded independently of the builder
    reader = decord.VideoReader(str(clip))
    idx = np.floor(np.linspace(0, len(reader) - 1, 8) + 0.5).astype(int).tolist()
    src = reader.get_batch(idx).asnumpy()
    order = _nearest(frames, src)
    assert sorted(order) == list(range(8)), order  # every sampled frame exactly once
    assert order != list(range(8))  # and not in the original order
    assert order == shortcut_files.shuffle_order(video.content_hash(clip), 8).tolist()
    # cached: a second question on the same clip gets the same file, not rebuilt
    mtime = Path(path).stat().st_mtime_ns
    again, built = shortcut_files.cached_visual({"question_id": "1", "videos": [str(clip)]}, "shuffled", 8)
    assert (str(again), built, again.stat().st_mtime_ns) == (path, False, mtime)
    assert shortcuts.shuffled_visual({"question_id": "1", "videos": [str(clip)]}) == [path]
    # N is part of the key
    other, built = shortcut_files.cached_visual({"question_id": "1", "videos": [str(clip)]}, "shuffled", 6)
    assert built and other != Path(path) and len(_decode_all(other)) == 6
    assert not list((tmp_path / "cache").rglob("*.tmp.mp4"))


def test_paired_variants_keep_the_clips_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "9")
    a = write_video(tmp_path / "a.mp4", moving("left_to_right"), num_frames=24)
    b = write_video(tmp_path / "b.mp4", resizing(True), num_frames=24)
    doc = {"question_id": "3_pos_video", "videos": [str(a), str(b)], "paired": True}
    k = 4  # (9 - 1) // 2 frames per clip, 1 black frame
    src_a, src_b = video.sample_clip(a, k).frames, video.sample_clip(b, k).frames
    frames = _decode_all(Path(shortcuts.shuffled_visual(doc)[0]))
    assert len(frames) == 9 and frames[k].max() < 20  # the black gap stays in the middle
    first, second = _nearest(frames[:k], src_a), _nearest(frames[k + 1 :], src_b)
    assert sorted(first) == list(range(k)) and sorted(second) == list(range(k))
    assert (first, second) != (list(range(k)), list(range(k)))
    single = _decode_all(Path(shortcuts.single_frame_visual(doc)[0]))
    assert len(single) == 3 and single[1].max() < 20
    assert _nearest(single[:1], src_a) == [shortcut_files.frame_choice("3_pos_video/A", k)]
    assert _nearest(single[2:], src_b) == [shortcut_files.frame_choice("3_pos_video/B", k)]


def test_variants_need_one_video_and_a_valid_n(monkeypatch, clip):
    with pytest.raises(Exception, match="exactly one"):
        shortcuts.shuffled_visual({"question_id": "x", "videos": []})
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "two")
    with pytest.raises(Exception, match="TEMPORAL_TASKS_NUM_FRAMES"):
        shortcuts.single_frame_visual({"question_id": "x", "videos": [str(clip)]})


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
        for task in (main, *VARIANTS[bench])
    ]


@pytest.mark.slow
@pytest.mark.parametrize("bench", list(MAIN))
def test_cli_variants_score_like_the_main_task(shared_lmms_eval, offline_env, bench):
    # one run of the four groups serves the four benchmarks (each group alone: the same numbers, as a task's
    # metrics depend on its own questions only)
    groups = ",".join(f"{b}_shortcuts" for b in MAIN)
    run = shared_lmms_eval(groups, responses=_shortcut_lines(), env={settings.ENV_NUM_FRAMES: "5"})
    main = run.metrics(MAIN[bench])
    assert main, run.output[-3000:]
    for name in VARIANTS[bench]:
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


# --------------------------------------------------------------------------- report


def test_report_shows_shortcut_rows_beside_the_main_row(tmp_path):
    from temporal_tasks.tools import report
    from tests.helpers.results_files import write_results

    main = {"trial_acc": 70.0, "question_acc": 40.0, "video_acc": 45.5, "instance_acc": 31.25, "invalid_rate": 1.5}
    blind = {"trial_acc": 48.0, "question_acc": 9.0, "video_acc": 25.0, "instance_acc": 2.0, "invalid_rate": 0.0}
    res = write_results(
        tmp_path / "a" / "results.json",
        {"timeblind_iacc": main, "timeblind_iacc_blind": blind, "timeblind_iacc_shuffled": main,
         "velociti_strictvle": {"strict_vle": 30.0}},
        model_args="pretrained=Qwen/Qwen2-VL-2B-Instruct",
    )  # fmt: skip
    report.main_report([str(res)], str(tmp_path / "out"))
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    section = md.split("## TimeBlind", 1)[1].split("\n## ", 1)[0]
    table = section.split("### Shortcut analyses", 1)[1].split("\n### ", 1)[0]
    assert "| Model | Input | instance_acc | question_acc | video_acc | trial_acc | invalid_rate |" in table
    lines = [line for line in table.splitlines() if line.startswith("| Qwen2-VL-2B-Instruct")]
    assert lines == [
        "| Qwen2-VL-2B-Instruct | video (main task) (`timeblind_iacc`) | 31.2 | 40.0 | 45.5 | 70.0 | 1.5 |",
        "| Qwen2-VL-2B-Instruct | blind (no visual) (`timeblind_iacc_blind`) | 2.0 | 9.0 | 25.0 | 48.0 | 0.0 |",
        "| Qwen2-VL-2B-Instruct | shuffled frames (`timeblind_iacc_shuffled`) | 31.2 | 40.0 | 45.5 | 70.0 | 1.5 |",
    ]
    # the paper's Table 4 rows for the variants that were run (single frame was not)
    assert (
        "| GPT-5 (language only) (paper) | blind (no visual) (`timeblind_iacc_blind`) | 1.5 | 9.4 | 26.6 | 47.3 | – |"
        in table
    )
    assert (
        "| GPT-5 (shuffled frames) (paper) | shuffled frames (`timeblind_iacc_shuffled`) | 3.0 | 10.7 | 23.2 | 49.6 |"
        in table
    )
    assert "single frame" not in table
    # a benchmark whose variants were not run gets no shortcut table
    assert "Shortcut analyses" not in md.split("## VELOCITI", 1)[1]


def test_shortcut_references_cite_their_tables():
    from temporal_tasks.tools.report import load_references

    refs = {(r.benchmark, r.label): r for r in load_references()}
    single = refs[("TimeBlind", "GPT-5 (single frame)")]
    assert list(single.tasks) == ["timeblind_iacc_single_frame"] and single.metrics["instance_acc"].value == 4.5
    assert single.metrics["question_acc"].value == 14.8 and single.metrics["video_acc"].value == 32.3
    assert refs[("VELOCITI", "Qwen2-72B LLM (text only)")].metrics["strict_vle"].value == 3.7
    assert refs[("VELOCITI", "OV-72B (blind)")].metrics["strict_vle"].value == 8.1
    assert refs[("VELOCITI", "OV-7B (1 frame)")].metrics["strict_vle_chrono"].value == 10.3
    assert refs[("TemporalBench", "GPT-4o (text only)")].metrics["binary_acc"].value == 67.7


# --------------------------------------------------------------------------- an API model on a loopback server


def _api_reply(text: str) -> str:
    """A deterministic answer from the prompt alone (never the images), so every variant gets the same answers."""
    import hashlib

    options = ["Yes", "No", "A", "B", "The answer is yes.", "I cannot tell."]
    return options[hashlib.sha256(text.encode()).digest()[0] % len(options)]


# N = 6: lmms-eval's `openai` chat model samples video frames with qwen_vl_utils, which rounds the frame
# count to an even number (N = 5 would arrive as 4 images).
@pytest.mark.slow
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


def test_prebuild_fills_the_cache_the_tasks_read(offline_env, monkeypatch, tmp_path):
    from temporal_tasks.benchmarks.timeblind import tasks as timeblind

    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    docs = timeblind.load_docs()
    shuffled = shortcut_files.build_shortcut_files(docs, "shuffled", n=4, workers=2)
    assert len(shuffled) == len(docs) and all(p.is_file() for p in shuffled)
    assert len(set(shuffled)) == len({d["videos"][0] for d in docs})  # one file per clip
    frames = shortcut_files.build_shortcut_files(docs, "single_frame", n=4)
    assert all(p.suffix == ".png" and p.is_file() for p in frames)
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "4")
    # the tasks then only read: nothing is rebuilt
    assert all(not shortcut_files.cached_visual(d, v, 4)[1] for d in docs for v in ("shuffled", "single_frame"))
    assert shortcuts.shuffled_visual(docs[0]) == [str(shuffled[0])]
    with pytest.raises(ValueError, match="no file"):
        shortcut_files.cached_visual(docs[0], "blind", 4)


# --------------------------------------------------------------------------- N rule and background builds


def test_n_follows_the_models_frame_arg_unless_the_env_var_is_set(monkeypatch):
    from temporal_tasks.base import log

    warnings: list[str] = []
    monkeypatch.setattr(log.logger, "warning", warnings.append)
    monkeypatch.delenv(settings.ENV_NUM_FRAMES, raising=False)
    monkeypatch.setattr(sys, "argv", ["lmms_eval", "--model", "openai", "--model_args", "max_frames_num=8,x=1"])
    assert shortcut_files.num_frames() == 8  # the command line lmms-eval was started with

    def simple_evaluate(model_args):  # noqa: ARG001 - read from this frame, as from lmms-eval's own
        return shortcut_files.num_frames()

    assert simple_evaluate("nframes=12") == 12  # simple_evaluate's model args win over sys.argv
    monkeypatch.setattr(sys, "argv", ["lmms_eval"])
    assert shortcut_files.num_frames() == video.DEFAULT_NUM_FRAMES
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "5")
    assert simple_evaluate("max_frames_num=8") == 5  # the env var wins; the warning names both values once
    assert simple_evaluate("max_frames_num=8") == 5
    assert len(warnings) == 1 and "TEMPORAL_TASKS_NUM_FRAMES=5" in warnings[0] and "max_frames_num=8" in warnings[0]
    monkeypatch.delenv(settings.ENV_NUM_FRAMES)
    with pytest.raises(DataError, match="max_frames_num=2.*at least 3 frames"):
        simple_evaluate("max_frames_num=2")


@pytest.fixture
def fresh_builds(monkeypatch):
    """A fresh background scheduler for the shortcut variants (the module's one is shared by the process)."""
    builds = video.BackgroundBuilds("shortcuts", workers=2, kind="shortcut file")
    STATE.builders["shortcuts"] = builds
    yield builds
    builds.shutdown()


def _wait_idle(builds: video.BackgroundBuilds, seconds: float = 120) -> None:
    end = time.monotonic() + seconds
    while builds.alive() and time.monotonic() < end:
        time.sleep(0.02)
    assert builds.alive() == 0


def _loaded_main_docs(main: str) -> list[dict]:
    """The main task's docs straight from its benchmark's loader (independent of the task configs)."""
    import importlib

    bench = get(main.split("_", 1)[0])
    module = importlib.import_module(f"{bench.package}.tasks")
    if bench.name == "vinoground":
        return module.load_docs(variant="group", log_frames=False)
    if bench.name == "velociti":
        return module.load_docs(kind="entail")
    if bench.name == "temporalbench":
        return module.load_qa("short_qa")
    return module.load_docs()


@pytest.mark.parametrize(("main", "variant"), [("timeblind_iacc", "shuffled"), ("vinoground_group", "single_frame")])
def test_variant_docs_are_the_main_docs_and_their_files_are_built_ahead(
    offline_env, monkeypatch, fresh_builds, tmp_path, main, variant
):
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "5")
    monkeypatch.setattr(sys, "argv", ["lmms_eval"])
    main_docs = _loaded_main_docs(main)
    assert shortcuts.main_docs(main) == main_docs  # from the main task's process_docs
    docs = shortcuts.load_variant_docs(main, variant)
    assert [{k: v for k, v in d.items() if not k.startswith("shortcut_")} for d in docs] == main_docs
    assert {(d["shortcut_task"], d["shortcut_frames"]) for d in docs} == {(f"{main}_{variant}", 5)}
    _wait_idle(fresh_builds)  # every file of the rank built in the background, before the model asks
    assert all(not shortcut_files.cached_visual(d, variant, 5)[1] for d in docs)
    visual = shortcuts.shuffled_visual if variant == "shuffled" else shortcuts.single_frame_visual
    import datasets

    for doc in datasets.Dataset.from_list(docs):  # the rows as lmms-eval hands them to doc_to_visual
        got = visual(doc)[0]
        if isinstance(got, str):
            assert got == str(shortcut_files.cached_visual(doc, variant, 5)[0])
    assert fresh_builds._waits[0] == 0  # no question waited for its file


@pytest.mark.parametrize("known", [True, False])
@pytest.mark.parametrize("main", ["vinoground_group", "velociti_strictvle", "temporalbench_short_mba"])
def test_variant_docs_inside_docs_only_start_no_build(offline_env, monkeypatch, fresh_builds, tmp_path, main, known):
    from temporal_tasks.harness.task_configs import resolve_function
    from temporal_tasks.harness.task_docs import task_docs

    cache = tmp_path / "cache"
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(cache))
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "5" if known else "")
    monkeypatch.setattr(sys, "argv", ["lmms_eval"] if known else ["my_script.py"])
    main_builds = video.BackgroundBuilds("vinoground", workers=1)  # the main task's paired-video builds
    STATE.builders["vinoground"] = main_builds
    for variant in ("single_frame", "shuffled"):
        process_docs = resolve_function(task_config(f"{main}_{variant}")["process_docs"])
        docs = task_docs(process_docs, f"{main}_{variant}")  # what rescoring a --predict_only run of the variant reads
        assert [{k: v for k, v in d.items() if not k.startswith("shortcut_")} for d in docs] == _loaded_main_docs(main)
        assert {d["shortcut_task"] for d in docs} == {f"{main}_{variant}"}
    # nothing planned, deferred or built: neither the variants' files nor the main task's paired videos
    assert fresh_builds._entries == [] and main_builds._entries == [] and fresh_builds.alive() == 0
    assert STATE.deferred == {}
    assert not (cache / "paired_videos").exists() and not (cache / "shortcuts").exists()  # (zips are extracted)


def test_a_failed_background_build_names_the_clip(offline_env, monkeypatch, fresh_builds, tmp_path):
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "5")
    monkeypatch.setattr(sys, "argv", ["lmms_eval"])
    bad = {}

    def broken(clip, out, n):
        bad.setdefault("clip", str(clip))
        if str(clip) == bad["clip"]:
            raise RuntimeError("moov atom not found")
        Path(out).write_bytes(b"stub")
        return Path(out)

    monkeypatch.setattr(shortcut_files, "build_shuffled_video", broken)
    docs = shortcuts.load_variant_docs("timeblind_iacc", "shuffled")
    _wait_idle(fresh_builds)
    other = next(d for d in docs if d["videos"][0] != bad["clip"])
    with pytest.raises(SystemExit, match="moov atom not found") as err:
        shortcuts.shuffled_visual(other)  # any next request stops the run, not only the broken one
    assert f"shortcuts: could not build the shuffled video of {bad['clip']} (N=5)" in str(err.value)


@pytest.mark.slow
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


def test_variant_process_docs_refuses_a_task_that_is_not_a_shortcut_variant(offline_env):
    from temporal_tasks.harness.shortcuts import process_docs_shuffled, process_docs_single_frame
    from temporal_tasks.harness.task_docs import docs_only

    for fn, task in ((process_docs_single_frame, "timeblind_iacc"), (process_docs_shuffled, "mytask_shuffled")):
        with docs_only(task), pytest.raises(DataError, match="variant of a benchmark's shortcut main task"):
            fn(None)
