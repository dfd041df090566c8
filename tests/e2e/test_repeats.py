"""``--repeats k`` through the real CLI: full-size runs against the official TimeBlind transcription and Vinoground's
first-character rule applied to each repeat, the majority and the per-group outcomes; ``--repeats 1``; errors."""

from __future__ import annotations

import json
import random
import statistics
from pathlib import Path

import pytest

from tests.helpers.benchmarks.timeblind import official_get_scores
from tests.helpers.repeats import K, vote


def _stability(per_repeat: list[float], consensus: float, outcomes: list[tuple]) -> dict[str, float]:
    """The four numbers of one metric, from the per-repeat values and each group's k outcomes."""
    return {
        "": sum(per_repeat) / len(per_repeat),
        "_consensus_accuracy": consensus,
        "_consistency_rate": 100.0 * sum(len(set(o)) == 1 for o in outcomes) / len(outcomes),
        "_repeat_sd": statistics.stdev(per_repeat),
    }


def _check(got: dict, metric: str, expected: dict[str, float]) -> None:
    for suffix, value in expected.items():
        assert got[f"{metric}{suffix}"] == pytest.approx(value, abs=1e-9), f"{metric}{suffix}"


@pytest.fixture(scope="module")
def full_root(tmp_path_factory) -> Path:
    from temporal_tasks.data.fixtures import write_fixtures

    root = tmp_path_factory.mktemp("full")
    write_fixtures(root, ["timeblind", "vinoground"], full=True)
    return root


def _rescored(run, task: str) -> dict[str, float]:
    from temporal_tasks.tools.rescore import rescore_task

    return rescore_task(task, run.samples[task])


def test_timeblind_full_size_three_repeats(lmms_eval, full_root, tmp_path):
    rows = [json.loads(x) for x in (full_root / "timeblind" / "data.jsonl").read_text().splitlines()]
    rng = random.Random(23)
    answers, labels = {}, [{}, {}, {}]
    for r in rows:
        yes, no = ("A", "B") if r["type"] == "multiple_choice" else ("Yes", "No")
        right, wrong = (yes, no) if r["index"] % 4 in (0, 3) else (no, yes)  # positional gold yes,no,no,yes
        given = [rng.choice((right, right, right, right, wrong, "")) for _ in range(K)]  # three differing samples
        answers[str(r["index"])] = given
        for k, text in enumerate(given):
            labels[k][r["index"]] = {yes: 1, no: 0}.get(text, -1)
    run = lmms_eval("timeblind_iacc", responses=answers, data_dir=full_root, args=["--repeats", "3"])
    got = run.metrics("timeblind_iacc")

    per_repeat = [official_get_scores(lab) for lab in labels]
    majority = {i: vote([lab[i] for lab in labels]) for i in labels[0]}
    consensus = official_get_scores({i: -1 if m is None else m for i, m in majority.items()})
    gold = (1, 0, 0, 1)
    outcomes = [tuple(all(lab[4 * g + t] == gold[t] for t in range(4)) for lab in labels) for g in range(600)]
    expected = _stability([s["instance_acc"] for s in per_repeat], consensus["instance_acc"], outcomes)
    assert len({round(s["instance_acc"], 6) for s in per_repeat}) > 1  # the repeats really differ
    _check(got, "instance_acc", expected)
    for name in ("trial_acc", "question_acc", "video_acc"):
        assert got[name] == pytest.approx(sum(s[name] for s in per_repeat) / K, abs=1e-9), name
    unreadable = sum(v == -1 for lab in labels for v in lab.values())
    assert got["invalid_rate"] == pytest.approx(100.0 * unreadable / (K * 2400), abs=1e-9)
    assert got["instance_acc_ci_low"] < got["instance_acc"] < got["instance_acc_ci_high"]
    line = run.samples["timeblind_iacc"][0]
    assert len(line["instance_acc"]["repeats"]) == K
    # rescore reproduces every key from the samples file (report reads the same results)
    rescored = _rescored(run, "timeblind_iacc")
    assert set(rescored) == set(got)
    for key, value in got.items():
        assert rescored[key] == pytest.approx(value, abs=1e-9, nan_ok=True), key
    from temporal_tasks.tools.report import load_run, write_report

    results = sorted((tmp_path / "run1" / "results").rglob("*_results.json"))
    assert results
    written = write_report([load_run(results[-1])], tmp_path / "report", references=[], charts=False)
    md = next(p for p in written if p.suffix == ".md").read_text()
    for key in ("instance_acc_consensus_accuracy", "instance_acc_consistency_rate", "instance_acc_repeat_sd"):
        assert key in md, key


