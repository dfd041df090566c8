"""The shared scoring core, on hand-computed cases, shuffled order, truncated groups and bad answers."""

from __future__ import annotations

import json
import math
import random

import pytest

from temporal_tasks.api.spec import Metric, MetricList, PerCategory, Strata, slug
from temporal_tasks.base.run_state import STATE
from temporal_tasks.scoring.bootstrap import bootstrap_ci
from temporal_tasks.scoring.metrics import complete_groups, question_rate, reset_tables, score, scored
from temporal_tasks.scoring.payloads import make_payload, results_for
from temporal_tasks.scoring.table import INVALID
from tests.helpers.payloads import TRIAL_ANSWERS, TRIAL_ROLES, trial_doc, trial_payloads, unit_accuracy


def invalid_rate(payloads) -> float:
    reset_tables()
    return question_rate(payloads, INVALID)


def test_hand_computed_unit_metrics():
    groups = trial_payloads(TRIAL_ANSWERS)
    # trials right: 4 + 3 + 2 = 9 of 12
    assert unit_accuracy(groups, "each") == pytest.approx(100 * 9 / 12)
    # question units (q0: v0,v1; q1: v0,v1): g0 2, g1 1 (q1), g2 1 (q0) -> 4 of 6
    assert unit_accuracy(groups, [("q0_v0", "q0_v1"), ("q1_v0", "q1_v1")]) == pytest.approx(100 * 4 / 6)
    # video units (v0: q0,q1; v1: q0,q1): g0 2, g1 1 (v0), g2 0 -> 3 of 6
    assert unit_accuracy(groups, [("q0_v0", "q1_v0"), ("q0_v1", "q1_v1")]) == pytest.approx(50.0)
    assert unit_accuracy(groups, [TRIAL_ROLES]) == pytest.approx(100 / 3)
    assert unit_accuracy(groups, "all") == pytest.approx(100 / 3)
    assert invalid_rate(groups) == pytest.approx(100 / 12)


def test_invalid_drop_policy_removes_units_from_denominator():
    groups = trial_payloads(TRIAL_ANSWERS)
    # g2's q1 unit holds the empty answer: dropped, so question accuracy is 4 of 5.
    assert unit_accuracy(groups, [("q0_v0", "q0_v1"), ("q1_v0", "q1_v1")], invalid="drop") == pytest.approx(80.0)


def test_order_does_not_matter():
    payloads = trial_payloads(TRIAL_ANSWERS)
    expected = unit_accuracy(payloads, [TRIAL_ROLES])
    rng = random.Random(7)
    for _ in range(20):
        rng.shuffle(payloads)
        assert unit_accuracy(list(payloads), [TRIAL_ROLES]) == expected


def test_truncated_group_is_left_out_and_counted():
    payloads = trial_payloads({k: v for k, v in TRIAL_ANSWERS.items() if k < 6})  # --limit 6 cuts g1
    assert complete_groups(payloads) == 1
    assert scored(payloads).table.complete.tolist().count(False) == 1  # g1 left out, and counted
    assert unit_accuracy(payloads, "each") == 100.0


def test_nothing_complete_gives_nan_not_zero():
    groups = trial_payloads({0: "yes", 1: "no"})
    assert math.isnan(unit_accuracy(groups, "each"))
    assert math.isnan(invalid_rate(groups))


@pytest.mark.parametrize("answer", [None, "", "   ", "\x00\x01", "🙂" * 500, "<think>", "Maybe?"])
def test_garbage_answers_are_wrong_and_invalid(answer):
    payloads = trial_payloads({0: answer, 1: "No", 2: "no", 3: "yes"})
    assert payloads[0]["pred"] is None and payloads[0]["correct"] is False
    groups = payloads
    assert unit_accuracy(groups, "each") == 75.0
    assert invalid_rate(groups) == 25.0


def test_repeated_answer_is_ignored_but_conflicting_roles_raise():
    payloads = trial_payloads(TRIAL_ANSWERS)
    reset_tables()
    assert scored([*payloads, payloads[0]]).table.duplicates == 1
    assert unit_accuracy([*payloads, payloads[0]], "each") == unit_accuracy(payloads, "each")
    clash = dict(payloads[1], question_id="other")
    reset_tables()
    with pytest.raises(ValueError, match="both claim role"):
        scored([*payloads, clash])
    # a repeated answer in a list made of an earlier list's columns (a category key's) counts once too
    reset_tables()
    again = dict(payloads[0])
    assert scored([*payloads, again]).table.duplicates == 1
    sub = scored([payloads[0], again, *payloads[1:4]])
    assert (
        sub.columns is STATE.tables[0].columns and sub.table.duplicates == 1 and sub.table.complete.tolist() == [True]
    )


