"""Inline SVG bar charts of per-category values with their 95% CIs (no script, no external resource)."""

from __future__ import annotations

from html import escape

ROW = 18  # pixels per bar
LABEL_W = 190
BAR_W = 300
VALUE_W = 110


def _x(value: float) -> float:
    return LABEL_W + BAR_W * max(0.0, min(100.0, value)) / 100.0


def bar_chart(family: str, rows: list[list]) -> str:
    """One horizontal bar per ``[category, value, ci_low, ci_high]`` row (percent, 0-100), CI as a whisker.

    Each bar's ``<g>`` carries ``data-category`` and ``data-value`` so a test (or a reader) can find it.
    """
    height = ROW * len(rows) + 24
    width = LABEL_W + BAR_W + VALUE_W
    parts = [
        f'<svg class="chart" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" data-family="{escape(family)}">',
        f'<text x="0" y="12" class="chart-title">{escape(family)} by category (95% CI)</text>',
    ]
    for tick in (0, 50, 100):
        x = _x(tick)
        parts.append(f'<line x1="{x:.1f}" y1="16" x2="{x:.1f}" y2="{height}" class="tick"/>')
    for i, (category, value, low, high) in enumerate(rows):
        y = 20 + i * ROW
        shown = "n/a" if value is None else f"{value:.1f}"
        parts.append(f'<g data-category="{escape(str(category))}" data-value="{shown}">')
        parts.append(f'<text x="{LABEL_W - 6}" y="{y + 12}" text-anchor="end">{escape(str(category))}</text>')
        if value is not None:
            parts.append(
                f'<rect x="{LABEL_W}" y="{y + 3}" width="{_x(value) - LABEL_W:.1f}" height="{ROW - 6}" class="bar"/>'
            )
        if low is not None and high is not None:
            x1, x2, mid = _x(low), _x(high), y + ROW / 2
            parts.append(f'<line x1="{x1:.1f}" y1="{mid}" x2="{x2:.1f}" y2="{mid}" class="ci"/>')
            for x in (x1, x2):
                parts.append(f'<line x1="{x:.1f}" y1="{mid - 4}" x2="{x:.1f}" y2="{mid + 4}" class="ci"/>')
        ci = "" if low is None or high is None else f" [{low:.1f}, {high:.1f}]"
        parts.append(f'<text x="{LABEL_W + BAR_W + 6}" y="{y + 12}">{shown}{ci}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def category_charts(families: dict[str, list[list]]) -> list[str]:
    """One chart per metric family that has category values."""
    return [bar_chart(family, rows) for family, rows in families.items() if rows]
