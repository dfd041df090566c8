"""The viewer's inline SVG charts (``tools/view/charts.py``): one bar per category, its CI whisker, values clipped
to 0-100 on the axis, text escaped."""

from __future__ import annotations

import re

from temporal_tasks.tools.view.charts import bar_chart, category_charts


def _bars(svg: str) -> dict[str, str]:
    return dict(re.findall(r'<g data-category="([^"]*)" data-value="([^"]*)">', svg))


def test_one_bar_per_row_with_its_width_and_whisker():
    svg = bar_chart("binary_acc", [["speed", 50.0, 40.0, 60.0], ["force", 25.0, None, None]])
    assert svg.startswith('<svg class="chart" width="600" height="60" ') and svg.endswith("</svg>")  # 2 rows x 18 + 24
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
