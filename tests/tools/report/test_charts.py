"""The report's PNG charts (``tools/report/charts.py``): the files written (no pixel checks), None when there is
nothing to chart, rows wrapped evenly, one style per legend entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from temporal_tasks.tools.report.charts import _styles, _wrap, category_chart, have_matplotlib, headline_chart
from temporal_tasks.tools.report.results import RunResults, Value
from temporal_tasks.tools.report.sections import Series, build_views

pytestmark = pytest.mark.skipif(not have_matplotlib(), reason="matplotlib is optional")
PNG = b"\x89PNG\r\n\x1a\n"


def _view(metrics: dict[str, Value]):
    run = RunResults(Path("/runs/a.json"), "model a", "m", "", "", None, {}, {"timeblind_iacc": metrics})
    (view,) = build_views([run], [])
    return view


def test_headline_and_category_charts_are_pngs(tmp_path):
    view = _view({"instance_acc": Value(30.0, 20.0, 40.0), "question_acc": Value(float("nan")),
                  "instance_acc_speed": Value(40.0), "instance_acc_direction": Value(-3.0)})  # fmt: skip
    path = headline_chart(view, tmp_path)
    assert path == tmp_path / "timeblind_headline.png" and path.read_bytes().startswith(PNG)
    path = category_chart(view, view.tasks[0], "instance_acc", tmp_path)
    assert path == tmp_path / "timeblind_iacc_instance_acc_by_category.png" and path.read_bytes().startswith(PNG)


def test_nothing_to_chart_writes_nothing(tmp_path):
    view = _view({"invalid_rate": Value(3.0), "parse_disagreement": Value(1.0)})  # diagnostics are not charted
    assert headline_chart(view, tmp_path) is None
    assert list(tmp_path.iterdir()) == []


def test_rows_wrap_evenly_and_never_split_a_group():
    groups = [(f"g{i}", [(None, Value(1.0))] * 10) for i in range(10)]  # 100 bars: 3 rows of at most 34
    rows = _wrap(groups)  # type: ignore[arg-type]
    assert [len(r) for r in rows] == [3, 3, 4]
    assert [g for row in rows for g, _ in row] == [f"g{i}" for i in range(10)]
    assert _wrap([("one", [(None, Value(1.0))] * 60)]) == [[("one", [(None, Value(1.0))] * 60)]]  # type: ignore[list-item]


def test_one_style_per_legend_runs_in_colour_papers_grey_and_hatched():
    def s(legend: str, ref: bool) -> Series:
        return Series(legend, "", ref, {}, legend)

    styles = _styles([s("a", False), s("paper: x", True), s("a", False), s("b", False)])
    assert list(styles) == ["a", "paper: x", "b"]
    assert styles["a"]["facecolor"] != styles["b"]["facecolor"] and "hatch" not in styles["a"]
    assert styles["paper: x"]["hatch"] and styles["paper: x"]["facecolor"].startswith("#")
