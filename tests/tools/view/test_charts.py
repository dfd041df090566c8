"""The viewer's inline SVG charts (``tools/view/charts.py``): one bar per category, its CI whisker, values clipped
to 0-100 on the axis, text escaped; the score against N, one point per N on a log2 axis with its whisker."""

from __future__ import annotations

import re

from temporal_tasks.tools.view.charts import bar_chart, category_charts, series_chart


def _bars(svg: str) -> dict[str, str]:
    return dict(re.findall(r'<g data-category="([^"]*)" data-value="([^"]*)">', svg))


def test_one_bar_per_row_with_its_width_and_whisker():
    svg = bar_chart("binary_acc", [["speed", 50.0, 40.0, 60.0], ["force", 25.0, None, None]])
    assert svg.startswith('<svg class="chart" width="650" height="60" ') and svg.endswith("</svg>")  # 2 rows x 18 + 24
    assert _bars(svg) == {"speed": "50.0", "force": "25.0"}
    # the bar area starts at x=190 and is 300 px for 100%: 50% -> 150 px, 25% -> 75 px
    assert re.findall(r'<rect x="190" y="\d+" width="([\d.]+)"', svg) == ["150.0", "75.0"]
    # the CI [40, 60] spans x = 190 + 120 .. 190 + 180; no whisker without a CI
    assert '<line x1="310.0" y1="29.0" x2="370.0" y2="29.0" class="ci"/>' in svg
    assert svg.count('class="ci"') == 3  # one whisker line and its two caps
    assert ">50.0 [40.0, 60.0]</text>" in svg and ">25.0</text>" in svg
    assert ">binary_acc by category (95% CI)</text>" in svg


def test_missing_values_and_out_of_range_values():
    svg = bar_chart("mba", [["none", None, None, None], ["over", 120.0, 90.0, 130.0], ["under", -5.0, None, None]])
    assert _bars(svg) == {"none": "n/a", "over": "120.0", "under": "-5.0"}
    assert re.findall(r'<rect x="190" y="\d+" width="([\d.]+)"', svg) == ["300.0", "0.0"]  # no bar for "none"
    assert '<line x1="460.0" y1="47.0" x2="490.0" y2="47.0" class="ci"/>' in svg  # 130 drawn at 100


def test_text_is_escaped():
    svg = bar_chart('a"<b>', [["<cat>", 1.0, None, None]])
    assert "<cat>" not in svg and "&lt;cat&gt;" in svg and 'data-family="a&quot;&lt;b&gt;"' in svg


def test_category_charts_skip_families_without_rows():
    charts = category_charts({"binary_acc": [["speed", 10.0, None, None]], "mba": []})
    assert len(charts) == 1 and 'data-family="binary_acc"' in charts[0]
    assert category_charts({}) == []


def _point(n, value, low, high):
    return {"n": n, "value": value, "ci_low": low, "ci_high": high}


def test_series_chart_points_on_a_log2_axis_with_whiskers():
    svg = series_chart("t<1>", "instance_acc", [_point(4, 25.0, 0.0, 50.0), _point(8, 50.0, None, None),
                                                _point(16, 100.0, 75.0, 100.0)])  # fmt: skip
    assert svg.startswith('<svg class="chart frames-chart"') and svg.endswith("</svg>") and "t&lt;1&gt;" in svg
    got = re.findall(r'data-n="(\d+)" data-value="([^"]+)" data-ci-low="([^"]+)" data-ci-high="([^"]+)"', svg)
    assert got == [("4", "25.00", "0.00", "50.00"), ("8", "50.00", "n/a", "n/a"), ("16", "100.00", "75.00", "100.00")]
    # x: 80 + 320 * (log2 N - 2) / 2, so N=8 sits midway; y: 24 + 180 * (1 - v / 100)
    assert re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)"', svg) == [("80.0", "159.0"), ("240.0", "114.0"),
                                                                       ("400.0", "24.0")]  # fmt: skip
    assert '<line x1="80.0" y1="204.0" x2="80.0" y2="114.0" class="ci"/>' in svg  # N=4: CI [0, 50]
    assert svg.count('class="ci"') == 6  # two whiskers and their caps; none for N=8
    assert '<polyline points="80.0,159.0 240.0,114.0 400.0,24.0" class="series"/>' in svg


def test_series_chart_missing_value_and_one_n():
    svg = series_chart("t", "k", [_point(8, None, None, None), _point(8, 10.0, 5.0, 15.0)])
    assert svg.count("<circle") == 1 and "<polyline" not in svg and 'data-value="n/a"' in svg
    assert '<circle cx="240.0"' in svg  # one N: the middle of the axis


def test_every_label_fits_inside_its_chart_in_the_browser(tmp_path):
    """Drawn with the viewer's own stylesheet in headless Chromium: the widest values ("100.0 [100.0, 100.0]" on a
    bar, 100.0 at the largest N) and a long category name stay inside their charts (both were cut off once)."""
    from importlib.resources import files

    from tests.helpers.browser import chart_text_overflow

    css = files("temporal_tasks.tools.view").joinpath("viewer.css").read_text(encoding="utf-8")
    bars = bar_chart("instance_acc", [["structural_event_logic", 100.0, 100.0, 100.0], ["x", 0.0, 0.0, 100.0]])
    points = [{"n": n, "value": v, "ci_low": v, "ci_high": v} for n, v in ((1, 0.0), (8, 50.0), (64, 100.0))]
    series = series_chart("vinoground_group_shuffled", "group_score", points)
    page = tmp_path / "charts.html"
    page.write_text(f"<!doctype html><html><head><style>{css}</style></head><body>{bars}{series}</body></html>")
    charts, over = chart_text_overflow(page, tmp=tmp_path / "chromium")
    assert charts == 2 and over == []