def test_vinoground_group_full_size_three_repeats(lmms_eval, full_root):
    root = full_root / "vinoground"
    gold = {kind: {q["idx"]: q["GT"] for q in json.loads((root / f"vinoground_{kind}score.json").read_text())}
            for kind in ("text", "video")}  # fmt: skip
    rng = random.Random(230)
    answers, read = {}, {}
    for kind, items in gold.items():
        for idx, gt in items.items():
            wrong = "B" if gt == "A" else "A"
            given = [rng.choice((gt, gt, gt, wrong, "")) for _ in range(K)]
            answers[f"{idx}_{kind}"] = given
            read[(idx, kind)] = [t[:1].upper() or None for t in given]  # official: the first character
    pairs = sorted({int(idx.split("_")[0]) for idx in gold["text"]})

    def right(idx: str, kind: str, reading) -> bool:
        return reading == gold[kind][idx]

    def group_ok(i: int, pick) -> bool:
        return all(right(f"{i}_{s}", k, pick(f"{i}_{s}", k)) for s in ("pos", "neg") for k in ("text", "video"))

    outcomes = [tuple(group_ok(i, lambda q, k, r=r: read[(q, k)][r]) for r in range(K)) for i in pairs]
    per_repeat = [100.0 * sum(o[r] for o in outcomes) / len(pairs) for r in range(K)]
    consensus = 100.0 * sum(group_ok(i, lambda q, k: vote(read[(q, k)])) for i in pairs) / len(pairs)
    assert len(set(per_repeat)) > 1
    run = lmms_eval("vinoground_group", responses=answers, data_dir=full_root, args=["--repeats", "3"])
    got = run.metrics("vinoground_group")
    _check(got, "group_score", _stability(per_repeat, consensus, outcomes))
    rescored = _rescored(run, "vinoground_group")
    for key, value in got.items():
        assert rescored[key] == pytest.approx(value, abs=1e-9, nan_ok=True), key


def test_repeats_one_is_the_single_run(lmms_eval, shared_lmms_eval):
    from tests.helpers.benchmarks.timeblind import TRICKY

    plain = shared_lmms_eval("timeblind_iacc", responses=TRICKY)
    once = lmms_eval("timeblind_iacc", responses=TRICKY, args=["--repeats", "1"])
    assert once.results["results"]["timeblind_iacc"] == plain.results["results"]["timeblind_iacc"]
    strip = ("doc_hash",)
    assert [{k: v for k, v in s.items() if k not in strip} for s in once.samples["timeblind_iacc"]] == [
        {k: v for k, v in s.items() if k not in strip} for s in plain.samples["timeblind_iacc"]
    ]


def test_replay_list_of_wrong_length_is_a_clear_error(lmms_eval):
    from tests.helpers.benchmarks.timeblind import TRICKY

    answers = {**TRICKY, "0": ["Yes", "No", "Yes"]}
    run = lmms_eval("timeblind_iacc", responses=answers, args=["--repeats", "2"], expect_ok=False)
    assert run.returncode != 0
    assert "question '0' has a list of 3 responses but the run asks for 2" in run.output


def test_loglikelihood_task_scores_once_and_says_so(lmms_eval, tmp_path):
    from tests.helpers.benchmarks.velociti import LOGPS, all_answers, write_replay

    replay = write_replay(tmp_path / "replay.jsonl", all_answers(), LOGPS)
    plain = lmms_eval("velociti_strictvle_prob", responses=replay)
    twice = lmms_eval("velociti_strictvle_prob", responses=replay, args=["--repeats", "2"])
    assert twice.metrics("velociti_strictvle_prob") == plain.metrics("velociti_strictvle_prob")
    assert twice.output.count("repeats do not apply") == 1