def test_results_for_adds_category_keys():
    payload = make_payload(trial_doc(0, 0, ["Cross-Event_Comparison", "Structural Event Logic"]), "yes")
    block = PerCategory(("instance_acc",), ("cross_event_comparison", "structural_event_logic", "speed"))
    ml = MetricList("f.yaml", values={"acc": Metric(), "instance_acc": Metric()}, diagnostics=(), per_category=(block,))
    keys = results_for(payload, ml, payload["categories"])
    expected = {"acc", "instance_acc", "instance_acc_cross_event_comparison", "instance_acc_structural_event_logic"}
    assert set(keys) == expected
    # a category the list has no key for feeds none
    assert set(results_for(payload, ml, ["Unknown tag"])) == {"acc", "instance_acc"}
    # no invalid_rate key: the first key holds the payload (less the answer) for the samples file, the others
    # share one object (one computation for a metric's keys)
    # the first key (no invalid_rate here) holds the payload, written without the answer; in the process it equals
    # the other keys' shared object, so every key's list is the same list of payloads
    assert keys["acc"] == payload and json.loads(json.dumps(keys["acc"])) == {
        k: v for k, v in payload.items() if k != "answer"
    }
    shared = keys["instance_acc_cross_event_comparison"]
    assert keys["instance_acc_structural_event_logic"] is shared and dict(shared) == payload
    assert "score" not in payload  # lmms-eval would compute a misleading per-question stderr from it


def test_slug():
    assert slug("Fine-Grained_Actions") == "fine_grained_actions"
    assert slug("  Structural Event Logic ") == "structural_event_logic"
    assert slug("Something-V2 (x)") == "something_v2_x"


# ----------------------------------------------------------------------------- bootstrap CIs

np = pytest.importorskip("numpy")


def _naive_bootstrap(counts, iters, seed, strata=None):
    """Textbook bootstrap: resample group indices with replacement (the reference for the fast one)."""
    rng = np.random.default_rng(seed)
    counts = np.asarray(counts)
    labels = np.zeros(len(counts)) if strata is None else np.asarray(strata)
    stats = []
    for _ in range(iters):
        per = []
        for s in sorted(set(labels.tolist())):
            sub = counts[labels == s]
            pick = sub[rng.integers(0, len(sub), len(sub))]
            per.append(100 * pick[:, 0].sum() / pick[:, 1].sum())
        stats.append(np.mean(per))
    return np.percentile(stats, [2.5, 97.5])


def test_bootstrap_matches_textbook_resampling():
    rng = np.random.default_rng(0)
    right = rng.integers(0, 3, 300)
    counts = np.stack([right, np.full(300, 2)], axis=1)  # e.g. question_acc: 2 units per group
    fast = bootstrap_ci(counts, iters=4000, seed=1)
    slow = _naive_bootstrap(counts, 4000, seed=2)
    assert fast == pytest.approx(tuple(slow), abs=1.0)  # same distribution; Monte-Carlo error < 1 point
    value = 100 * right.sum() / 600
    assert fast[0] < value < fast[1]


def test_bootstrap_with_strata_matches_textbook():
    rng = np.random.default_rng(5)
    counts = np.stack([rng.integers(0, 2, 240), np.ones(240, dtype=int)], axis=1)
    strata = [f"t{i % 3}" for i in range(240)]
    fast = bootstrap_ci(counts, strata, iters=3000)
    slow = _naive_bootstrap(counts, 3000, seed=9, strata=strata)
    assert fast == pytest.approx(tuple(slow), abs=1.5)


def test_bootstrap_edge_cases():
    assert bootstrap_ci(np.array([[1, 1]] * 50)) == (100.0, 100.0)
    assert all(math.isnan(x) for x in bootstrap_ci(np.zeros((0, 2))))
    assert all(math.isnan(x) for x in bootstrap_ci(np.array([[0, 0]] * 3)))  # nothing scorable


def test_ci_aggregators_are_seeded_and_order_free():
    from temporal_tasks.scoring import aggregations

    timeblind_agg = aggregations.functions("timeblind")
    payloads = trial_payloads({i: ("yes", "no", "no", "yes")[i % 4] if i % 5 else "maybe" for i in range(400)})
    low, high = timeblind_agg["instance_acc_ci_low"](payloads), timeblind_agg["instance_acc_ci_high"](payloads)
    value = timeblind_agg["instance_acc"](payloads)
    assert low <= value <= high and high - low > 1
    shuffled = list(payloads)
    random.Random(1).shuffle(shuffled)
    reset_tables()  # recomputed from scratch
    assert (timeblind_agg["instance_acc_ci_low"](shuffled), timeblind_agg["instance_acc_ci_high"](shuffled)) == (
        low,
        high,
    )


