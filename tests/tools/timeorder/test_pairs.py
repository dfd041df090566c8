"""Time order (``tools/timeorder/pairs.py``): a main task paired with its shortcut variants on run folders written
by hand from known answers: the flip tables, labels, tau/kappa, rows equal to ``compare``'s, the refusals, repeats."""

from __future__ import annotations

import shutil

import pytest

from temporal_tasks.data.sources import DataError
from temporal_tasks.tools.compare import compare_runs
from temporal_tasks.tools.timeorder import (
    LABELS,
    collect,
    time_order,
)
from tests.helpers.timeorder_runs import MAIN, TASKS, record, write_run
from tests.helpers.timeorder_runs import answers as _answers
from tests.helpers.timeorder_runs import docs as _docs

ITERS = 400
# main right in instances 0, 1, 2; blind in 0; single frame in 0, 1; shuffled in 0 and 3
RIGHT = {"main": {0, 1, 2}, "blind": {0}, "single_frame": {0, 1}, "shuffled": {0, 3}}


@pytest.fixture
def known(offline_env, tmp_path) -> dict[str, dict[str, str]]:
    docs = _docs()
    return {TASKS[k]: _answers(docs, right) for k, right in RIGHT.items()}


def _rows(result) -> dict:
    return {r.variant: r for r in result.rows}


def test_flip_table_labels_and_differences_on_known_answers(known, tmp_path):
    (result,) = time_order(collect([write_run(tmp_path / "run", known)]), iters=ITERS)
    assert (result.main.task, result.key, result.main_value) == (MAIN, "instance_acc", 75.0)
    rows = _rows(result)
    assert rows["blind"].flips == {"both": 1, "main_only": 2, "control_only": 0, "neither": 1}
    assert rows["single_frame"].flips == {"both": 2, "main_only": 1, "control_only": 0, "neither": 1}
    assert rows["shuffled"].flips == {"both": 1, "main_only": 2, "control_only": 1, "neither": 0}
    for variant, control in (("blind", 25.0), ("single_frame", 50.0), ("shuffled", 50.0)):
        c = rows[variant].comparison
        assert (c.metric, c.base, c.new, c.diff, c.groups) == ("instance_acc", control, 75.0, 75.0 - control, 4)
        assert c.ci_low <= c.diff <= c.ci_high and 0 < c.p_value <= 1
    # TOMATO's tau (shuffled) and kappa (single frame): (75 - 50) / 50
    assert rows["shuffled"].relative == rows["single_frame"].relative == 0.5
    assert rows["blind"].relative == 2.0
    assert result.labels == {
        "timeblind/0": "answerable blind",
        "timeblind/1": "answerable from one frame",
        "timeblind/2": "needs the order",
        "timeblind/3": "answerable without the order",
    }
    assert result.label_counts() == dict(zip(LABELS, [1, 1, 1, 1, 0], strict=True))
    cats = result.category_counts()
    assert cats and all(sum(v.values()) >= 1 for v in cats.values())
    # every group counts once in each of its categories
    for gid, label in result.labels.items():
        for cat in result.categories[gid]:
            assert cats[cat][label] >= 1
    assert not result.notes


def test_never_right_when_no_input_answers(known, tmp_path):
    known[TASKS["shuffled"]] = _answers(_docs(), {0})
    (result,) = time_order(collect([write_run(tmp_path / "run", known)]), iters=ITERS)
    assert result.labels["timeblind/3"] == "never right"
    assert result.labels["timeblind/2"] == "needs the order"


