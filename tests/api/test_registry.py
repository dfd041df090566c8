"""The benchmark registry (``api/registry.py``): every benchmark from the entry-point group, ours first; a name or
a task looked up; and what stops registration (an entry point that is no spec, a name declared twice, a hook that
does not fit its contract), each a clear error.

The failing registrations read stand-in entry points: ``registered.__wrapped__`` runs the lookup again without the
cache, so the registry of the session is left as it is."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from temporal_tasks.api import registry
from temporal_tasks.api.registry import DISTRIBUTION, ENTRY_POINT_GROUP, UnknownBenchmark, get, names, of_task
from temporal_tasks.api.spec import Benchmark

OURS = ["temporalbench", "timeblind"]  # two of ours (that ours come first: tests/architecture/test_layout.py)


def _entry_point(name: str, spec: object, dist: str = DISTRIBUTION) -> SimpleNamespace:
    """A stand-in for an ``importlib.metadata.EntryPoint`` of the group, loading ``spec``."""
    return SimpleNamespace(name=name, value=f"somewhere:{name}", dist=SimpleNamespace(name=dist), load=lambda: spec)


def _register(monkeypatch, *points: SimpleNamespace) -> dict[str, Benchmark]:
    def entry_points(group: str) -> list:
        assert group == ENTRY_POINT_GROUP
        return list(points)

    monkeypatch.setattr(registry, "entry_points", entry_points)
    return registry.registered.__wrapped__()


def test_an_unknown_name_lists_the_known_ones():
    with pytest.raises(UnknownBenchmark, match="unknown benchmark 'nosuch'; known: " + ", ".join(names())):
        get("nosuch")


@pytest.mark.parametrize(
    ("task", "owner"),
    [("timeblind_iacc", "timeblind"), ("velociti_strictvle_prob_subset", "velociti"), ("vinoground", "vinoground"),
     ("temporalbench_mba", "temporalbench"), ("timeblindness", None), ("mystery_task", None)],
)  # fmt: skip
def test_a_task_belongs_to_the_benchmark_whose_name_prefixes_it(task, owner):
    found = of_task(task)
    assert (found.name if found else None) == owner


def test_the_longest_matching_name_owns_a_task(monkeypatch):
    short, long = Benchmark(name="toy", title="Toy", package="toy"), Benchmark(name="toy_v2", title="V2", package="toy")
    monkeypatch.setattr(registry, "registered", lambda: {"toy": short, "toy_v2": long})
    assert of_task("toy_v2_pairs") is long and of_task("toy_pairs") is short


def test_others_follow_ours_by_name(monkeypatch):
    ours = [_entry_point(n, get(n)) for n in OURS]
    zed, alpha = (Benchmark(name=n, title=n, package="elsewhere") for n in ("zed", "alpha"))
    found = _register(monkeypatch, _entry_point("zed", zed, "pkg"), *ours, _entry_point("alpha", alpha, "pkg"))
    assert list(found) == [*OURS, "alpha", "zed"]


def test_no_entry_point_of_ours_says_to_install_the_package(monkeypatch):
    with pytest.raises(RuntimeError, match=r"pip install -e \."):
        _register(monkeypatch)


def test_an_entry_point_that_is_no_spec_is_named(monkeypatch):
    with pytest.raises(TypeError, match="entry point broken = somewhere:broken .* is a dict, not a temporal_tasks"):
        _register(monkeypatch, _entry_point("timeblind", get("timeblind")), _entry_point("broken", {}, "pkg"))


def test_a_name_declared_twice_is_named(monkeypatch):
    again = _entry_point("timeblind_again", get("timeblind"), "pkg")
    with pytest.raises(ValueError, match="declares the benchmark 'timeblind' again: rename it"):
        _register(monkeypatch, _entry_point("timeblind", get("timeblind")), again)


def test_registration_checks_every_hook_against_its_contract(monkeypatch):
    """Why no test repeats the check for each registered benchmark: registering runs it (``check_hooks``)."""
    misfit = Benchmark(name="toy", title="Toy", package="toy", export="temporal_tasks.benchmarks.timeblind.view:shape")
    with pytest.raises(ValueError, match="toy: hook export .* does not take the 2 argument"):
        _register(monkeypatch, _entry_point("timeblind", get("timeblind")), _entry_point("toy", misfit, "pkg"))
