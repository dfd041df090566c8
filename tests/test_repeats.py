"""``--repeats k``: every repeat read and scored, with per-group stability (issue 23).

The expected values are computed here from the answer sets alone: by hand for the small cases, and by the
independent official TimeBlind transcription (``official_get_scores``) / Vinoground's first-character rule
applied to each repeat, to the majority reading and to the per-group outcomes for the full-size runs.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from temporal_tasks.api.spec import Metric
from temporal_tasks.benchmarks.timeblind import ROLES
from temporal_tasks.benchmarks.timeblind import tasks as timeblind
from temporal_tasks.harness import doc_hooks
from temporal_tasks.scoring import payloads
from temporal_tasks.scoring.aggregations import functions
from temporal_tasks.scoring.bootstrap import bootstrap_ci, bootstrap_ci_repeats
from temporal_tasks.scoring.metrics import reset_tables, score
from temporal_tasks.scoring.table import majority
from tests.helpers.benchmarks.timeblind import official_get_scores
from tests.helpers.repeats import SMALL, K, three, vote

timeblind_agg = SimpleNamespace(**functions("timeblind"))


def _payloads(docs: list[dict], answers: dict) -> list[dict]:
    # lmms-eval hands process_results the k answers flattened: [a1, ..., ak]
    return [timeblind.process_results(d, three(answers[d["question_id"]]))["instance_acc"] for d in docs]


@pytest.fixture
def tb_docs(offline_env) -> list[dict]:
    reset_tables()
    return timeblind.load_docs()


def test_filter_hands_over_one_answer_as_take_first_and_k_as_a_list():
    from lmms_eval.filters.selection import TakeFirstFilter

    resps = [["Yes"], [""], []]
    assert doc_hooks.AllAnswers().apply(resps, None) == list(TakeFirstFilter().apply(resps, None))
    assert doc_hooks.AllAnswers().apply([["a", "b", "c"]], None) == [["a", "b", "c"]]
    assert payloads.answers(["a"]) == "a" and payloads.answers(["a", "b"]) == ["a", "b"]
    assert payloads.answers([["a", "b"]]) == ["a", "b"] and payloads.answers([]) == ""


def test_payload_keeps_repeat_zero_on_top_and_every_reading(tb_docs):
    doc = tb_docs[0]  # gold yes
    one = timeblind.process_results(doc, ["Yes"])
    assert not any(k.endswith(("_consensus_accuracy", "_consistency_rate", "_repeat_sd")) for k in one)
    assert "repeats" not in one["instance_acc"]
    out = timeblind.process_results(doc, ["Yes", "", "No"])
    p = out["instance_acc"]
    assert p["answer"] == "Yes" and p["pred"] == "yes" and p["correct"] is True  # repeat 0 on top
    assert [r["pred"] for r in p["repeats"]] == ["yes", None, "no"]
    assert [r["correct"] for r in p["repeats"]] == [True, False, False]
    assert all("answer" not in r for r in p["repeats"])  # the texts stay lmms-eval's resps
    for key in ("instance_acc", "trial_acc", "instance_acc_yes_no"):
        assert {f"{key}_consensus_accuracy", f"{key}_consistency_rate", f"{key}_repeat_sd"} <= set(out)
    assert not any(k.startswith(("invalid_rate_", "truncated_rate_")) for k in out)


def test_timeblind_stability_by_hand(tb_docs):
    items = _payloads(tb_docs, SMALL)
    assert timeblind_agg.instance_acc(items) == pytest.approx((50 + 50 + 25) / 3)
    assert timeblind_agg.instance_acc_consensus_accuracy(items) == 75.0  # majority: instances 0, 1, 2 right
    assert timeblind_agg.instance_acc_consistency_rate(items) == 25.0  # only instance 3 (never right) is stable
    assert timeblind_agg.instance_acc_repeat_sd(items) == pytest.approx(statistics.stdev([50, 50, 25]))
    assert timeblind_agg.trial_acc(items) == pytest.approx(100 * (11 + 11 + 9) / 48)
    assert timeblind_agg.invalid_rate(items) == pytest.approx(100 / 48)  # all k x 16 answers count
    yes_no = [p for p in items if "yes_no" in p["categories"]]  # instances 0 (right in r0) and 1 (in r1, r2)
    assert (
        timeblind_agg.instance_acc_yes_no(yes_no) == 50.0 and timeblind_agg.instance_acc_yes_no_repeat_sd(yes_no) == 0
    )
    assert timeblind_agg.instance_acc_yes_no_consistency_rate(yes_no) == 0.0
    low, high = timeblind_agg.instance_acc_ci_low(items), timeblind_agg.instance_acc_ci_high(items)
    assert 0 <= low <= timeblind_agg.instance_acc(items) <= high <= 100
    # shuffled payload order: the same numbers
    shuffled = items[:]
    random.Random(4).shuffle(shuffled)
    agg = timeblind_agg
    for fn in (agg.instance_acc, agg.instance_acc_consensus_accuracy, agg.instance_acc_ci_low,
               agg.instance_acc_consistency_rate, agg.instance_acc_repeat_sd):  # fmt: skip
        assert fn(shuffled) == fn(items)


def test_truncated_group_left_out_of_every_repeat(tb_docs):
    items = _payloads(tb_docs[:-1], SMALL)  # instance 3 lost a trial (--limit)
    assert timeblind_agg.instance_acc(items) == pytest.approx(100 * (2 + 2 + 1) / 9)
    assert timeblind_agg.instance_acc_consistency_rate(items) == 0.0
    assert timeblind_agg.instance_acc_consensus_accuracy(items) == 100.0


def test_empty_answers_count_as_unreadable_in_every_repeat(tb_docs):
    answers = {d["question_id"]: ["", "Maybe", ""] for d in tb_docs}
    items = _payloads(tb_docs, answers)
    assert timeblind_agg.invalid_rate(items) == 100.0
    assert timeblind_agg.instance_acc(items) == 0.0 and timeblind_agg.instance_acc_repeat_sd(items) == 0.0
    assert timeblind_agg.instance_acc_consistency_rate(items) == 100.0


def test_majority_tie_is_unreadable():
    assert majority(["yes", "no"]) is None and majority(["yes", "no", "no"]) == "no"
    assert majority([None, None, "yes"]) is None and majority(["A", "A", None, None]) is None


def test_one_answer_per_question_path_unchanged(tb_docs):
    items = [timeblind.process_results(d, [SMALL[d["question_id"]][0] if isinstance(SMALL[d["question_id"]], list)
                                           else SMALL[d["question_id"]]])["instance_acc"] for d in tb_docs]  # fmt: skip
    result = score(items, Metric((ROLES,)), label="t", key="instance_acc")
    assert result.value == 50.0 and math.isnan(result.consensus_accuracy) and math.isnan(result.repeat_sd)


def test_repeat_bootstrap_with_one_repeat_matches_the_plain_bootstrap():
    rng = np.random.default_rng(0)
    counts = np.stack([rng.integers(0, 3, 50), np.full(50, 2)], axis=1)
    counts[:, 0] = np.minimum(counts[:, 0], counts[:, 1])
    strata = [str(i % 3) for i in range(50)]
    assert bootstrap_ci_repeats(counts[:, None, :], strata) == bootstrap_ci(counts, strata)
    assert bootstrap_ci_repeats(counts[:, None, :]) == bootstrap_ci(counts)


def test_different_repeat_counts_are_an_error(tb_docs):
    items = _payloads(tb_docs, SMALL)
    items[0] = timeblind.process_results(tb_docs[0], ["Yes", "No"])["instance_acc"]
    with pytest.raises(ValueError, match="different numbers of repeats"):
        timeblind_agg.instance_acc(items)


def test_rescore_rereads_every_repeat(tb_docs):
    from temporal_tasks.tools.rescore import rescore_task

    lines = []
    for d in tb_docs:
        given = three(SMALL[d["question_id"]])
        lines.append({"doc_id": int(d["question_id"]), "filtered_resps": given, **timeblind.process_results(d, given)})
    got = rescore_task("timeblind_iacc", lines)
    assert got["instance_acc_consensus_accuracy"] == 75.0 and got["instance_acc_consistency_rate"] == 25.0
    assert got["instance_acc"] == pytest.approx(125 / 3)
    lines[0]["filtered_resps"] = ["Yes"]
    with pytest.raises(Exception, match="holds 3 repeats but the sample line's resps hold 1"):
        rescore_task("timeblind_iacc", lines)


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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_repeats_one_is_the_single_run(lmms_eval, shared_lmms_eval):
    from tests.helpers.benchmarks.timeblind import TRICKY

    plain = shared_lmms_eval("timeblind_iacc", responses=TRICKY)
    once = lmms_eval("timeblind_iacc", responses=TRICKY, args=["--repeats", "1"])
    assert once.results["results"]["timeblind_iacc"] == plain.results["results"]["timeblind_iacc"]
    strip = ("doc_hash",)
    assert [{k: v for k, v in s.items() if k not in strip} for s in once.samples["timeblind_iacc"]] == [
        {k: v for k, v in s.items() if k not in strip} for s in plain.samples["timeblind_iacc"]
    ]


@pytest.mark.slow
def test_replay_list_of_wrong_length_is_a_clear_error(lmms_eval):
    from tests.helpers.benchmarks.timeblind import TRICKY

    answers = {**TRICKY, "0": ["Yes", "No", "Yes"]}
    run = lmms_eval("timeblind_iacc", responses=answers, args=["--repeats", "2"], expect_ok=False)
    assert run.returncode != 0
    assert "question '0' has a list of 3 responses but the run asks for 2" in run.output


@pytest.mark.slow
def test_loglikelihood_task_scores_once_and_says_so(lmms_eval, tmp_path):
    from tests.helpers.benchmarks.velociti import LOGPS, all_answers, write_replay

    replay = write_replay(tmp_path / "replay.jsonl", all_answers(), LOGPS)
    plain = lmms_eval("velociti_strictvle_prob", responses=replay)
    twice = lmms_eval("velociti_strictvle_prob", responses=replay, args=["--repeats", "2"])
    assert twice.metrics("velociti_strictvle_prob") == plain.metrics("velociti_strictvle_prob")
    assert twice.output.count("repeats do not apply") == 1


ANSWER_POOL = ["A", "B", "Yes", "No", "", "(A)", "no.", "The answer is B", "maybe"]


@pytest.mark.parametrize("mode", ["robust", "official"])
@pytest.mark.parametrize(
    "task", ["timeblind_iacc", "vinoground_group", "temporalbench_short_mba", "velociti_strictvle", "velociti_mc"]
)
def test_every_key_is_the_mean_of_single_runs(task, mode, offline_env, monkeypatch):
    """Each group metric under --repeats 3 = the mean of three one-answer runs (the k = 1 path as the oracle);
    consensus = the one-answer run on the majority answers; SD = their sample SD. Every generate benchmark,
    both parser modes (VELOCITI's official mode drops pairs with an unreadable answer, per repeat)."""
    from temporal_tasks.harness.task_configs import resolve_function, task_config

    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
    cfg = task_config(task)
    docs = list(resolve_function(cfg["process_docs"])(None))
    process = resolve_function(cfg["process_results"])
    rng = random.Random(task)
    given = {}
    for d in docs:
        gold = str(d["gold"])
        spoken = gold.capitalize() if gold in ("yes", "no") else gold
        given[d["question_id"]] = [spoken if rng.random() < 0.6 else rng.choice(ANSWER_POOL) for _ in range(K)]

    def aggregate(answer_of) -> dict[str, float]:
        reset_tables()
        items: dict[str, list] = {}
        for d in docs:
            for key, p in process(d, answer_of(d["question_id"])).items():
                items.setdefault(key, []).append(p)
        return {m["metric"]: resolve_function(m["aggregation"])(items[m["metric"]]) for m in cfg["metric_list"]
                if m["metric"] in items}  # fmt: skip

    sampled = aggregate(lambda q: given[q])
    singles = [aggregate(lambda q, r=r: [given[q][r]]) for r in range(K)]
    consensus = aggregate(lambda q: [_majority_answer(docs, q, given[q])])
    checked = 0
    for key, value in singles[0].items():
        if f"{key}_repeat_sd" not in sampled or value != value:  # a group metric: it has --repeats keys
            continue
        per_repeat = [s[key] for s in singles if s[key] == s[key]]  # a repeat with nothing to score has no value
        assert sampled[key] == pytest.approx(sum(per_repeat) / len(per_repeat), abs=1e-9), key
        sd = statistics.stdev(per_repeat) if len(per_repeat) > 1 else math.nan
        assert sampled[f"{key}_repeat_sd"] == pytest.approx(sd, abs=1e-9, nan_ok=True), key
        assert sampled[f"{key}_consensus_accuracy"] == pytest.approx(consensus[key], abs=1e-9, nan_ok=True), key
        assert 0.0 <= sampled[f"{key}_consistency_rate"] <= 100.0
        checked += 1
    assert checked >= 2
    assert sampled["invalid_rate"] == pytest.approx(sum(s["invalid_rate"] for s in singles) / K, abs=1e-9)


def _majority_answer(docs: list[dict], qid: str, answers: list[str]) -> str:
    """An answer text whose reading is the majority reading of ``answers`` ("" when tied: unreadable)."""
    from temporal_tasks.answers.options import option_keys
    from temporal_tasks.answers.parsing import get_parser
    from temporal_tasks.base.settings import parser_mode

    doc = next(d for d in docs if d["question_id"] == qid)
    keys = option_keys(doc.get("options"))
    mode = parser_mode()
    readings = []
    for a in answers:
        robust, official, _errors = get_parser(doc["parser"]).read_all(a, keys)
        readings.append(official if mode == "official" else robust)
    winner = vote(readings)
    return "" if winner is None else answers[readings.index(winner)]


@pytest.mark.parametrize("same_units", [True, False])
def test_repeat_bootstrap_matches_resampling_groups_by_hand(same_units):
    """The repeat CI against the definition: resample groups with their k outcomes, take the mean over repeats
    of each repeat's percentage; whether every group has the same units in each repeat (drawn over the summed
    outcomes) or not (over the joint ones). Two Monte Carlo estimates: equal within their noise."""
    rng = np.random.default_rng(7)
    groups, k, iters = 200, 3, 4000
    units = np.repeat(rng.integers(1, 5, groups)[:, None], k, axis=1)
    if not same_units:
        units[::3, 1] = 0  # some groups hold no unit in one repeat (e.g. dropped for an unreadable answer)
    right = rng.binomial(units, 0.6)
    counts = np.stack([right, units], axis=2)
    draw = np.random.default_rng(11).integers(0, groups, size=(iters, groups))
    per_repeat = 100.0 * right[draw].sum(axis=1) / units[draw].sum(axis=1)  # (iters, k)
    low, high = np.percentile(per_repeat.mean(axis=1), [2.5, 97.5])
    got = bootstrap_ci_repeats(counts, iters=iters)
    assert got[0] == pytest.approx(low, abs=0.6) and got[1] == pytest.approx(high, abs=0.6)
    assert 3.0 < high - low < 20.0