def test_a_control_answering_as_main_gives_zero_with_ci_zero(known, tmp_path):
    known[TASKS["shuffled"]] = dict(known[MAIN])
    (result,) = time_order(collect([write_run(tmp_path / "run", known)]), iters=ITERS)
    row = _rows(result)["shuffled"]
    c = row.comparison
    assert (c.diff, c.ci_low, c.ci_high, c.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert (row.relative, *row.relative_ci) == (0.0, 0.0, 0.0)
    assert row.flips == {"both": 3, "main_only": 0, "control_only": 0, "neither": 1}


def test_each_row_is_what_compare_gives_for_the_two_runs(known, tmp_path):
    run = write_run(tmp_path / "run", known)
    (result,) = time_order(collect([run]), categories=True)
    assert len(result.category_rows) > len(result.rows)  # TimeBlind's categories of instance_acc
    for variant in ("blind", "single_frame", "shuffled"):
        # the control's samples as a run of the main task: compare(CONTROL, MAIN) on the same groups
        alone = tmp_path / f"as_main_{variant}"
        alone.mkdir()
        (src,) = run.glob(f"*_samples_{TASKS[variant]}.jsonl")
        shutil.copy(src, alone / src.name.replace(TASKS[variant], MAIN))
        expected = {r.metric: r for r in compare_runs(alone, run, categories=True)[0]}
        mine = [r for r in [*result.rows, *result.category_rows] if r.variant == variant]
        assert len(mine) > 1
        for row in mine:
            got, want = row.comparison, expected[row.comparison.metric]
            assert (got.base, got.new, got.diff, got.ci_low, got.ci_high, got.p_value, got.groups) == (
                want.base, want.new, want.diff, want.ci_low, want.ci_high, want.p_value, want.groups,
            )  # fmt: skip


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"frames__n": 16}, "frames.n: 16 != 8"),
        ({"reading": "official"}, "reading"),
        ({"data__annotations_sha256": "c" * 64}, "data.annotations_sha256"),
        ({"cut__limit": 2}, "cut"),
    ],
)
def test_runs_differing_beyond_the_visual_input_are_refused(known, tmp_path, change, field):
    shuffled = TASKS["shuffled"]
    main = {t: a for t, a in known.items() if t != shuffled}
    write_run(tmp_path / "a", main)
    write_run(tmp_path / "b", {shuffled: known[shuffled]}, stamp="20261201_111111",
              records={shuffled: record(shuffled, **change)})  # fmt: skip
    runs = collect([tmp_path])
    with pytest.raises(DataError, match=f"{MAIN} vs {shuffled}: .*{field}.*--force"):
        time_order(runs, iters=ITERS)
    (forced,) = time_order(runs, force=True, iters=ITERS)
    assert "shuffled" in _rows(forced) and any("--force" in n and field.split(":")[0] in n for n in forced.notes)


def test_another_model_is_refused(known, tmp_path):
    shuffled = TASKS["shuffled"]
    write_run(tmp_path / "a", {t: a for t, a in known.items() if t != shuffled})
    write_run(tmp_path / "b", {shuffled: known[shuffled]}, stamp="20261201_111111", model="qwen2_5_vl")
    with pytest.raises(DataError, match="model: qwen2_5_vl != temporal_replay"):
        time_order(collect([tmp_path]), iters=ITERS)


def test_the_blind_variant_sees_no_frames_so_its_n_does_not_matter(known, tmp_path):
    blind = TASKS["blind"]
    write_run(tmp_path / "a", {t: a for t, a in known.items() if t != blind})
    write_run(tmp_path / "b", {blind: known[blind]}, stamp="20261201_111111", records={blind: record(blind, n=2)})
    (result,) = time_order(collect([tmp_path]), iters=ITERS)
    assert _rows(result)["blind"].comparison.diff == 50.0 and not result.notes


def test_the_comparable_control_of_several_is_chosen(known, tmp_path):
    # the folder also holds a shuffled run at another N: the one at main's N is paired, without complaint
    shuffled = TASKS["shuffled"]
    write_run(tmp_path / "a", known)
    write_run(tmp_path / "b", {shuffled: _answers(_docs(), set())}, stamp="20261201_111111",
              records={shuffled: record(shuffled, n=16)})  # fmt: skip
    (result,) = time_order(collect([tmp_path]), iters=ITERS)
    assert _rows(result)["shuffled"].comparison.base == 50.0


def test_repeats_give_one_reading_per_repeat(known, tmp_path):
    # three repeats: main answers as `known` in repeat 1, all right in repeat 2, as the blind control in repeat 3;
    # every control answers as in `known` in all three
    questions = _docs()
    everything = _answers(questions, {0, 1, 2, 3})
    given = {task: {q: [a, a, a] for q, a in by_q.items()} for task, by_q in known.items()}
    given[MAIN] = {q: [a, everything[q], known[TASKS["blind"]][q]] for q, a in known[MAIN].items()}
    results = time_order(collect([write_run(tmp_path / "run", given)]), iters=ITERS)
    assert [(r.repeat, r.repeats, r.main_value) for r in results] == [(0, 3, 75.0), (1, 3, 100.0), (2, 3, 25.0)]
    assert [_rows(r)["shuffled"].comparison.diff for r in results] == [25.0, 50.0, -25.0]
    assert [_rows(r)["blind"].flips for r in results][2] == {"both": 1, "main_only": 0, "control_only": 0, "neither": 3}
    assert results[0].labels["timeblind/2"] == "needs the order" and results[1].labels["timeblind/3"] == (
        "answerable without the order"
    )
    # a control with another number of repeats is refused
    write_run(tmp_path / "other", {**given, TASKS["shuffled"]: known[TASKS["shuffled"]]}, stamp="20261201_111111")
    with pytest.raises(DataError, match="timeblind_iacc has 3 repeats but timeblind_iacc_shuffled has 1"):
        time_order(collect([tmp_path / "other"]), iters=ITERS)
