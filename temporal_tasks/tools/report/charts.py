"""The report's PNG bar charts (matplotlib, optional): headline metrics per benchmark, categories per family."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from temporal_tasks.tools.report.layout import NOT_CHARTED, metric_label
from temporal_tasks.tools.report.results import Value, finite
from temporal_tasks.tools.report.sections import BenchmarkView, Series, TaskView


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "x"


_RUN_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
_REF_GREYS = ("#d9d9d9", "#bdbdbd", "#a6a6a6", "#8c8c8c", "#737373", "#e8e8e8", "#595959")
_REF_HATCHES = ("//", "\\\\", "xx", "..", "--", "++", "oo", "||")


def _styles(series: Iterable[Series]) -> dict[str, dict[str, Any]]:
    styles: dict[str, dict[str, Any]] = {}
    runs = refs = 0
    for s in series:
        if s.legend in styles:
            continue
        if s.is_reference:
            styles[s.legend] = {
                "facecolor": _REF_GREYS[refs % len(_REF_GREYS)],
                "hatch": _REF_HATCHES[refs % len(_REF_HATCHES)],
                "edgecolor": "#404040",
            }
            refs += 1
        else:
            styles[s.legend] = {"facecolor": _RUN_COLORS[runs % len(_RUN_COLORS)], "edgecolor": "black"}
            runs += 1
    return styles


_Group = tuple[str, list[tuple[Series, Value]]]  # x label, bars
_MAX_BARS_PER_ROW = 44  # wider rows become unreadable once the PNG is scaled to a page


def _wrap(groups: list[_Group]) -> list[list[_Group]]:
    """Split groups into balanced rows of at most about ``_MAX_BARS_PER_ROW`` bars (a group is never split)."""
    total = sum(len(bars) for _, bars in groups)
    n_rows = max(1, math.ceil(total / _MAX_BARS_PER_ROW))
    target = math.ceil(total / n_rows)  # even rows, so the last one is not a lone leftover group
    rows: list[list[_Group]] = [[]]
    count = 0
    for group in groups:
        if rows[-1] and count + len(group[1]) > target and len(rows) < n_rows:
            rows.append([])
            count = 0
        rows[-1].append(group)
        count += len(group[1])
    return rows


def _bar_chart(
    panels: list[tuple[str | None, list[_Group]]],
    styles: dict[str, dict[str, Any]],
    title: str,
    ylabel: str,
    path: Path,
    rotate: int,
) -> Path | None:
    """Grouped bars, one subplot row per panel (long panels wrap); paper bars grey and hatched; CIs as error bars."""
    import matplotlib

    matplotlib.use("Agg")  # files only, never a display
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    rows: list[tuple[str | None, list[_Group]]] = []
    for name, groups in panels:
        groups = [(g, bars) for g, bars in groups if bars]
        for i, chunk in enumerate(_wrap(groups) if groups else []):
            rows.append((name if i == 0 else None, chunk))
    if not rows:
        return None
    all_bars = [v for _, groups in rows for _, bars in groups for _, v in bars]
    values = [v.value for v in all_bars if finite(v.value)]
    values += [b for v in all_bars for b in v.ci() or ()]
    lo, hi = min([0.0, *values]), max([100.0, *values])
    lo = lo - 5 if lo < 0 else 0.0  # negative metrics (MC bias) need room below zero
    # The same bar width and x range in every row, so rows line up and compare.
    per_group = max(len(bars) for _, groups in rows for _, bars in groups)
    width = 0.8 / per_group
    n_groups = max(len(groups) for _, groups in rows)
    n_bars = max(sum(len(b) for _, b in groups) for _, groups in rows)
    fig_w = min(20.0, max(6.5, 0.26 * n_bars + 0.35 * n_groups + 2.0))
    row_h = 3.9 if rotate else 3.3
    fig, axes = plt.subplots(
        len(rows), 1, figsize=(fig_w + 2.6, row_h * len(rows) + 0.6), squeeze=False, layout="constrained"
    )  # constrained layout makes room for the outside legend without a second (bbox_inches="tight") draw
    label_values = n_bars <= 60
    for ax, (name, groups) in zip(axes[:, 0], rows, strict=True):
        for gi, (_g, bars) in enumerate(groups):
            start = gi - width * (len(bars) - 1) / 2
            for bi, (s, v) in enumerate(bars):
                x = start + bi * width
                if not finite(v.value):
                    ax.text(x, lo + 1, "NaN", rotation=90, ha="center", va="bottom", fontsize=7, color="#b00000")
                    continue
                ax.bar(x, v.value, width * 0.92, linewidth=0.6, **styles[s.legend])
                ci = v.ci()
                if ci is not None:
                    ax.errorbar(
                        x, v.value, yerr=[[v.value - ci[0]], [ci[1] - v.value]],
                        fmt="none", ecolor="black", elinewidth=0.9, capsize=2.5,
                    )  # fmt: skip
                if label_values:
                    top = max(ci[1] if ci is not None else v.value, 0.0)
                    ax.text(x, top + 0.8, f"{v.value:.1f}", rotation=90, ha="center", va="bottom", fontsize=6.5)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(
            [g for g, _ in groups], rotation=rotate, ha="right" if rotate else "center", rotation_mode="anchor"
        )
        ax.tick_params(axis="x", labelsize=9)
        ax.set_xlim(-0.6, n_groups - 0.4)
        # Headroom above 100 for the value labels; the ticks stop at the data range.
        ax.set_ylim(lo, hi + 0.1 * (hi - lo))
        ax.set_yticks([t for t in ax.get_yticks() if lo <= t <= hi])
        ax.set_ylabel(ylabel)
        ax.yaxis.grid(True, linewidth=0.4, alpha=0.6)
        ax.set_axisbelow(True)
        if lo < 0:
            ax.axhline(0, color="black", linewidth=0.6)
        if name:
            ax.set_title(name, fontsize=10, loc="left")
    fig.suptitle(title, fontsize=12)
    handles = [Patch(label=legend, linewidth=0.6, **style) for legend, style in styles.items()]
    fig.legend(handles=handles, loc="outside right upper", fontsize=8, frameon=False)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _view_styles(view: BenchmarkView) -> dict[str, dict[str, Any]]:
    # One style per legend entry for the whole benchmark, so a model looks the same in every chart.
    return _styles(s for tv in view.tasks for s in tv.series)


def _used(styles: dict[str, dict[str, Any]], panels: list[tuple[str | None, list[_Group]]]) -> dict:
    shown = {s.legend for _, groups in panels for _, bars in groups for s, _ in bars}
    return {k: v for k, v in styles.items() if k in shown}


def headline_chart(view: BenchmarkView, out: Path) -> Path | None:
    """``<section>_headline.png``: the charted headline metrics of the section's tasks (None: nothing to chart)."""
    panels: list[tuple[str | None, list[_Group]]] = []
    for tv in view.tasks:
        groups = [
            (metric_label(m), [(s, s.values[m]) for s in tv.series if m in s.values])
            for m in tv.headline
            if m not in NOT_CHARTED
        ]
        panels.append((tv.task, groups))
    path = out / f"{_slug(view.spec.name)}_headline.png"
    title = f"{view.spec.name}: headline metrics (%)"
    return _bar_chart(panels, _used(_view_styles(view), panels), title, "%", path, rotate=0)


def category_chart(view: BenchmarkView, tv: TaskView, family: str, out: Path) -> Path | None:
    """``<task>_<family>_by_category.png``: one family's categories of one task (None: nothing to chart)."""
    groups = []
    for cat in tv.families[family]:
        key = f"{family}_{cat}"
        groups.append((cat, [(s, s.values[key]) for s in tv.series if key in s.values]))
    panels: list[tuple[str | None, list[_Group]]] = [(None, groups)]
    path = out / f"{_slug(tv.task)}_{_slug(family)}_by_category.png"
    title = f"{view.spec.name} ({tv.task}): {metric_label(family)} by category"
    return _bar_chart(panels, _used(_view_styles(view), panels), title, f"{metric_label(family)} (%)", path, rotate=35)


def have_matplotlib() -> bool:
    """Whether matplotlib is importable (the charts are optional)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True
