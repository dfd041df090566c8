"""Each declared key's aggregation (``scoring/aggregations.py``): prefix, per-stratum and per-category keys,
differences and stability keys, the official-mode invalid policy following the payloads' reading, the resolver
lmms-eval imports, one stratified mean for the results and ``compare``, seeded CIs, ``parse_disagreement`` and
``truncated_rate``."""

from __future__ import annotations

import math
import random
from types import SimpleNamespace

import numpy as np
import pytest

from temporal_tasks.api.spec import STABILITY, Difference, Metric, MetricList, PerCategory, Strata
from temporal_tasks.scoring import aggregations
from temporal_tasks.scoring.aggregations import functions, list_aggregations, parse_disagreement, truncated_rate
from temporal_tasks.scoring.metrics import (
    ci,
    outcomes,
    policy,
    question_rate,
    reset_tables,
    score,
)
from temporal_tasks.scoring.payloads import make_payload
from temporal_tasks.scoring.table import INVALID
from temporal_tasks.tools.compare import paired_test
from temporal_tasks.tools.rescore import reparse
from tests.helpers.payloads import (
    CUT_KIMI,
    CUT_OFF,
    ab_doc,
    toy_spec,
    trial_payloads,
    yes_no_doc,
)


def _pair(group: str, test: str, pos: str | None, neg: str | None, category: str = "") -> list[dict]:
    """A VELOCITI-style pair: pos gold yes, neg gold no; ``None`` = unreadable."""
    return [
        {"question_id": f"{group}_{role}", "group_id": group, "role": role, "group_size": 2, "test": test,
         "gold": gold, "pred": pred, "correct": pred == gold, "category": category}
        for role, gold, pred in (("pos", "yes", pos), ("neg", "no", neg))
    ]  # fmt: skip


ITEMS = (
    _pair("a1", "t1", "yes", "no") + _pair("a2", "t1", "yes", "yes") + _pair("a3", "t1", None, "no")  # t1: 1 of 3
    + _pair("b1", "t2", "yes", "no") + _pair("b2", "t2", "no", "no")  # t2: 1 of 2
    + _pair("c1", "ctl", "yes", "no")  # control: 1 of 1, left out of the mean
)  # fmt: skip

PAIR = (("pos", "neg"),)

TESTS = Strata("test", ("ctl", "t1", "t2"), exclude=("ctl",))


def _read_in(mode: str | None, items: list[dict] = ITEMS) -> list[dict]:
    """``items`` as payloads read in reading ``mode`` (None: payloads that record no mode, as older files)."""
    return [dict(p) if mode is None else {**p, "parser_mode": mode} for p in items]


ROBUST_VALUE, OFFICIAL_VALUE = (100 / 3 + 50) / 2, (50 + 50) / 2  # official: a3 (unreadable) leaves t1


@pytest.mark.parametrize("env", [None, "robust", "official"])
def test_invalid_official_follows_the_payloads_reading_not_the_environment(monkeypatch, env):
    metric = Metric(PAIR, invalid_official="drop_group", strata=TESTS)
    if env is None:
        monkeypatch.delenv("TEMPORAL_TASKS_PARSER", raising=False)
    else:
        monkeypatch.setenv("TEMPORAL_TASKS_PARSER", env)
    reset_tables()
    assert policy(metric, "robust") == policy(metric, None) == "wrong"
    assert policy(metric, "official") == "drop_group"
    assert policy(Metric(PAIR), "official") == "wrong"  # without an official variant: the same in both modes
    assert score(_read_in("robust"), metric, label="v", key="s").value == pytest.approx(ROBUST_VALUE)
    assert score(_read_in("official"), metric, label="v", key="s").value == pytest.approx(OFFICIAL_VALUE)
    assert score(_read_in(None), metric, label="v", key="s").value == pytest.approx(ROBUST_VALUE)  # the default
    lo, hi = ci(_read_in("official"), metric, label="v")
    assert lo <= OFFICIAL_VALUE <= hi


