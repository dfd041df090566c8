"""What a benchmark declares (``api/spec.py``): metric lists and their keys, the headline, declared roles, slugs."""

from __future__ import annotations

import pytest

from temporal_tasks.api import contracts
from temporal_tasks.api.registry import get
from temporal_tasks.api.spec import STABILITY, Benchmark, Difference, Metric, MetricList, PerCategory, slug
from tests.helpers.payloads import toy_spec


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


def test_slug():
    assert slug("Fine-Grained_Actions") == "fine_grained_actions"
    assert slug("  Structural Event Logic ") == "structural_event_logic"
    assert slug("Something-V2 (x)") == "something_v2_x"


# Found by the type check (mypy): a code path no test reached, now a clear error instead of a crash.
def test_a_benchmark_package_without_init_is_a_clear_error_at_registration(tmp_path, monkeypatch):
    (tmp_path / "typing_bugs_namespace_bench").mkdir()  # no __init__.py: a namespace package
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = Benchmark(name="nsbench", title="NS", package="typing_bugs_namespace_bench", references="refs.json")
    with pytest.raises(ValueError, match=r"nsbench: package 'typing_bugs_namespace_bench' has no __init__\.py"):
        contracts.check_hooks(spec)


def test_a_hook_a_benchmark_does_not_declare_is_a_clear_error():
    assert get("timeblind").hook("prebuild") is None
    with pytest.raises(ValueError, match="timeblind: declares no prebuild hook"):
        get("timeblind").required_hook("prebuild")
    assert callable(get("vinoground").required_hook("prebuild"))
