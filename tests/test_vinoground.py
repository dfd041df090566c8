"""Vinoground: loader, paired-video visuals, metrics, and the real lmms-eval CLI against the official scorer rule."""

from __future__ import annotations

import json
import math
import random
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from temporal_tasks.benchmarks.vinoground import fixture as fx
from temporal_tasks.benchmarks.vinoground import tasks as vinoground
from temporal_tasks.data.sources import DataError
from temporal_tasks.scoring.aggregations import functions, parse_disagreement, truncated_rate
from temporal_tasks.video.schedule import BuildProgress
from tests.helpers.benchmarks.vinoground import (
    ANSWERS,
    EXPECTED,
    official_scores,
)

vinoground_agg = SimpleNamespace(**functions("vinoground"))

CATS = ("action", "object", "viewpoint", "interaction", "cyclical", "spatial", "contextual")


def _keys(prefix: str) -> set[str]:
    return {f"{prefix}_{c}" for c in CATS} | {prefix}


# ----------------------------------------------------------------------------- loader


def test_loader_builds_docs(offline_env):
    docs = vinoground.load_docs()
    assert [d["question_id"] for d in docs[:4]] == ["0_pos_text", "0_neg_text", "0_pos_video", "0_neg_video"]
    assert len(docs) == 16 and {d["group_size"] for d in docs} == {4}
    assert {d["group_id"] for d in docs} == {f"vinoground/{i}" for i in range(4)}
    by_id = {d["question_id"]: d for d in docs}
    text_items, video_items = fx.questions()
    for item in text_items:
        doc = by_id[f"{item['idx']}_text"]
        assert doc["prompt"] == item["question"] and doc["gold"] == item["GT"]
        assert len(doc["videos"]) == 1 and doc["videos"][0].endswith(f"vinoground_videos/{item['idx']}.mp4")
    for item in video_items:
        doc = by_id[f"{item['idx']}_video"]
        assert doc["prompt"] == item["question"] and doc["gold"] == item["GT"] and doc["paired"]
        i, side = item["idx"].split("_")
        other = "neg" if side == "pos" else "pos"
        first, second = (side, other) if item["GT"] == "A" else (other, side)
        assert [Path(v).name for v in doc["videos"]] == [f"{i}_{first}.mp4", f"{i}_{second}.mp4"]
    assert by_id["0_pos_text"]["categories"] == ["action", "interaction", "cyclical"]
    assert by_id["1_neg_video"]["categories"] == ["object"]
    assert all(d["parser"] == "first_char_ab" for d in docs)


def test_positive_caption_is_not_always_a(offline_env):
    golds = {d["gold"] for d in vinoground.load_docs(variant="text")}
    assert golds == {"A", "B"}


@pytest.mark.parametrize(
    ("variant", "count", "roles"),
    [
        ("text", 8, {"pos_text", "neg_text"}),
        ("video", 8, {"pos_video", "neg_video"}),
        ("text_blind", 8, {"pos_text", "neg_text"}),
        ("official", 16, {"pos_text", "neg_text", "pos_video", "neg_video"}),
    ],
)
def test_variants(offline_env, variant, count, roles):
    docs = vinoground.load_docs(variant=variant)
    assert len(docs) == count and {d["role"] for d in docs} == roles
    assert {d["group_size"] for d in docs} == {len(roles)}  # so every group of the task can be complete
    if variant == "text_blind":
        assert all(d["videos"] == [] and vinoground.doc_to_visual(d) == [] for d in docs)
    if variant == "official":
        video = [d for d in docs if d["kind"] == "video"]
        assert not any(d["paired"] for d in docs)
        assert all(d["videos"][0].endswith(d["video_name"]) for d in video)
        names = {Path(d["videos"][0]).name for d in video}
        assert names == {Path(item["video_name"]).name for item in fx.questions()[1]} and len(names) == 6


@pytest.fixture
def copy(fixture_root, tmp_path, monkeypatch):
    """A private copy of the Vinoground fixture that a test may damage."""
    shutil.copytree(fixture_root / "vinoground", tmp_path / "vinoground")
    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(tmp_path))
    return tmp_path / "vinoground"


def test_jsons_only_inside_the_zips(copy):
    (copy / "vinoground_textscore.json").unlink()
    (copy / "vinoground_videoscore.json").unlink()
    for variant in ("group", "text_blind", "video"):
        assert len(vinoground.load_docs(variant=variant)) == (16 if variant == "group" else 8)


