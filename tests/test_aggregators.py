"""A metric declared once in the spec: its aggregations (prefix, per-stratum and per-category keys, differences,
stability keys), the official-mode invalid policy, declared roles, the resolver lmms-eval imports, and one
stratified mean for the results and ``compare``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from temporal_tasks.api.spec import STABILITY, Benchmark, Difference, Metric, MetricList, PerCategory, Strata
from temporal_tasks.scoring import aggregations
from temporal_tasks.scoring.aggregations import list_aggregations
from temporal_tasks.scoring.metrics import ci, outcomes, policy, reset_tables, score
from temporal_tasks.tools.compare import paired_test
from tests.helpers.payloads import toy_spec


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
    """``items`` as payloads read in parser mode ``mode`` (None: payloads that record no mode, as older files)."""
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
    with pytest.raises(ValueError, match=r"velociti_strictvle: .*parser modes \['official', 'robust'\]"):
        score(mixed, metric, label="velociti_strictvle", key="s")
    with pytest.raises(ValueError, match=r"parser modes \['fuzzy'\]"):
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


def test_a_unit_naming_an_undeclared_role_is_an_error_at_import():
    ml = MetricList("f.yaml", values={"m": Metric((("pos", "nge"),))})
    with pytest.raises(ValueError, match=r"roles \['nge'\] that the benchmark does not declare"):
        toy_spec(ml)
    toy_spec(MetricList("f.yaml", values={"m": Metric((("pos", "neg"),))}))  # declared: fine
    with pytest.raises(ValueError, match="not metrics of the list"):
        toy_spec(MetricList("f.yaml", values={"m": Metric()}, ci=("x",)))
    with pytest.raises(ValueError, match="difference of values the list does not have"):
        toy_spec(MetricList("f.yaml", values={"m": Metric(), "d": Difference("m", "q")}))
    with pytest.raises(ValueError, match="score_gt compares two roles"):
        Metric((("pos", "neg", "x"),), score_gt="p")


def test_metric_lists_declare_the_keys_and_the_headline():
    block = PerCategory(("a", "b"), ("x", "y"), by="category")
    assert block.keys() == ["a_x", "b_x", "a_y", "b_y"] and block.keys("y") == ["a_y", "b_y"]
    assert block.keys("z") == []
    assert PerCategory(("a", "b"), ("x", "y")).keys() == ["a_x", "a_y", "b_x", "b_y"]
    ml = MetricList("f.yaml", values={"a": Metric(), "b": Metric("all")}, ci=("b",), per_category=(block,))
    assert ml.keys() == ["a", "b", "invalid_rate", "parse_disagreement", "truncated_rate", "b_ci_low", "b_ci_high"]
    assert ml.keys(["y", "w"]) == [*ml.keys(), "a_y", "b_y"]
    with_repeats = ml.keys(["y"], repeats=True)
    assert with_repeats[: len(ml.keys(["y"]))] == ml.keys(["y"])
    assert with_repeats[len(ml.keys(["y"])) :] == [f"{k}_{s}" for k in ("a", "b", "a_y", "b_y") for s in STABILITY]
    second = MetricList("g.yaml", values={"c": Metric()}, diagnostics=("truncated_rate",))
    spec = Benchmark(name="toy", title="Toy", package="toy", families=("b", "a"), metric_lists=(ml, second))
    assert spec.headline == ("b", "a", "c", "invalid_rate", "parse_disagreement", "truncated_rate")
    explicit = Benchmark(name="toy", title="Toy", package="toy", headline=("a",), metric_lists=(ml,))
    assert explicit.headline == ("a",)
    with pytest.raises(ValueError, match=r"families \['z'\]"):
        Benchmark(name="toy", title="Toy", package="toy", families=("a", "z"), metric_lists=(ml,))


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
