"""``scoring.aggregators()`` options (prefix, per-stratum category keys, per-row keys, a label function), the
official-mode invalid policy, and the spec's metric lists as the one declaration of a benchmark's keys."""

from __future__ import annotations

import math

import pytest

from temporal_tasks.benchmarks.spec import Benchmark, MetricList, PerCategory
from temporal_tasks.scoring import STABILITY, Metric, aggregators, outcome_functions, reset_pass, score


def _pair(group: str, test: str, pos: str | None, neg: str | None, category: str = "") -> list[dict]:
    """A VELOCITI-style pair: pos gold yes, neg gold no; ``None`` = unreadable."""
    return [
        {"question_id": f"{group}_{role}", "group_id": group, "role": role, "group_size": 2, "test": test,
         "gold": gold, "pred": pred, "correct": pred == gold, "invalid": pred is None, "category": category}
        for role, gold, pred in (("pos", "yes", pos), ("neg", "no", neg))
    ]  # fmt: skip


ITEMS = (
    _pair("a1", "t1", "yes", "no") + _pair("a2", "t1", "yes", "yes") + _pair("a3", "t1", None, "no")  # t1: 1 of 3
    + _pair("b1", "t2", "yes", "no") + _pair("b2", "t2", "no", "no")  # t2: 1 of 2
    + _pair("c1", "ctl", "yes", "no")  # control: 1 of 1, left out of the mean
)  # fmt: skip
PAIR = (("pos", "neg"),)


def test_invalid_official_follows_the_parser_mode(monkeypatch):
    metric = Metric(PAIR, invalid_official="drop_group", strata="test", exclude_strata=("ctl",))
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "robust")
    reset_pass()
    assert metric.policy() == "wrong"
    assert score(ITEMS, metric, label="v", key="s").value == pytest.approx((100 / 3 + 50) / 2)
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "official")
    reset_pass()
    assert metric.policy() == "drop_group"
    assert score(ITEMS, metric, label="v", key="s").value == pytest.approx((50 + 50) / 2)  # a3 leaves t1
    assert Metric(PAIR).policy() == "wrong"  # without an official variant: the same in both modes


def test_prefix_and_per_stratum_category_keys():
    labels = []

    def label(items) -> str:
        labels.append(len(items))
        return "velo"

    metric = Metric(PAIR, strata="test", exclude_strata=("ctl",), expect_strata=2)
    aggs = aggregators(label, {"s": metric}, report="s", prefix="p_", category="test")
    base = {"p_s", "p_s_ci_low", "p_s_ci_high", "p_s_test"}
    assert set(aggs) == base | {f"{n}_{x}" for n in ("p_s", "p_s_test") for x in STABILITY}
    assert aggs["p_s"].__name__ == "p_s" and aggs["p_s_test"].__qualname__ == "p_s_test"
    reset_pass()
    assert aggs["p_s"](ITEMS) == pytest.approx((100 / 3 + 50) / 2)
    assert aggs["p_s_ci_low"](ITEMS) <= aggs["p_s"](ITEMS) <= aggs["p_s_ci_high"](ITEMS)
    # a per-test key receives one test: that test's pooled percentage, control included, no CI
    assert aggs["p_s_test"]([p for p in ITEMS if p["test"] == "t1"]) == pytest.approx(100 / 3)
    assert aggs["p_s_test"]([p for p in ITEMS if p["test"] == "ctl"]) == 100.0
    with pytest.raises(ValueError, match="several strata"):
        aggs["p_s_test"](ITEMS)
    assert labels and max(labels) == len(ITEMS)  # the label function sees the payloads
    # the same metrics as functions over groups: the value and the per-test key, same names
    outcomes = outcome_functions("velo", {"s": metric}, prefix="p_", category="test")
    assert set(outcomes) == {"p_s", "p_s_test"}
    t2 = [p for p in ITEMS if p["test"] == "t2"]
    assert outcomes["p_s_test"](t2).value() == aggs["p_s_test"](t2) == 50.0
    assert outcomes["p_s"](ITEMS).value() == pytest.approx(aggs["p_s"](ITEMS))


def test_row_keys_and_name_collisions():
    items = _pair("g1", "t", "yes", "yes", "fine") + _pair("g2", "t", "yes", "no", "coarse")
    for p in items[1::2]:
        p["category"] = "Other Kind"  # the neg questions: slugged "other_kind"
    aggs = aggregators("rows", {"acc": Metric("each")}, category="subset", row_field="category",
                       row_values=("fine", "coarse", "other_kind"))  # fmt: skip
    assert {"acc_subset", "acc_fine", "acc_coarse", "acc_other_kind"} <= set(aggs)
    assert "acc_fine_ci_low" not in aggs and "acc_fine_consensus_accuracy" in aggs
    reset_pass()
    assert aggs["acc"](items) == 75.0 and aggs["acc_subset"](items) == 75.0
    assert aggs["acc_fine"](items) == 100.0  # g1's pos right
    assert aggs["acc_coarse"](items) == 100.0  # g2's pos right
    assert aggs["acc_other_kind"](items) == 50.0  # g1's neg wrong, g2's neg right
    assert math.isnan(aggs["acc_fine"]([]))
    with pytest.raises(ValueError, match="collide"):
        aggregators("rows", {"acc": Metric("each")}, row_field="category", row_values=("category",))


def test_one_category_of_a_pooled_metric_is_itself():
    metric = Metric("all")
    assert metric.one_category() is metric
    stratified = Metric(PAIR, strata="test", exclude_strata=("ctl",), expect_strata=7)
    one = stratified.one_category()
    assert (one.one_stratum, one.exclude_strata, one.expect_strata, one.units) == (True, (), 0, stratified.units)


def test_metric_lists_declare_the_keys_and_the_headline():
    block = PerCategory(("a", "b"), ("x", "y"), by="category")
    assert block.keys() == ["a_x", "b_x", "a_y", "b_y"] and block.keys("y") == ["a_y", "b_y"]
    assert block.keys("z") == []
    assert PerCategory(("a", "b"), ("x", "y")).keys() == ["a_x", "a_y", "b_x", "b_y"]
    ml = MetricList("f.yaml", values=("a", "b"), ci=("b",), per_category=(block,))
    assert ml.keys() == ["a", "b", "invalid_rate", "parse_disagreement", "truncated_rate", "b_ci_low", "b_ci_high"]
    second = MetricList("g.yaml", values=("c",), diagnostics=("truncated_rate",))
    spec = Benchmark(name="toy", title="Toy", package="toy", families=("b", "a"), metric_lists=(ml, second))
    assert spec.headline == ("b", "a", "c", "invalid_rate", "parse_disagreement", "truncated_rate")
    explicit = Benchmark(name="toy", title="Toy", package="toy", headline=("a",), metric_lists=(ml,))
    assert explicit.headline == ("a",)
    with pytest.raises(ValueError, match=r"families \['z'\]"):
        Benchmark(name="toy", title="Toy", package="toy", families=("a", "z"), metric_lists=(ml,))