def test_payloads_read_in_two_modes_are_an_error():
    metric = Metric(PAIR, invalid_official="drop_group", strata=TESTS)
    reset_tables()
    mixed = _read_in("robust", ITEMS[:6]) + _read_in("official", ITEMS[6:])
    with pytest.raises(ValueError, match=r"velociti_strictvle: .*readings \['official', 'robust'\]"):
        score(mixed, metric, label="velociti_strictvle", key="s")
    with pytest.raises(ValueError, match=r"readings \['fuzzy'\]"):
        score(_read_in("fuzzy"), metric, label="v", key="s")
    # a payload without the field has no say (payloads of older files, log-likelihood payloads)
    partly = _read_in("official", ITEMS[:6]) + _read_in(None, ITEMS[6:])
    assert score(partly, metric, label="v", key="s").value == pytest.approx(OFFICIAL_VALUE)


def test_velocitis_aggregations_give_the_same_numbers_whatever_the_environment(monkeypatch):
    """VELOCITI's registered aggregations (official reading: a row with an unreadable answer leaves) over the same
    payloads: the numbers follow the payloads' parser_mode, whatever TEMPORAL_TASKS_PARSER says at aggregation."""
    tests = {"t1": "agent_random", "t2": "coref", "ctl": "control"}
    items = [{**p, "test": tests[p["test"]]} for p in ITEMS]
    funcs = aggregations.functions("velociti")
    keys = ("strict_vle", "strict_vle_ci_low", "strict_vle_ci_high", "strict_vle_agent_random", "invalid_rate")
    seen: dict[tuple, dict[str, float]] = {}
    for env in (None, "robust", "official"):
        if env is None:
            monkeypatch.delenv("TEMPORAL_TASKS_PARSER", raising=False)
        else:
            monkeypatch.setenv("TEMPORAL_TASKS_PARSER", env)
        for mode in ("robust", "official"):
            reset_tables()
            payloads = _read_in(mode, items)
            one = [p for p in payloads if p["test"] == "agent_random"]
            got = {k: funcs[k](one if k.endswith("agent_random") else payloads) for k in keys}
            assert seen.setdefault(("mode", mode), got) == got, (env, mode)
    robust, official = seen[("mode", "robust")], seen[("mode", "official")]
    assert robust["strict_vle"] == pytest.approx(ROBUST_VALUE) and official["strict_vle"] == pytest.approx(
        OFFICIAL_VALUE
    )
    assert robust["strict_vle_agent_random"] == pytest.approx(100 / 3) and official["strict_vle_agent_random"] == 50


