"""The report's arrangement (``tools/report/sections.py``): sections in registry order then unknown tasks, each
task's headline, category families and other metrics, a series per run and per paper row."""

from __future__ import annotations

from pathlib import Path

from temporal_tasks.tools.report.references import Reference
from temporal_tasks.tools.report.results import RunResults, Value
from temporal_tasks.tools.report.sections import build_views


def _run(label: str, results: dict[str, dict[str, float]], limit=None) -> RunResults:
    values = {task: {m: Value(v) for m, v in metrics.items()} for task, metrics in results.items()}
    return RunResults(Path(f"/runs/{label}.json"), label, "m", "", "2026-01-01", limit, {}, values)


def _ref(model: str, metrics: dict[str, float], setting: str = "s", tasks=("timeblind_iacc",)) -> Reference:
    return Reference("TimeBlind", model, setting, tuple(tasks), metrics={m: Value(v) for m, v in metrics.items()})


TIMEBLIND = {"question_acc": 60.0, "instance_acc_direction": 20.0, "zeta": 1.0, "instance_acc": 30.0,
             "instance_acc_speed": 40.0, "alpha": 2.0}  # fmt: skip


def test_sections_in_registry_order_then_unknown_tasks():
    runs = [_run("a", {"zz_unknown": {"x": 1.0}, "timeblind_iacc": TIMEBLIND, "vinoground_text": {"text": 50.0}})]
    views = build_views(runs, [])
    assert [v.spec.name for v in views] == ["TimeBlind", "Vinoground", "zz_unknown"]
    unknown = views[2]
    assert unknown.spec.headline == ("x",) and unknown.tasks[0].headline == ["x"]  # every metric a headline one


def test_a_task_view_sorts_its_metrics():
    (view,) = build_views([_run("a", {"timeblind_iacc": TIMEBLIND})], [])
    (tv,) = view.tasks
    assert tv.task == "timeblind_iacc"
    assert tv.headline == ["instance_acc", "question_acc"]  # the spec's order, only those reported
    assert tv.families == {"instance_acc": ["speed", "direction"]}  # the spec's category order
    assert tv.other == ["alpha", "zeta"]  # neither headline nor category: still shown, sorted
    assert [(s.label, s.legend, s.is_reference) for s in tv.series] == [("a", "a", False)]
    assert tv.series[0].values["instance_acc"] == Value(30.0) and tv.series[0].source == "/runs/a.json"


def test_a_partial_run_says_so_in_its_legend():
    (view,) = build_views([_run("a", {"timeblind_iacc": TIMEBLIND}), _run("b", {"timeblind_iacc": {}}, limit=8)], [])
    assert [s.legend for s in view.tasks[0].series] == ["a", "b (partial)"]


def test_paper_rows_show_only_the_metrics_the_runs_report():
    refs = [
        _ref("Chance", {"instance_acc": 6.25, "video_acc": 25.0}),
        _ref("Other task", {"instance_acc": 1.0}, tasks=("timeblind_iacc_blind",)),
        _ref("Nothing shared", {"video_acc": 10.0}),
    ]
    (view,) = build_views([_run("a", {"timeblind_iacc": TIMEBLIND})], refs)
    paper = [s for s in view.tasks[0].series if s.is_reference]
    assert [(s.label, s.legend, s.source) for s in paper] == [("Chance (paper)", "paper: Chance", "paper")]
    assert paper[0].values == {"instance_acc": Value(6.25)} and paper[0].ref is refs[0]
    assert view.references == [refs[0]]  # the section lists only the entries it shows


def test_two_paper_rows_of_one_model_are_told_apart_by_their_setting():
    refs = [_ref("Human", {"instance_acc": 90.0}, "experts"), _ref("Human", {"instance_acc": 80.0}, "crowd")]
    (view,) = build_views([_run("a", {"timeblind_iacc": TIMEBLIND})], refs)
    paper = [s for s in view.tasks[0].series if s.is_reference]
    assert [(s.label, s.legend) for s in paper] == [
        ("Human, experts (paper)", "paper: Human, experts"), ("Human, crowd (paper)", "paper: Human, crowd"),
    ]  # fmt: skip


def test_no_runs_no_sections():
    assert build_views([], [_ref("Chance", {"instance_acc": 6.25})]) == []