# ----------------------------------------------------------------------------- the one core: policies and strata


def _pair(group: str, test: str, pos: str | None, neg: str | None, p_pos=None, p_neg=None) -> list[dict]:
    """A VELOCITI-style pair: pos gold yes, neg gold no; ``None`` = unreadable."""
    out = []
    for role, gold, pred, p in (("pos", "yes", pos, p_pos), ("neg", "no", neg, p_neg)):
        out.append({"question_id": f"{group}_{role}", "group_id": group, "role": role, "group_size": 2, "test": test,
                    "gold": gold, "pred": pred, "correct": pred == gold, "p_yes": p})  # fmt: skip
    return out


def test_strata_mean_exclusion_order_and_policies():
    items = (
        _pair("a1", "t1", "yes", "no") + _pair("a2", "t1", "yes", "yes") + _pair("a3", "t1", None, "no")  # t1
        + _pair("b1", "t2", "yes", "no") + _pair("b2", "t2", "no", "no")  # t2
        + _pair("c1", "ctl", "yes", "no")  # excluded stratum
        + _pair("cut", "t2", "yes", "no")[:1]  # a cut pair: left out everywhere
    )  # fmt: skip
    strata = Strata("test", ("t1", "t2", "ctl"), exclude=("ctl",))
    wrong = Metric((("pos", "neg"),), strata=strata)
    drop = Metric((("pos", "neg"),), invalid="drop_group", strata=strata)
    for seed in range(4):
        random.Random(seed).shuffle(items)
        reset_tables()
        # t1: 1 of 3 (the unreadable pair is wrong), t2: 1 of 2 -> mean of 33.3 and 50
        assert score(items, wrong, label="v", key="s").value == pytest.approx((100 / 3 + 50) / 2)
        # drop_group: t1's unreadable pair leaves the denominator -> 1 of 2
        assert score(items, drop, label="v", key="s").value == pytest.approx(50.0)
        t2 = [p for p in items if p["test"] == "t2"]
        assert score(t2, wrong, label="v", key="s_t2", one_stratum=True).value == 50.0
        with pytest.raises(ValueError, match="several strata"):
            score(items, wrong, label="v", key="s_one", one_stratum=True)


def test_score_gt_rule_and_row_filter():
    items = (
        _pair("a", "t", "yes", "no", 0.9, 0.2) + _pair("b", "t", "no", "no", 0.4, 0.3)  # classic right, strict not
        + _pair("c", "t", None, "no", None, 0.1) + _pair("d", "t", "yes", "yes", 0.6, 0.7)
    )  # fmt: skip
    reset_tables()
    classic = Metric((("pos", "neg"),), score_gt="p_yes")
    assert score(items, classic, label="v", key="c").value == 50.0  # a, b (c has no score, d reversed)
    # a per-category key gets whole groups; only its category's questions are units
    for p in items:
        p["category"] = "Fine Action" if p["role"] == "pos" else "other"
    reset_tables()  # the payloads changed: a new evaluation
    within = ("category", "fine_action")
    assert score(items, Metric("each"), label="v", key="r", within=within).value == 50.0  # pos right in a and d
    assert score(items, Metric("all"), label="v", key="r2", within=("category", "other")).value == 75.0


def test_a_list_is_served_by_a_table_of_equal_content_only():
    first = trial_payloads(TRIAL_ANSWERS)
    reset_tables()
    value = score(first, Metric("each"), label="t", key="k").value
    assert len(STATE.tables) == 1
    # the same payloads, or copies equal in content: the same table
    assert score([dict(p) for p in first], Metric("each"), label="t", key="k").value == value
    assert len(STATE.tables) == 1
    # the same questions answered differently: a table of their own (question ids alone do not decide)
    second = trial_payloads({**TRIAL_ANSWERS, 11: "yes"})
    assert score(second, Metric("each"), label="t", key="k").value == pytest.approx(value + 100 / 12)
    assert len(STATE.tables) == 2
    # some of a list's payloads (a category key's list): a table from that list's columns, by question id and
    # content; a list whose payloads differ in content is read on its own
    sub = [p for p in second if p["group_id"] == "g0"]
    assert score(sub, Metric("each"), label="t", key="k").value == 100.0
    assert STATE.tables[-1].columns is STATE.tables[-2].columns
    changed = [dict(p, correct=False) if p["role"] == "q0_v0" else p for p in sub]
    assert score(changed, Metric("each"), label="t", key="k").value == 75.0
    assert STATE.tables[-1].columns is not STATE.tables[-2].columns