def test_prefix_per_stratum_keys_differences_and_stability_keys():
    values = {"s": Metric(PAIR, strata=TESTS), "n": Metric((("neg",),), strata=TESTS), "d": Difference("s", "n")}
    with pytest.raises(ValueError, match="difference of keys the block lacks"):
        toy_spec(MetricList("f.yaml", values=values, per_category=(PerCategory(("s", "d"), ("t1",)),)))
    block = PerCategory(("s", "n", "d"), ("t1", "t2", "ctl"))
    ml = MetricList("f.yaml", values=values, ci=("s",), per_category=(block,), prefix="p_")
    aggs = list_aggregations(toy_spec(ml), ml)
    cats = {f"p_{f}_{t}" for f in ("s", "n", "d") for t in ("t1", "t2", "ctl")}
    plain = {"p_s", "p_n", "p_d", "p_s_ci_low", "p_s_ci_high", "p_invalid_rate", "p_parse_disagreement"}
    grouped = ("p_s", "p_n", *(f"p_{f}_{t}" for f in ("s", "n") for t in ("t1", "t2", "ctl")))
    stability = {f"{k}_{x}" for k in grouped for x in STABILITY}
    assert set(aggs) == plain | {"p_truncated_rate"} | cats | stability  # no stability keys for a difference
    reset_tables()
    assert aggs["p_s"](ITEMS) == pytest.approx((100 / 3 + 50) / 2)
    assert aggs["p_s_ci_low"](ITEMS) <= aggs["p_s"](ITEMS) <= aggs["p_s_ci_high"](ITEMS)
    # a per-test key receives one test: that test's pooled percentage, control included, no CI
    assert aggs["p_s_t1"]([p for p in ITEMS if p["test"] == "t1"]) == pytest.approx(100 / 3)
    assert aggs["p_s_ctl"]([p for p in ITEMS if p["test"] == "ctl"]) == 100.0
    with pytest.raises(ValueError, match="several strata"):
        aggs["p_s_t1"](ITEMS)
    # negs right: t1 3 of 3... a2's neg is "yes": t1 2 of 3, t2 2 of 2 -> n = (66.7 + 100) / 2
    assert aggs["p_d"](ITEMS) == pytest.approx(aggs["p_s"](ITEMS) - (200 / 3 + 100) / 2)
    t2 = [p for p in ITEMS if p["test"] == "t2"]
    assert aggs["p_d_t2"](t2) == pytest.approx(50.0 - 100.0)
    # the value and per-test keys give their group outcomes; a CI or a difference has none
    assert aggs["p_s_t2"].outcomes(t2).value() == aggs["p_s_t2"](t2) == 50.0
    assert aggs["p_s"].outcomes(ITEMS).value() == aggs["p_s"](ITEMS)
    assert aggs["p_s_ci_low"].outcomes(ITEMS) is None and aggs["p_d"].outcomes(ITEMS) is None
    assert aggs["p_s_t2"].category and not aggs["p_s"].category
    assert math.isnan(aggs["p_s"]([])) and math.isnan(aggs["p_s_ci_high"]([]))


def test_a_category_within_whole_groups():
    items = _pair("g1", "t", "yes", "yes", "fine") + _pair("g2", "t", "yes", "no", "coarse")
    for p in items[1::2]:
        p["category"] = "Other Kind"  # the neg questions: slugged "other_kind"
    block = PerCategory(("acc",), ("fine", "coarse", "other_kind"), within="category")
    ml = MetricList("f.yaml", values={"acc": Metric("each")}, per_category=(block,))
    aggs = list_aggregations(toy_spec(ml), ml)
    assert "acc_fine_ci_low" not in aggs and "acc_fine_consensus_accuracy" in aggs
    reset_tables()
    assert aggs["acc"](items) == 75.0
    assert aggs["acc_fine"](items) == 100.0  # g1's pos right
    assert aggs["acc_coarse"](items) == 100.0  # g2's pos right
    assert aggs["acc_other_kind"](items) == 50.0  # g1's neg wrong, g2's neg right
    assert math.isnan(aggs["acc_fine"]([]))
    cut = items[:3]  # g2 cut: left out of every key, the category keys too
    assert aggs["acc_coarse"](cut) != aggs["acc_coarse"](cut)  # NaN: g1 has no coarse question


def test_lmms_eval_imports_each_keys_aggregation_by_name():
    found = aggregations.timeblind__instance_acc_speed
    assert isinstance(found, aggregations.Aggregation) and found.category
    assert aggregations.functions("timeblind")["instance_acc"] is aggregations.timeblind__instance_acc
    for missing in ("timeblind__no_such_key", "nobench__instance_acc", "instance_acc", "__path_hooks__"):
        with pytest.raises(AttributeError):
            getattr(aggregations, missing)