def test_unzipped_folders_are_used(copy):
    import zipfile

    for name in ("vinoground_videos.zip", "vinoground_videos_concated.zip"):
        with zipfile.ZipFile(copy / name) as zf:
            zf.extractall(copy)
        (copy / name).unlink()
    docs = vinoground.load_docs(variant="official")
    assert all(str(copy) in d["videos"][0] for d in docs)


def test_bare_video_names(copy):
    def strip(items):
        return [{**it, "video_name": Path(it["video_name"]).name} for it in items]

    _edit_json(copy / "vinoground_textscore.json", strip)
    _edit_json(copy / "vinoground_videoscore.json", strip)
    docs = vinoground.load_docs(variant="official")
    assert all(Path(d["videos"][0]).parent.name in ("vinoground_videos", "vinoground_videos_concated") for d in docs)


def test_missing_clip_names_the_file(copy):
    import zipfile

    with zipfile.ZipFile(copy / "vinoground_videos.zip") as zf:
        zf.extractall(copy)
    (copy / "vinoground_videos.zip").unlink()
    (copy / "vinoground_videos" / "2_neg.mp4").unlink()
    with pytest.raises(DataError, match=r"missing:\n.*vinoground_videos/2_neg\.mp4"):
        vinoground.load_docs(variant="video")
    assert len(vinoground.load_docs(variant="text_blind")) == 8  # the blind control needs no video


def test_missing_csv(copy):
    (copy / "vinoground.csv").unlink()
    with pytest.raises(DataError, match=r"missing .*vinoground\.csv.*HanSolo9682/Vinoground"):
        vinoground.load_docs()


def _edit_json(path: Path, edit) -> None:
    path.write_text(json.dumps(edit(json.loads(path.read_text()))))


def test_bad_gt(copy):
    def edit(items):
        items[3]["GT"] = "C"
        return items

    _edit_json(copy / "vinoground_videoscore.json", edit)
    with pytest.raises(DataError, match=r"vinoground_videoscore\.json item 3 \(1_neg\): GT 'C'"):
        vinoground.load_docs()


def test_truncated_json(copy):
    _edit_json(copy / "vinoground_textscore.json", lambda items: items[:-1])
    with pytest.raises(DataError, match=r"no text-score question for \['3_neg'\]"):
        vinoground.load_docs(variant="text")


def test_duplicate_idx(copy):
    _edit_json(copy / "vinoground_textscore.json", lambda items: [*items, items[0]])
    with pytest.raises(DataError, match=r"duplicate question ids \['0_pos'\]"):
        vinoground.load_docs(variant="text")


