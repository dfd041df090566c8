"""Vinoground's loader and task functions (``benchmarks/vinoground/tasks.py``): docs of every variant, every bad
file named, paired visuals, the metrics against the official ``get_score_all.py`` transcription, the YAMLs' metric
lists and the prebuild hook."""

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
from tests.helpers.benchmarks.vinoground import (
    ANSWERS,
    EXPECTED,
    MISSING,
    answer_of,
    every_pair_pattern,
    official_scores,
)

vinoground_agg = SimpleNamespace(**functions("vinoground"))

CATS = ("action", "object", "viewpoint", "interaction", "cyclical", "spatial", "contextual")


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
        assert all(d["videos"] == [] and vinoground.question_video(d) == [] for d in docs)
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
    (path,) = vinoground.question_video(docs["1_pos_video"])
    frames = decord.VideoReader(path).get_batch(list(range(9))).asnumpy().astype(np.int16)
    assert len(frames) == 9 and frames[4].max() <= 12  # 4 + 1 black + 4
    clip_dir = Path(docs["1_pos_video"]["videos"][0]).parent
    pos = decord.VideoReader(str(clip_dir / "1_pos.mp4"))
    neg = decord.VideoReader(str(clip_dir / "1_neg.mp4"))
    # the growing square ends big (pos) and the shrinking one small (neg): compare the last frames
    assert np.abs(frames[-1] - pos[len(pos) - 1].asnumpy()).mean() < 2.0
    assert np.abs(frames[3] - neg[len(neg) - 1].asnumpy()).mean() < 2.0
    # 1_neg_video has GT A: the negative clip first, i.e. the same order, hence the same cached file
    assert vinoground.question_video(docs["1_neg_video"]) == [path]
    text_doc = vinoground.load_docs(variant="text")[0]
    assert vinoground.question_video(text_doc) == text_doc["videos"]


# ----------------------------------------------------------------------------- aggregation in-process


def _aggregate(items: list[dict], variant: str) -> dict[str, float]:
    metric_list = vinoground.TASK_VARIANTS[variant][1]
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
        metric_list = vinoground.TASK_VARIANTS[variant][1]
        scores = set(metric_list.values)
        grouped = scores | {f"{m}_{c}" for m in scores for c in CATS}
        # --repeats k: every group metric (headline or category) also lists its three stability keys
        keys = set(metric_list.keys()) | grouped | {f"{k}_{s}" for k in grouped for s in STABILITY}
        assert listed == keys, task
        assert config["process_docs"] == (
            "!function",
            f"temporal_tasks.benchmarks.vinoground.tasks.process_docs_{variant}",
        )


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


# ----------------------------------------------------------------------------- every answer kind in every position


def _pattern_answers(docs: list[dict], patterns: list[tuple[str, ...]]) -> dict[str, object]:
    """Raw answers: pair i's four answers (pos_text, neg_text, pos_video, neg_video) of kinds ``patterns[i]``."""
    gold = {d["question_id"]: d["gold"] for d in docs}
    out = {}
    for pair, kinds in enumerate(patterns):
        for kind, role in zip(kinds, ("pos_text", "neg_text", "pos_video", "neg_video"), strict=True):
            side, what = role.split("_")
            out[f"{pair}_{side}_{what}"] = answer_of(kind, gold[f"{pair}_{side}_{what}"])
    return out


def _results(value: object) -> list:
    """What lmms-eval hands ``process_results`` for a raw answer: nothing for a missing one (the replay model
    answers it empty), else the one response."""
    return [] if value is MISSING else [value]


@pytest.mark.parametrize("mode", ["official", "robust"])
def test_every_answer_kind_in_every_position_matches_the_transcription(offline_env, monkeypatch, mode):
    """Empty, missing, null and unreadable answers in every position of a pair, every combination: the official
    reading equals get_score_all.py's control flow (an empty text answer it reaches costs the pair its video
    credit), the robust reading ours; payloads in any order."""
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
    docs = vinoground.load_docs()
    patterns = every_pair_pattern()
    rng = random.Random(50)
    rng.shuffle(patterns)
    pairs = len(docs) // 4
    for start in range(0, len(patterns), pairs):
        chunk = patterns[start : start + pairs]
        chunk += [("right",) * 4] * (pairs - len(chunk))
        answers = _pattern_answers(docs, chunk)
        items = [vinoground.process_results(d, _results(answers[d["question_id"]]))["group_score"] for d in docs]
        rng.shuffle(items)
        got = _aggregate(items, "group")
        expected = official_scores(offline_env, mode, answers)
        for key, value in expected.items():
            assert got[key] == pytest.approx(value), (mode, chunk, key)