def test_results_and_compare_use_the_same_stratified_mean():
    # Three strata whose percentages (33.3, 33.3, 40) sum to a different last bit in the paper's order than sorted.
    order = ("beta", "gamma", "alpha")
    rights = {"beta": (1, 3), "gamma": (1, 3), "alpha": (2, 5)}
    items = [
        {"question_id": f"{s}{i}", "group_id": f"{s}{i}", "role": "q", "group_size": 1, "test": s,
         "pred": "A", "correct": i < right}
        for s, (right, n) in rights.items() for i in range(n)
    ]  # fmt: skip
    metric = Metric("each", strata=Strata("test", order))
    reset_tables()
    value = score(items, metric, label="t", key="m").value
    per = [100 * r / n for r, n in rights.values()]
    assert value == (per[0] + per[1] + per[2]) / 3  # the paper's order
    assert value != (per[2] + per[0] + per[1]) / 3  # sorted (alpha, beta, gamma): another last bit
    got = outcomes(items, metric, label="t")
    assert got.order == order and got.value() == value
    base, new, diff, *_ = paired_test(got.counts, got.counts, got.strata, order=got.order, iters=50)
    assert base == new == value and diff == 0.0
    # compare's per-category difference: one stratum alone, the same pooled percentage as the results' key
    alpha = [p for p in items if p["test"] == "alpha"]
    one = outcomes(alpha, metric, label="t", one_stratum=True)
    assert (
        paired_test(one.counts, np.asarray(one.counts), one.strata, order=one.order, iters=50)[0]
        == score(alpha, metric, label="t", key="m_alpha", one_stratum=True).value
    )


# Group g1 (4 questions), by hand:       robust  official  differ
ANSWERS_G1 = {
    "r0": "A man is waving",  # B       A         yes (caption echo)
    "r1": "B",  #                          B       B         no
    "r2": "(A)",  #                        A       None      yes
    "r3": "",  #                           None    None      no (both unreadable)
}


# Group g2 (2 questions): "Both" -> robust None, official B (differ); "b" -> B, B (same).
ANSWERS_G2 = {"r0": "Both", "r1": "b"}


# Group g3 is cut (1 of its 2 questions evaluated) and its answer differs: it must not count.
ANSWERS_G3 = {"r0": "Answer: B"}


def _payloads() -> list[dict]:
    items = [make_payload(ab_doc("g1", r, 4), a) for r, a in ANSWERS_G1.items()]
    items += [make_payload(ab_doc("g2", r, 2), a) for r, a in ANSWERS_G2.items()]
    items += [make_payload(ab_doc("g3", r, 2), a) for r, a in ANSWERS_G3.items()]
    return items


@pytest.mark.parametrize("mode", ["robust", "official"])
def test_parse_disagreement_hand_computed_any_order(monkeypatch, mode):
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
    items = _payloads()
    # complete groups g1 + g2: 6 answers, 3 differ (g1 r0, g1 r2, g2 r0); g3 is cut
    expected = 100 * 3 / 6
    for seed in range(5):
        random.Random(seed).shuffle(items)
        assert parse_disagreement(items) == pytest.approx(expected)


def test_parse_disagreement_edge_cases():
    assert math.isnan(parse_disagreement([]))
    empty = [make_payload(ab_doc("e", r, 2), "") for r in ("r0", "r1")]
    assert parse_disagreement(empty) == 0.0  # unreadable in both modes is agreement
    cut = [make_payload(ab_doc("c", "r0", 2), "Answer: B")]
    assert math.isnan(parse_disagreement(cut))  # nothing complete to score
    # payloads of an older run lack the readings: reparse adds them (and no option text: caption echoes stay A/None)
    old = {
        k: v for k, v in make_payload(ab_doc("o", "r0", 1), "(A)").items() if k not in ("pred_robust", "option_keys")
    }
    old.pop("pred_official")
    assert math.isnan(parse_disagreement([old]))
    assert parse_disagreement([reparse(old, None)]) == 100.0


