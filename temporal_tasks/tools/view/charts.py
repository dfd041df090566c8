"""Inline SVG charts (no script, no external resource): per-category bars with their 95% CIs, and a score against
the frame count N with its CI whiskers."""

from __future__ import annotations

import math
from html import escape

ROW = 18  # pixels per bar
LABEL_W = 190
BAR_W = 300
VALUE_W = 160  # "100.0 [100.0, 100.0]" fits (tests/tools/view/test_charts.py, in Chromium)


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


PLOT_X = 60  # left margin of the score-against-N plot (the y axis labels)
PLOT_W = 360
PLOT_TOP = 24
PLOT_H = 180


def _y(value: float) -> float:
    return PLOT_TOP + PLOT_H * (1.0 - max(0.0, min(100.0, value)) / 100.0)


def _two(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.2f}"


def _n_positions(ns: list[int]) -> list[float]:
    # N on a log2 axis, as the PNG of ``timeorder --out`` draws it
    logs = [math.log2(n) for n in ns]
    low, high = min(logs), max(logs)
    if high == low:
        return [PLOT_X + PLOT_W / 2 for _ in ns]
    return [PLOT_X + 20 + (PLOT_W - 40) * (x - low) / (high - low) for x in logs]


def series_chart(title: str, key: str, points: list[dict]) -> str:
    """Score against N: one point per ``{"n", "value", "ci_low", "ci_high"}`` (percent) with its CI whisker, joined
    by a line. Each point's ``<g>`` carries ``data-n``, ``data-value``, ``data-ci-low`` and ``data-ci-high``."""
    width, height = PLOT_X + PLOT_W + 20, PLOT_TOP + PLOT_H + 40
    parts = [
        f'<svg class="chart frames-chart" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" data-key="{escape(key)}">',
        f'<text x="0" y="12" class="chart-title">{escape(title)}: {escape(key)} against N (95% CI)</text>',
    ]
    for tick in (0, 25, 50, 75, 100):
        y = _y(tick)
        parts.append(f'<line x1="{PLOT_X}" y1="{y:.1f}" x2="{PLOT_X + PLOT_W}" y2="{y:.1f}" class="tick"/>')
        parts.append(f'<text x="{PLOT_X - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}</text>')
    xs = _n_positions([int(p["n"]) for p in points])
    line = [f"{x:.1f},{_y(p['value']):.1f}" for x, p in zip(xs, points, strict=True) if p["value"] is not None]
    if len(line) > 1:
        parts.append(f'<polyline points="{" ".join(line)}" class="series"/>')
    base = PLOT_TOP + PLOT_H
    for x, p in zip(xs, points, strict=True):
        value, low, high = p["value"], p["ci_low"], p["ci_high"]
        parts.append(
            f'<g class="point" data-n="{int(p["n"])}" data-value="{_two(value)}" data-ci-low="{_two(low)}" '
            f'data-ci-high="{_two(high)}">'
        )
        parts.append(f'<text x="{x:.1f}" y="{base + 16}" text-anchor="middle">{int(p["n"])}</text>')
        if low is not None and high is not None:
            y1, y2 = _y(low), _y(high)
            parts.append(f'<line x1="{x:.1f}" y1="{y1:.1f}" x2="{x:.1f}" y2="{y2:.1f}" class="ci"/>')
            for y in (y1, y2):
                parts.append(f'<line x1="{x - 4:.1f}" y1="{y:.1f}" x2="{x + 4:.1f}" y2="{y:.1f}" class="ci"/>')
        if value is not None:
            parts.append(f'<circle cx="{x:.1f}" cy="{_y(value):.1f}" r="3.5" class="dot"/>')
            parts.append(f'<text x="{x + 6:.1f}" y="{_y(value) - 6:.1f}">{value:.1f}</text>')
        parts.append("</g>")
    parts.append(
        f'<text x="{PLOT_X + PLOT_W / 2}" y="{base + 34}" text-anchor="middle">frames N (from each run\'s '
        "provenance)</text></svg>"
    )
    return "".join(parts)