def test_bad_num_frames(copy, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_NUM_FRAMES", "2")
    with pytest.raises(DataError, match="at least 3 frames"):
        vinoground.load_docs()
    assert len(vinoground.load_docs(variant="official")) == 16  # N only matters for built videos


def test_caption_mismatch_warns(copy, monkeypatch):
    warnings = []
    monkeypatch.setattr(vinoground, "warn_once", warnings.append)

    def swap(items):  # 0_pos now shows the negative caption as its gold option
        items[0]["GT"] = "A"
        return items

    _edit_json(copy / "vinoground_textscore.json", swap)
    vinoground.load_docs()
    assert any("['0_pos_text']" in w for w in warnings)


# ----------------------------------------------------------------------------- visuals


def test_paired_visual_follows_gt(offline_env, monkeypatch):
    decord = pytest.importorskip("decord")
    monkeypatch.setenv("TEMPORAL_TASKS_NUM_FRAMES", "9")
    docs = {d["question_id"]: d for d in vinoground.load_docs(variant="video")}
    # 1_pos_video has GT B: the positive clip (the caption's) is the second segment
    (path,) = vinoground.doc_to_visual(docs["1_pos_video"])
    frames = decord.VideoReader(path).get_batch(list(range(9))).asnumpy().astype(np.int16)
    assert len(frames) == 9 and frames[4].max() <= 12  # 4 + 1 black + 4
    clip_dir = Path(docs["1_pos_video"]["videos"][0]).parent
    pos = decord.VideoReader(str(clip_dir / "1_pos.mp4"))
    neg = decord.VideoReader(str(clip_dir / "1_neg.mp4"))
    # the growing square ends big (pos) and the shrinking one small (neg): compare the last frames
    assert np.abs(frames[-1] - pos[len(pos) - 1].asnumpy()).mean() < 2.0
    assert np.abs(frames[3] - neg[len(neg) - 1].asnumpy()).mean() < 2.0
    # 1_neg_video has GT A: the negative clip first, i.e. the same order, hence the same cached file
    assert vinoground.doc_to_visual(docs["1_neg_video"]) == [path]
    text_doc = vinoground.load_docs(variant="text")[0]
    assert vinoground.doc_to_visual(text_doc) == text_doc["videos"]


def test_build_progress_bar(capsys):
    progress = BuildProgress(vinoground.PAIRED.progress)  # the bar of Vinoground's paired videos
    progress.expect(20)  # this rank's share
    progress.tick(False)  # cache hits show nothing
    assert progress.bar is None
    progress.tick(True)  # a build with 18 still to go: the bar appears
    assert progress.bar is not None and progress.bar.n == 2 and progress.bar.total == 20
    for _ in range(18):
        progress.tick(False)
    assert progress.bar is None  # closed when the rank's share is done
    assert "vinoground: paired videos" in capsys.readouterr().err


# ----------------------------------------------------------------------------- aggregation in-process


def _aggregate(items: list[dict], variant: str) -> dict[str, float]:
    metric_list = vinoground.VARIANTS[variant][1]
    out = {}
    for key in metric_list.keys():
        shared = {"parse_disagreement": parse_disagreement, "truncated_rate": truncated_rate}
        fn = shared.get(key) or getattr(vinoground_agg, key)
        out[key] = fn(items)
    for block in metric_list.per_category:
        for metric, cat in block.pairs():
            picked = [p for p in items if cat in p["categories"]]
            out[f"{metric}_{cat}"] = getattr(vinoground_agg, f"{metric}_{cat}")(picked)
    return out


@pytest.mark.parametrize("mode", ["robust", "official"])
def test_aggregations_match_official_rule_in_any_order(offline_env, monkeypatch, mode):
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
    docs = vinoground.load_docs()
    items = [vinoground.process_results(d, [ANSWERS[d["question_id"]]])["group_score"] for d in docs]
    got = _aggregate(items, "group")
    random.Random(5).shuffle(items)  # lmms-eval hands payloads in rank order, not doc order
    assert _aggregate(items, "group") == got
    oracle = official_scores(offline_env, mode)
    for key, value in EXPECTED[mode].items():
        assert got[key] == pytest.approx(value), key
        if key in oracle:
            assert oracle[key] == pytest.approx(value), key


def test_empty_none_and_garbage_answers(offline_env):
    docs = vinoground.load_docs()
    for results in ([], [None], [""], ["zzz"], ["\x00"], [12]):
        payload = vinoground.process_results(docs[0], results)["text_score"]
        assert payload["pred"] is None and payload["correct"] is False
    items = [vinoground.process_results(d, [])["group_score"] for d in docs]
    assert vinoground_agg.group_score(items) == 0.0 and vinoground_agg.invalid_rate(items) == 100.0


def test_process_results_keys_per_variant(offline_env):
    for variant, scores in (("group", ("text", "video", "group")), ("text", ("text",)), ("video", ("video",))):
        doc = vinoground.load_docs(variant=variant)[0]
        keys = set(vinoground.process_results(doc, ["A"]))
        assert {"text_score", "video_score", "group_score"} & keys == {f"{s}_score" for s in scores}
        assert {f"{s}_score_{c}" for s in scores for c in doc["categories"]} <= keys


def test_incomplete_pairs_are_left_out(offline_env):
    docs = vinoground.load_docs()[:7]  # pair 0 whole, pair 1 cut after 3 questions
    items = [vinoground.process_results(d, [ANSWERS[d["question_id"]]])["group_score"] for d in docs]
    assert (vinoground_agg.text_score(items), vinoground_agg.video_score(items), vinoground_agg.group_score(items)) == (
        100.0,
        100.0,
        100.0,
    )
    assert math.isnan(vinoground_agg.group_score_object([p for p in items if "object" in p["categories"]]))


def test_yaml_metric_lists_match_process_results():
    from temporal_tasks.api.spec import STABILITY
    from temporal_tasks.harness.task_configs import task_config

    variants = {"vinoground_group": "group", "vinoground_group_official": "official", "vinoground_text": "text",
                "vinoground_video": "video", "vinoground_text_blind": "text_blind"}  # fmt: skip
    for task, variant in variants.items():
        config = task_config(task)  # templates included, as lmms-eval resolves them
        assert config["task"] == task and config["reasoning_tags"] == "none"
        listed = {m["metric"] for m in config["metric_list"]}
        metric_list = vinoground.VARIANTS[variant][1]
        scores = set(metric_list.values)
        grouped = scores | {f"{m}_{c}" for m in scores for c in CATS}
        # --repeats k: every group metric (headline or category) also lists its three stability keys
        keys = set(metric_list.keys()) | grouped | {f"{k}_{s}" for k in grouped for s in STABILITY}
        assert listed == keys, task
        assert config["process_docs"] == (
            "!function",
            f"temporal_tasks.benchmarks.vinoground.tasks.process_docs_{variant}",
        )


# ----------------------------------------------------------------------------- real CLI

ALL_TASKS = "vinoground_group,vinoground_group_official,vinoground_text,vinoground_video,vinoground_text_blind"


def _check(got: dict[str, float], expected: dict[str, float], prefixes: tuple[str, ...]) -> None:
    for key, value in expected.items():
        if key.startswith(prefixes):
            assert got[key] == pytest.approx(value), key


@pytest.mark.slow
def test_cli_official_mode_every_task(lmms_eval, fixture_root):
    run = lmms_eval(ALL_TASKS, responses=ANSWERS, env={"TEMPORAL_TASKS_PARSER": "official"})
    oracle = official_scores(fixture_root, "official")
    expected = EXPECTED["official"]
    for task in ("vinoground_group", "vinoground_group_official"):
        got = run.metrics(task)
        _check(got, expected, ("text", "video", "group", "invalid"))
        for key, value in oracle.items():  # parity with get_score_all.py on the same answers
            assert got[key] == pytest.approx(value), (task, key)
        for m in ("text_score", "video_score", "group_score"):
            assert got[f"{m}_ci_low"] <= got[m] <= got[f"{m}_ci_high"]
    for task in ("vinoground_text", "vinoground_text_blind"):
        got = run.metrics(task)
        _check(got, expected, ("text",))
        assert got["invalid_rate"] == 12.5  # "(B)" among the 8 text answers
        assert not {"video_score", "group_score", "video_score_action"} & set(got)
    got = run.metrics("vinoground_video")
    _check(got, expected, ("video",))
    assert got["invalid_rate"] == 12.5  # "" among the 8 video answers
    assert not {"text_score", "group_score", "group_score_action"} & set(got)
    assert "answer parser mode = official" in run.output
    sample = run.samples["vinoground_group"][0]["group_score"]
    assert {"question_id", "group_id", "role", "answer", "gold", "pred", "parser_mode"} <= set(sample)
    prompt = run.samples["vinoground_group"][0]["input"]
    assert prompt.endswith("directly.\nPlease only output one English character.")


@pytest.mark.slow
def test_cli_robust_mode(lmms_eval, fixture_root, cache_root, tmp_path):
    from tests.conftest import write_responses

    # a stand-in for a GPU model: fetches every visual, takes 1 ms, answers longest prompt first
    # (as lmms-eval's Collator orders the Qwen models' requests); N comes from its frame argument
    responses = write_responses(tmp_path / "answers.jsonl", ANSWERS)
    model_args = f"responses={responses},latency_ms=1,order=length,max_num_frames=7"
    run = lmms_eval("vinoground_group,vinoground_text", model_args=model_args, env={"TEMPORAL_TASKS_NUM_FRAMES": ""})
    # temporal_replay keeps max_num_frames as an instance attribute, as the video models do (issue 24)
    assert "paired videos have N=7 frames (model instance attribute max_num_frames=7)" in run.output
    assert len(list((cache_root / "paired_videos" / "n7").glob("*.mp4"))) == 6
    got = run.metrics("vinoground_group")
    _check(got, EXPECTED["robust"], ("text", "video", "group", "invalid"))
    for key, value in official_scores(fixture_root, "robust").items():
        assert got[key] == pytest.approx(value), key
    assert run.metrics("vinoground_text")["text_score"] == 75.0
    assert "answer parser mode = robust" in run.output


@pytest.mark.slow
def test_cli_limit_7(lmms_eval):
    # --limit 7: pair 0 (4 questions, all right) is whole, pair 1 is cut after 3 and left out
    run = lmms_eval("vinoground_group,vinoground_text", responses=ANSWERS, args=["--limit", "7"])
    got = run.metrics("vinoground_group")
    assert (got["text_score"], got["video_score"], got["group_score"]) == (100.0, 100.0, 100.0)
    assert got["group_score_action"] == 100.0 and got["invalid_rate"] == 0.0
    assert "scored 1 complete groups; left out 1 incomplete group" in run.output
    # vinoground_text: pairs 0-2 whole (6 questions), the 7th starts pair 3 -> left out
    text = run.metrics("vinoground_text")
    assert text["text_score"] == pytest.approx(200 / 3)  # pairs 0 and 1 right, pair 2 wrong


@pytest.mark.slow
def test_cli_dummy_model_builds_and_decodes_paired_videos(lmms_eval, cache_root):
    env = {"TEMPORAL_TASKS_NUM_FRAMES": "9"}
    run = lmms_eval(
        "vinoground_group,vinoground_group_official",
        model="dummy",
        model_args="response=A,decode_num_frames=4",
        env=env,
    )
    # "A" everywhere: text right only where both text golds are A (pair 2), video where both are A (pair 0)
    for task in ("vinoground_group", "vinoground_group_official"):
        got = run.metrics(task)
        assert (got["text_score"], got["video_score"], got["group_score"]) == (25.0, 25.0, 0.0), task
    # one visual per question (the paired video, not its two clips), all decoded
    assert "resolved: 32 | local: 32 | remote: 0 | missing: 0" in run.output
    built = sorted((cache_root / "paired_videos" / "n9").glob("*.mp4"))
    assert len(built) == 6  # 8 video questions; in pairs 1 and 3 both questions use the same order (one file)


@pytest.mark.slow
def test_cli_paired_videos_follow_the_models_frame_arg(lmms_eval, tmp_path):
    # the acceptance: dummy with max_num_frames=9 and TEMPORAL_TASKS_NUM_FRAMES unset builds 9-frame
    # videos (dummy takes unknown model args; read_bytes=1 makes it open every visual, so each must exist)
    decord = pytest.importorskip("decord")
    cache = tmp_path / "cache"
    env = {"TEMPORAL_TASKS_NUM_FRAMES": "", "TEMPORAL_TASKS_CACHE_DIR": str(cache)}
    run = lmms_eval("vinoground_video", model="dummy", model_args="response=A,max_num_frames=9,read_bytes=1", env=env)
    assert "paired videos have N=9 frames (--model_args max_num_frames=9)" in run.output
    assert "resolved: 8 | local: 8 | remote: 0 | missing: 0" in run.output
    assert [p.name for p in (cache / "paired_videos").iterdir()] == ["n9"]
    built = sorted((cache / "paired_videos" / "n9").iterdir())
    assert len(built) == 6 and all(len(decord.VideoReader(str(p))) == 9 for p in built)  # no lock/temp file left


@pytest.mark.slow
def test_cli_missing_clip_stops_before_any_model_call(lmms_eval, fixture_root, tmp_path):
    import zipfile

    root = tmp_path / "data" / "vinoground"
    shutil.copytree(fixture_root / "vinoground", root)
    with zipfile.ZipFile(root / "vinoground_videos.zip") as zf:
        zf.extractall(root)
    (root / "vinoground_videos.zip").unlink()
    (root / "vinoground_videos" / "3_pos.mp4").unlink()
    # default verbosity on purpose: lmms-eval alone would exit 0 after a task fails to load
    run = lmms_eval("vinoground_group", responses={}, data_dir=tmp_path / "data", expect_ok=False, verbosity="INFO")
    assert run.returncode != 0
    assert "3_pos.mp4" in run.output and "Model Responding" not in run.output and not run.results


def test_prebuild_command_builds_every_paired_video(offline_env, tmp_path, monkeypatch, capsys):
    from temporal_tasks import cli
    from temporal_tasks.benchmarks.vinoground import tasks as vinoground

    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    assert cli.main(["prebuild", "--num-frames", "5"]) == 0
    paired = [d for d in vinoground.load_docs(variant="group") if d["paired"]]
    built = sorted((tmp_path / "cache").rglob("*.mp4"))
    built = [p for p in built if "paired_videos" in p.parts]
    assert len(built) == len({tuple(d["videos"]) for d in paired}) > 0
    assert f"Vinoground: {len(paired)} prebuilt files ready" in capsys.readouterr().out
    # the benchmark named: the same files, reused
    assert cli.main(["prebuild", "--benchmark", "vinoground", "--num-frames", "5"]) == 0
    assert f"Vinoground: {len(paired)} prebuilt files ready" in capsys.readouterr().out
    assert [p for p in sorted((tmp_path / "cache").rglob("*.mp4")) if "paired_videos" in p.parts] == built