def test_parse_disagreement_shares_the_table_of_other_keys():
    # 300 groups of 4; the other keys of the task share one table.
    # In group g, question r differs iff (g + r) % 3 == 0: answer "(A)" (robust A, official None), else "A".

    items = []
    for g in range(300):
        for r in range(4):
            answer = "(A)" if (g + r) % 3 == 0 else "A"
            items.append(make_payload(ab_doc(f"g{g}", f"r{r}", 4, gold="A"), answer))
    expected_all = 100 * sum((g + r) % 3 == 0 for g in range(300) for r in range(4)) / 1200
    question_rate([dict(p, correct=not p["correct"]) for p in items], INVALID)  # unrelated work first
    timeblind_agg = SimpleNamespace(**functions("timeblind"))
    timeblind_agg.trial_acc(list(items))  # builds the shared table, as the headline key does
    assert parse_disagreement(list(items)) == pytest.approx(expected_all)
    # a category-style subset of whole groups (made from the shared table's columns)
    subset = [p for p in items if int(p["group_id"][1:]) % 5 == 0]
    expected_sub = 100 * sum((g + r) % 3 == 0 for g in range(0, 300, 5) for r in range(4)) / len(subset)
    assert parse_disagreement(subset) == pytest.approx(expected_sub)
    # a replayed answer to the same question counts once; a cut group counts not at all
    noisy = [*items, items[0], make_payload(ab_doc("cut", "r0", 4), "(A)")]
    random.Random(7).shuffle(noisy)
    assert parse_disagreement(noisy) == pytest.approx(expected_all)


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


def test_truncated_rate_hand_computed_any_order():
    # g1 (4): two cut off; g2 (2): none cut; g3 is cut by --limit (1 of 2 answers) and cut off: not counted.
    items = [
        make_payload(yes_no_doc("g1", "r0", 4), CUT_OFF),
        make_payload(yes_no_doc("g1", "r1", 4), "No"),
        make_payload(yes_no_doc("g1", "r2", 4), CUT_KIMI),
        make_payload(yes_no_doc("g1", "r3", 4), ""),  # empty: unreadable, but not cut off
        make_payload(yes_no_doc("g2", "r0", 2), "<think>done</think>Yes"),
        make_payload(yes_no_doc("g2", "r1", 2), "garbage !!"),
        make_payload(yes_no_doc("g3", "r0", 2), CUT_OFF),
    ]
    for seed in range(5):
        random.Random(seed).shuffle(items)
        assert truncated_rate(items) == pytest.approx(100 * 2 / 6)
    assert math.isnan(truncated_rate([]))
    assert math.isnan(truncated_rate([make_payload(yes_no_doc("c", "r0", 2), CUT_OFF)]))  # nothing complete
    old = {k: v for k, v in make_payload(yes_no_doc("o", "r0", 1), CUT_OFF).items() if k != "truncated"}
    assert truncated_rate([old]) == 0.0  # samples written before the key existed: not counted as cut off


def test_warns_once_above_five_percent(warnings_seen):

    few = [make_payload(yes_no_doc(f"g{i}", "r0", 1), "No") for i in range(40)] + [
        make_payload(yes_no_doc("x", "r0", 1), CUT_OFF)
    ]
    assert truncated_rate(few) == pytest.approx(100 / 41)  # 2.4%: no warning
    assert not [w for w in warnings_seen if "cut off inside <think>" in w]
    many = few + [make_payload(yes_no_doc(f"y{i}", "r0", 1), CUT_OFF) for i in range(3)]
    truncated_rate(many)
    truncated_rate(many)
    warned = [w for w in warnings_seen if "cut off inside <think>" in w]
    assert len(warned) == 1 and "max_new_tokens" in warned[0]


def test_caption_truncated_rate_counts_each_caption_once():
    from temporal_tasks.benchmarks.temporalbench.tasks import process_results_caption

    doc = {"question_id": "c1", "group_id": "c1", "role": "caption", "gold": "A man walks.", "categories": []}
    cut = process_results_caption(doc, ["<think>The man starts walking and then"])
    done = process_results_caption({**doc, "question_id": "c2", "group_id": "c2"}, ["<think>ok</think>A man walks."])
    assert cut["truncated_rate"]["truncated"] is True and done["truncated_rate"]["truncated"] is False
    items = [cut["truncated_rate"], done["truncated_rate"], cut["truncated_rate"]]  # a repeated shard counts once
    assert truncated_rate(items) == 50.0
