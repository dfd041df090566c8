"""``temporal-tasks report``: Markdown, CSV and PNG bar charts from lmms-eval results JSONs.

Several runs (models) are shown side by side, next to published numbers from ``reference_numbers.json``
("(paper)" rows, grey hatched bars). Everything is driven by :data:`BENCHMARKS`, one entry per benchmark;
tasks and metrics it does not know are still reported, generically.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from temporal_tasks.scoring import STABILITY

__all__ = [
    "BENCHMARKS",
    "BenchmarkSpec",
    "Reference",
    "Run",
    "Value",
    "add_report_parser",
    "benchmark_of",
    "classify",
    "find_results",
    "fmt_value",
    "load_references",
    "load_run",
    "main_report",
    "model_label",
    "parse_task_metrics",
    "reference_path",
    "summary_table",
    "write_report",
]


@dataclass(frozen=True)
class BenchmarkSpec:
    """One benchmark: which tasks belong to it and how its metric keys are laid out."""

    name: str
    prefixes: tuple[str, ...]  # task names starting with one of these belong to the benchmark
    headline: tuple[str, ...]  # headline metric keys, in display order
    families: tuple[str, ...] = ()  # category metrics are ``<family>_<category>``
    categories: tuple[str, ...] = ()  # preferred category order; unknown categories follow, sorted
    tasks: tuple[str, ...] = ()  # preferred task order in the report; unknown tasks follow, sorted
    primary: tuple[str, ...] = ()  # the headline number of `summary`: the first of these a task reports
    # Shortcut analyses (temporal_tasks.shortcuts): (main task, blind, single frame, shuffled)
    shortcuts: tuple[str, ...] = ()


_TIMEBLIND_TAGS = (
    "fine_grained_actions", "state_transition", "event", "speed", "force", "magnitude", "direction", "duration",
    "repetition", "event_attribute", "temporal_relation", "causal_contingency", "cross_event_comparison",
    "structural_event_logic", "yes_no", "multiple_choice",
)  # fmt: skip
_TEMPORALBENCH_CATEGORIES = (
    "activitynet", "charades", "finegym", "movie_description", "oops", "coin", "egoexo4d",  # sources
    "action_order", "action_frequency", "action_type", "motion_magnitude", "motion_direction_orientation",
    "action_effector", "event_order", "others",  # negative-caption categories (short QA)
)  # fmt: skip
_VELOCITI_TESTS = (
    "control", "agent_random", "agent_bind", "coref", "action_adv", "action_manner", "action_bind", "chrono",
)  # fmt: skip

SHORTCUT_LABELS = ("video (main task)", "blind (no visual)", "single frame", "shuffled frames")


def _shortcut_tasks(main: str, blind: str | None = None) -> tuple[str, ...]:
    """(main, blind, single frame, shuffled) task names of a benchmark's shortcut analyses."""
    return (main, blind or f"{main}_blind", f"{main}_single_frame", f"{main}_shuffled")


# The registry: adding a benchmark is one entry here.
BENCHMARKS: tuple[BenchmarkSpec, ...] = (
    BenchmarkSpec(
        name="TimeBlind",
        prefixes=("timeblind",),
        headline=(
            "instance_acc",
            "question_acc",
            "video_acc",
            "trial_acc",
            "invalid_rate",
            "parse_disagreement",
            "truncated_rate",
        ),
        families=("instance_acc", "question_acc", "video_acc", "trial_acc"),
        categories=_TIMEBLIND_TAGS,
        tasks=("timeblind_iacc",),
        shortcuts=_shortcut_tasks("timeblind_iacc"),
    ),
    BenchmarkSpec(
        name="Vinoground",
        prefixes=("vinoground",),
        headline=("text_score", "video_score", "group_score", "invalid_rate", "parse_disagreement", "truncated_rate"),
        families=("text_score", "video_score", "group_score"),
        categories=("object", "action", "viewpoint", "interaction", "cyclical", "spatial", "contextual"),
        tasks=("vinoground_group", "vinoground_group_official", "vinoground_text", "vinoground_video"),
        primary=("group_score", "text_score", "video_score"),
        shortcuts=_shortcut_tasks("vinoground_group", blind="vinoground_text_blind"),
    ),
    BenchmarkSpec(
        name="TemporalBench",
        prefixes=("temporalbench",),
        headline=("mba", "binary_acc", "caption_sim", "invalid_rate", "parse_disagreement", "truncated_rate"),
        families=("mba", "binary_acc"),
        categories=_TEMPORALBENCH_CATEGORIES,
        tasks=("temporalbench_short_mba", "temporalbench_long_mba", "temporalbench_mba", "temporalbench_caption_sim"),
        shortcuts=_shortcut_tasks("temporalbench_short_mba"),
    ),
    BenchmarkSpec(
        name="VELOCITI",
        prefixes=("velociti",),
        headline=(
            "strict_vle",
            "classic_vle",
            "mc_both",
            "mc_a",
            "mc_b",
            "mc_bias",
            "invalid_rate",
            "parse_disagreement",
            "truncated_rate",
        ),
        families=("strict_vle", "classic_vle", "mc_both", "mc_a", "mc_b", "mc_bias"),
        categories=_VELOCITI_TESTS,
        tasks=(
            "velociti_strictvle_prob",
            "velociti_strictvle",
            "velociti_mc",
            "velociti_strictvle_prob_subset",
            "velociti_strictvle_subset",
            "velociti_mc_subset",
        ),
        shortcuts=_shortcut_tasks("velociti_strictvle"),
    ),
)

# Short names for chart axes; tables keep the result keys so they match the CSV and the JSON.
METRIC_LABELS = {
    "instance_acc": "I-Acc",
    "question_acc": "Q-Acc",
    "video_acc": "V-Acc",
    "trial_acc": "Acc",
    "text_score": "text score",
    "video_score": "video score",
    "group_score": "group score",
    "mba": "MBA",
    "binary_acc": "BA",
    "caption_sim": "caption similarity",
    "strict_vle": "StrictVLE",
    "classic_vle": "ClassicVLE",
    "mc_both": "MC A∧B",
    "mc_a": "MC A",
    "mc_b": "MC B",
    "mc_bias": "MC bias (B−A)",
    "invalid_rate": "invalid answers",
    "parse_disagreement": "robust vs official reading differ",
    "truncated_rate": "cut off while thinking",
}
# Diagnostics, not scores: in the tables, left out of the score charts.
NOT_CHARTED = frozenset({"invalid_rate", "parse_disagreement", "truncated_rate"})

_CI_SUFFIXES = ("_ci_low", "_ci_high")
# lmms-eval adds "<metric>_stderr" (and "_stderr_clt", "_stderr_clustered", ...) next to every metric.
_STDERR = re.compile(r"_stderr(_[a-z0-9]+)*$")


@dataclass(frozen=True)
class Value:
    """A metric value (percent) with its optional 95% CI."""

    value: float
    ci_low: float | None = None
    ci_high: float | None = None

    def has_ci(self) -> bool:
        """Whether both CI bounds are present and finite."""
        return _finite(self.ci_low) and _finite(self.ci_high)


@dataclass
class Run:
    """One lmms-eval results file."""

    path: Path
    label: str
    model: str
    model_args: str
    date: str
    limit: Any
    n_samples: dict[str, Any]
    results: dict[str, dict[str, Value]]  # task -> metric -> value
    provenance: dict[str, dict] = field(default_factory=dict)  # task -> provenance record (temporal_tasks.provenance)

    @property
    def partial(self) -> bool:
        """True when the run used ``--limit`` or scored fewer samples than the task has."""
        if self.limit is not None:
            return True
        for counts in self.n_samples.values():
            if not isinstance(counts, dict):
                continue
            effective, original = counts.get("effective"), counts.get("original")
            if _finite(effective) and _finite(original) and effective < original:
                return True
        return False


@dataclass
class Reference:
    """Published numbers of one model in one setting (merged over the tables that report it)."""

    benchmark: str
    model: str
    setting: str
    tasks: tuple[str, ...]
    display: str = ""  # the entry's optional "label", for models that appear in several settings
    metrics: dict[str, Value] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # metric -> "paper, table"
    papers: list[str] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """Row label in tables and legends (without the "(paper)" / "paper:" marker)."""
        return self.display or self.model


@dataclass
class _Series:
    label: str  # unique within a benchmark section
    source: str
    is_reference: bool
    values: dict[str, Value]
    legend: str
    ref: Reference | None = None


@dataclass
class _TaskView:
    task: str
    headline: list[str]
    families: dict[str, list[str]]  # family -> categories present in the runs
    other: list[str]  # metrics that fit neither: still shown
    series: list[_Series]


@dataclass
class _BenchmarkView:
    spec: BenchmarkSpec
    tasks: list[_TaskView]
    references: list[Reference]


# ---------------------------------------------------------------- loading


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _to_float(raw: Any) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int | float):
        return float(raw)
    if raw is None:
        return math.nan
    try:
        return float(str(raw))
    except ValueError:
        return None


def parse_task_metrics(entry: dict[str, Any]) -> dict[str, Value]:
    """``{"m,none": v, "m_ci_low,none": lo, ...}`` of one lmms-eval task entry -> ``{m: Value}``.

    stderr keys are skipped (lmms-eval writes "N/A" for ours; our CIs come as ``_ci_low``/``_ci_high``).
    A filter other than ``none`` stays visible in the metric name as ``m [filter]``.
    """
    raw: dict[tuple[str, str], float] = {}
    for key, val in entry.items():
        if key == "alias" or not isinstance(key, str):
            continue
        name, _, filt = key.partition(",")
        if _STDERR.search(name):
            continue
        number = _to_float(val)
        if number is None:
            from temporal_tasks.log import warn_once

            warn_once(f"report: non-numeric value {val!r} for {key!r} shown as NaN")
            number = math.nan
        raw[(name, filt or "none")] = number
    out: dict[str, Value] = {}
    for (name, filt), number in raw.items():
        if name.endswith(_CI_SUFFIXES):
            base = name[: -len("_ci_low")] if name.endswith("_ci_low") else name[: -len("_ci_high")]
            if (base, filt) in raw:
                continue  # attached to its metric below
            # A CI bound without its metric is kept as a plain metric rather than dropped.
        low = raw.get((f"{name}_ci_low", filt))
        high = raw.get((f"{name}_ci_high", filt))
        shown = name if filt == "none" else f"{name} [{filt}]"
        out[shown] = Value(number, low, high)
    return out


def _last_part(name: str) -> str:
    return name.rstrip("/").split("/")[-1]


def _model_arg(model_args: str, key: str) -> str | None:
    for part in model_args.split(","):
        k, sep, v = part.partition("=")
        if sep and k.strip() == key and v.strip():
            return v.strip()
    return None


def model_label(data: dict[str, Any], path: Path) -> str:
    """Short model name of a results file: ``model_name``, else ``pretrained=``, else the model type or file name."""
    cfg = data.get("config") or {}
    model_args = str(cfg.get("model_args") or "")
    for candidate in (data.get("model_name"), _model_arg(model_args, "pretrained")):
        if isinstance(candidate, str) and candidate.strip():
            return _last_part(candidate.strip())
    model = cfg.get("model")
    if isinstance(model, str) and model.strip():
        return model.strip()
    return path.stem


def load_run(path: str | Path) -> Run:
    """Read one lmms-eval ``*_results.json``."""
    from temporal_tasks.provenance import from_results

    path = Path(path)
    try:
        # json accepts the NaN that lmms-eval writes for undefined metrics.
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not a JSON file ({exc})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise ValueError(f"{path}: no 'results' object; expected an lmms-eval *_results.json")
    results = {}
    for task, entry in data["results"].items():
        if isinstance(entry, dict):
            metrics = parse_task_metrics(entry)
            if metrics:  # group headers without aggregates carry only an alias
                results[task] = metrics
    cfg = data.get("config") or {}
    return Run(
        path=path,
        label=model_label(data, path),
        model=str(cfg.get("model") or ""),
        model_args=str(cfg.get("model_args") or ""),
        date=str(data.get("date") or ""),
        limit=cfg.get("limit"),
        n_samples=data.get("n-samples") or {},
        results=results,
        provenance=from_results(data),
    )


def find_results(inputs: Iterable[str | Path], run: str | None = None, notes: list[str] | None = None) -> list[Path]:
    """Results files from paths: a file is one run; a folder contributes one run per folder below it that
    holds results (its newest complete run, see :func:`temporal_tasks.runs.runs_in_folders`), or the ``run``
    (``--run``) one. The choices made are appended to ``notes``."""
    from temporal_tasks.runs import runs_in_folders

    found: list[Path] = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            runs, chosen = runs_in_folders([p], run)
            hits = [r.results for r in runs if r.results is not None]
            if not hits:
                raise FileNotFoundError(f"no *results.json under {p}")
            found.extend(sorted(hits))
            if notes is not None:
                notes.extend(chosen)
        elif p.is_file():
            found.append(p)
        else:
            raise FileNotFoundError(f"results file not found: {p}")
    return found


def _disambiguate(runs: list[Run]) -> None:
    # Same model twice (e.g. two settings): add the run date, then the folder, then a counter.
    def dups() -> set[str]:
        labels = [r.label for r in runs]
        return {x for x in labels if labels.count(x) > 1}

    for extra in (lambda r: r.date or r.path.stem, lambda r: r.path.parent.name):
        clash = dups()
        for r in runs:
            if r.label in clash and extra(r):
                r.label = f"{r.label} ({extra(r)})"
    clash = dups()
    for label in clash:
        for i, r in enumerate([r for r in runs if r.label == label], start=1):
            r.label = f"{label} #{i}"


def reference_path() -> Path:
    """The ``reference_numbers.json`` shipped in the package."""
    return Path(str(resources.files("temporal_tasks") / "reference_numbers.json"))


def load_references(path: str | Path | None = None) -> list[Reference]:
    """Reference entries, merged per (benchmark, model, setting, tasks) across the tables that report them."""
    data = json.loads(Path(path or reference_path()).read_text(encoding="utf-8"))
    merged: dict[tuple, Reference] = {}
    for entry in data["entries"]:
        key = (entry["benchmark"], entry["model"], entry["setting"], tuple(entry["tasks"]), entry.get("label", ""))
        ref = merged.setdefault(key, Reference(*key))
        src = entry["source"]
        paper, table = (src.get("paper", ""), src.get("table", "")) if isinstance(src, dict) else (str(src), "")
        for item, seen in ((paper, ref.papers), (table, ref.tables)):
            if item and item not in seen:
                seen.append(item)
        raw = entry["metrics"]
        for metric, value in raw.items():
            if metric.endswith(_CI_SUFFIXES) and metric.rsplit("_ci_", 1)[0] in raw:
                continue
            ref.metrics[metric] = Value(float(value), raw.get(f"{metric}_ci_low"), raw.get(f"{metric}_ci_high"))
            ref.sources[metric] = ", ".join(x for x in (paper, table) if x)
        note = entry.get("note") or []
        for text in [note] if isinstance(note, str) else note:
            if text not in ref.notes:
                ref.notes.append(text)
    return list(merged.values())


# ---------------------------------------------------------------- layout


def benchmark_of(task: str) -> BenchmarkSpec | None:
    """The registry entry whose (longest) prefix the task name starts with."""
    best: tuple[int, BenchmarkSpec] | None = None
    for spec in BENCHMARKS:
        for prefix in spec.prefixes:
            if task.startswith(prefix) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), spec)
    return best[1] if best else None


def classify(spec: BenchmarkSpec, metric: str) -> tuple[str, str | None, str | None]:
    """``("headline", None, None)``, ``("category", family, category)`` or ``("other", None, None)``."""
    if metric in spec.headline:
        return "headline", None, None
    if metric.endswith(tuple(f"_{suffix}" for suffix in STABILITY)):
        return "other", None, None  # --repeats stability keys (instance_acc_repeat_sd), not categories
    for family in sorted(spec.families, key=len, reverse=True):
        if metric.startswith(family + "_") and len(metric) > len(family) + 1:
            return "category", family, metric[len(family) + 1 :]
    return "other", None, None


def _ordered(items: Iterable[str], preferred: Sequence[str]) -> list[str]:
    items = set(items)
    return [x for x in preferred if x in items] + sorted(items - set(preferred))


def _build_views(runs: list[Run], references: list[Reference]) -> list[_BenchmarkView]:
    by_bench: dict[str, tuple[BenchmarkSpec, dict[str, list[Run]]]] = {}
    for run in runs:
        for task in run.results:
            spec = benchmark_of(task)
            if spec is None:
                # Unknown task: its own section, every metric treated as a headline metric.
                metrics = sorted({m for r in runs for m in r.results.get(task, {})})
                spec = BenchmarkSpec(task, (task,), tuple(metrics))
            bench = by_bench.setdefault(spec.name, (spec, {}))
            bench[1].setdefault(task, [])
            if run not in bench[1][task]:
                bench[1][task].append(run)

    order = {s.name: i for i, s in enumerate(BENCHMARKS)}
    views = []
    for name in sorted(by_bench, key=lambda n: (order.get(n, len(order)), n)):
        spec, tasks = by_bench[name]
        refs = [r for r in references if r.benchmark == spec.name]
        task_views = []
        used_refs: list[Reference] = []
        for task in _ordered(tasks, spec.tasks):
            task_runs = tasks[task]
            metrics = {m for r in task_runs for m in r.results[task]}
            headline = [m for m in spec.headline if m in metrics]
            fams: dict[str, set[str]] = {}
            other = []
            for m in metrics:
                kind, fam, cat = classify(spec, m)
                if kind == "category":
                    fams.setdefault(fam, set()).add(cat)
                elif kind == "other":
                    other.append(m)
            families = {f: _ordered(fams[f], spec.categories) for f in spec.families if f in fams}
            series = [
                _Series(r.label, str(r.path), False, r.results[task], r.label + (" (partial)" if r.partial else ""))
                for r in task_runs
            ]
            for ref in refs:
                if task not in ref.tasks:
                    continue
                shown = {m: v for m, v in ref.metrics.items() if m in metrics}
                if shown:
                    series.append(_Series(f"{ref.label} (paper)", "paper", True, shown, f"paper: {ref.label}", ref))
                    if ref not in used_refs:
                        used_refs.append(ref)
            task_views.append(_TaskView(task, headline, families, sorted(other), series))
        views.append(_BenchmarkView(spec, task_views, used_refs))
    _unique_reference_labels(views)
    return views


def _unique_reference_labels(views: list[_BenchmarkView]) -> None:
    # Two paper rows with the same label in one table (one model in two settings): add the setting.
    for view in views:
        for tv in view.tasks:
            labels = [s.ref.label for s in tv.series if s.ref is not None]
            for s in tv.series:
                if s.ref is not None and labels.count(s.ref.label) > 1:
                    s.label = f"{s.ref.label}, {s.ref.setting} (paper)"
                    s.legend = f"paper: {s.ref.label}, {s.ref.setting}"


# ---------------------------------------------------------------- formatting


def fmt_value(v: Value | None) -> str:
    """``31.2 [27.6, 35.0]`` with a CI, ``31.2`` without, ``NaN`` for NaN, ``–`` when missing."""
    if v is None:
        return "–"
    if not _finite(v.value):
        return "NaN"
    text = f"{v.value:.1f}"
    if v.has_ci():
        text += f" [{v.ci_low:.1f}, {v.ci_high:.1f}]"
    return text


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(_md_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    return lines


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "x"


def _pretty(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric)


# ---------------------------------------------------------------- charts

_RUN_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
_REF_GREYS = ("#d9d9d9", "#bdbdbd", "#a6a6a6", "#8c8c8c", "#737373", "#e8e8e8", "#595959")
_REF_HATCHES = ("//", "\\\\", "xx", "..", "--", "++", "oo", "||")


def _styles(series: Iterable[_Series]) -> dict[str, dict[str, Any]]:
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


_Group = tuple[str, list[tuple[_Series, Value]]]  # x label, bars
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
    values = [v.value for v in all_bars if _finite(v.value)]
    values += [b for v in all_bars if v.has_ci() for b in (v.ci_low, v.ci_high)]
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
                if not _finite(v.value):
                    ax.text(x, lo + 1, "NaN", rotation=90, ha="center", va="bottom", fontsize=7, color="#b00000")
                    continue
                ax.bar(x, v.value, width * 0.92, linewidth=0.6, **styles[s.legend])
                if v.has_ci():
                    ax.errorbar(
                        x, v.value, yerr=[[v.value - v.ci_low], [v.ci_high - v.value]],
                        fmt="none", ecolor="black", elinewidth=0.9, capsize=2.5,
                    )  # fmt: skip
                if label_values:
                    top = max(v.ci_high if v.has_ci() else v.value, 0.0)
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


def _view_styles(view: _BenchmarkView) -> dict[str, dict[str, Any]]:
    # One style per legend entry for the whole benchmark, so a model looks the same in every chart.
    return _styles(s for tv in view.tasks for s in tv.series)


def _used(styles: dict[str, dict[str, Any]], panels: list[tuple[str | None, list[_Group]]]) -> dict:
    shown = {s.legend for _, groups in panels for _, bars in groups for s, _ in bars}
    return {k: v for k, v in styles.items() if k in shown}


def _headline_chart(view: _BenchmarkView, out: Path) -> Path | None:
    panels = []
    for tv in view.tasks:
        groups = [
            (_pretty(m), [(s, s.values[m]) for s in tv.series if m in s.values])
            for m in tv.headline
            if m not in NOT_CHARTED
        ]
        panels.append((tv.task, groups))
    path = out / f"{_slug(view.spec.name)}_headline.png"
    title = f"{view.spec.name}: headline metrics (%)"
    return _bar_chart(panels, _used(_view_styles(view), panels), title, "%", path, rotate=0)


def _category_chart(view: _BenchmarkView, tv: _TaskView, family: str, out: Path) -> Path | None:
    groups = []
    for cat in tv.families[family]:
        key = f"{family}_{cat}"
        groups.append((cat, [(s, s.values[key]) for s in tv.series if key in s.values]))
    panels: list[tuple[str | None, list[_Group]]] = [(None, groups)]
    path = out / f"{_slug(tv.task)}_{_slug(family)}_by_category.png"
    title = f"{view.spec.name} ({tv.task}): {_pretty(family)} by category"
    return _bar_chart(panels, _used(_view_styles(view), panels), title, f"{_pretty(family)} (%)", path, rotate=35)


def _run_line(run: Run) -> list[str]:
    counts = []
    for task, c in sorted(run.n_samples.items()):
        if isinstance(c, dict):
            counts.append(f"{task} {c.get('effective', '?')}/{c.get('original', '?')}")
    line = (
        f"- **{run.label}**: model `{run.model or '?'}`, model_args `{run.model_args or '-'}`, "
        f"date {run.date or '?'}, limit {run.limit if run.limit is not None else 'none'}, "
        f"n-samples (scored/total) {', '.join(counts) or '?'}; file `{run.path}`"
    )
    lines = [line]
    from temporal_tasks.provenance import describe

    for task, record in sorted(run.provenance.items()):
        lines.append(f"  - provenance of `{task}`: {describe(record)}")
    if run.partial:
        lines.append(
            f"  - ⚠ **partial run** (`--limit {run.limit}`): numbers cover a subset of each benchmark and are "
            "not comparable with full runs or the papers."
            if run.limit is not None
            else "  - ⚠ **partial run**: fewer samples scored than the task has; numbers are not comparable."
        )
    return lines


def _reference_notes(refs: list[Reference]) -> list[str]:
    papers = list(dict.fromkeys(p for r in refs for p in r.papers))
    md = ["Paper numbers shown above" + (f" are from *{papers[0]}*:" if len(papers) == 1 else ":"), ""]
    for ref in refs:
        where = "; ".join(ref.tables) if len(papers) == 1 else "; ".join(dict.fromkeys(ref.sources.values()))
        md.append(f"- **{ref.label}** ({ref.setting}; our tasks {', '.join(ref.tasks)}): {where}.")
    # One line per distinct note, naming the models it applies to, so shared caveats are not repeated.
    notes: dict[str, list[str]] = {}
    for ref in refs:
        for note in ref.notes:
            notes.setdefault(note, [])
            if ref.label not in notes[note]:
                notes[note].append(ref.label)
    if notes:
        md += ["", "Notes on the paper numbers:", ""]
        md += [f"- {', '.join(models)}: {note}" for note, models in notes.items()]
    return md


def _shortcut_table(view: _BenchmarkView) -> list[str]:
    """The "Shortcut analyses" table: each model's main row beside its blind/single-frame/shuffled rows."""
    by_task = {tv.task: tv for tv in view.tasks}
    tasks = [t for t in view.spec.shortcuts if t in by_task]
    if not any(t != view.spec.shortcuts[0] for t in tasks):
        return []  # no variant was run: nothing to compare
    metrics = {m for t in tasks for m in by_task[t].headline}
    cols = [m for m in view.spec.headline if m in metrics]
    labels = dict(zip(view.spec.shortcuts, SHORTCUT_LABELS, strict=True))
    rows: list[list[str]] = []
    models = list(dict.fromkeys(s.label for t in tasks for s in by_task[t].series if not s.is_reference))
    for model in models:
        for t in tasks:
            for s in by_task[t].series:
                if s.label == model and not s.is_reference:
                    rows.append([model, f"{labels[t]} (`{t}`)"] + [fmt_value(s.values.get(m)) for m in cols])
    for t in tasks:
        for s in by_task[t].series:
            if s.is_reference and any(m in s.values for m in cols):
                rows.append([s.label, f"{labels[t]} (`{t}`)"] + [fmt_value(s.values.get(m)) for m in cols])
    md = ["### Shortcut analyses", "",
          "The same questions with no visual input, one frame, or shuffled frames (README \"Shortcut analyses\"). "
          "Near-chance variants mean the benchmark needs the video's temporal order.", ""]  # fmt: skip
    return md + _md_table(["Model", "Input", *cols], rows) + [""]


def _render_markdown(runs: list[Run], views: list[_BenchmarkView], charts: dict[tuple, Path]) -> str:
    md = [
        "# Temporal reasoning report",
        "",
        "Values are percentages. `v [low, high]` is the 95% confidence interval where the run reports one "
        "(`<metric>_ci_low` / `<metric>_ci_high`); `NaN` means the metric is undefined for the run, `–` that it "
        "was not reported. Rows marked *(paper)* are published numbers from `temporal_tasks/reference_numbers.json`; "
        "their protocols can differ from ours (see the notes under each benchmark).",
        "",
        "## Runs",
        "",
    ]
    for run in runs:
        md += _run_line(run)
    partial = [r.label for r in runs if r.partial]
    if partial:
        md += ["", f"> ⚠ Partial runs (`--limit`): {', '.join(partial)}. Their numbers are partial."]
    for view in views:
        md += ["", f"## {view.spec.name}", ""]
        chart = charts.get((view.spec.name, "headline"))
        if chart:
            md += [f"![{view.spec.name} headline metrics]({chart.name})", ""]
        md += _shortcut_table(view)
        for tv in view.tasks:
            md += [f"### {tv.task}", ""]
            if tv.headline:
                rows = [[s.label] + [fmt_value(s.values.get(m)) for m in tv.headline] for s in tv.series]
                rows = [
                    r
                    for r, s in zip(rows, tv.series, strict=True)
                    if not s.is_reference or any(c != "–" for c in r[1:])
                ]
                md += _md_table(["Model", *tv.headline], rows) + [""]
            for family, cats in tv.families.items():
                cols = [s for s in tv.series if any(f"{family}_{c}" in s.values for c in cats)]
                md += [f"#### {family} by category", ""]
                chart = charts.get((view.spec.name, tv.task, family))
                if chart:
                    md += [f"![{tv.task} {family} by category]({chart.name})", ""]
                rows = [[c] + [fmt_value(s.values.get(f"{family}_{c}")) for s in cols] for c in cats]
                md += _md_table(["Category", *(s.label for s in cols)], rows) + [""]
            if tv.other:
                runs_only = [s for s in tv.series if not s.is_reference]
                md += ["#### Other metrics", ""]
                rows = [[m] + [fmt_value(s.values.get(m)) for s in runs_only] for m in tv.other]
                md += _md_table(["Metric", *(s.label for s in runs_only)], rows) + [""]
        if view.references:
            md += _reference_notes(view.references)
    return "\n".join(md).rstrip() + "\n"


def _csv_num(x: float | None) -> str:
    if x is None:
        return ""
    if isinstance(x, float) and math.isnan(x):
        return "NaN"
    return repr(float(x))


def _write_csv(views: list[_BenchmarkView], path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["benchmark", "task", "model", "metric", "value", "ci_low", "ci_high", "source"])
        for view in views:
            for tv in view.tasks:
                for s in tv.series:
                    for metric, v in s.values.items():
                        source = f"paper: {s.ref.sources[metric]}" if s.ref is not None else s.source
                        w.writerow(
                            [view.spec.name, tv.task, s.label, metric, _csv_num(v.value), _csv_num(v.ci_low),
                             _csv_num(v.ci_high), source]
                        )  # fmt: skip


def _have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def write_report(
    runs: list[Run], out: str | Path, references: list[Reference] | None = None, charts: bool = True
) -> list[Path]:
    """Write ``report.md``, ``report.csv`` and the PNG charts into ``out``; return the written paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _disambiguate(runs)
    views = _build_views(runs, references if references is not None else load_references())
    written: list[Path] = []
    chart_paths: dict[tuple, Path] = {}
    if charts and not _have_matplotlib():
        from temporal_tasks.log import logger

        # The tables are still useful without charts; say how to get them.
        logger.warning("report: matplotlib is not installed, so no PNG charts (pip install matplotlib)")
        charts = False
    if charts:
        for view in views:
            p = _headline_chart(view, out)
            if p:
                chart_paths[(view.spec.name, "headline")] = p
            for tv in view.tasks:
                for family in tv.families:
                    p = _category_chart(view, tv, family, out)
                    if p:
                        chart_paths[(view.spec.name, tv.task, family)] = p
    md_path = out / "report.md"
    md_path.write_text(_render_markdown(runs, views, chart_paths), encoding="utf-8")
    csv_path = out / "report.csv"
    _write_csv(views, csv_path)
    written += [md_path, csv_path, *chart_paths.values()]
    return written


# ---------------------------------------------------------------- one-screen summary


def _scored_groups(results_path: Path, task: str, metric: str) -> int | None:
    """Complete groups behind ``metric`` in the run's ``--log_samples`` file of ``task`` (beside the results)."""
    stem = results_path.name.removesuffix("results.json")
    samples = results_path.with_name(f"{stem}samples_{task}.jsonl")
    if not samples.is_file():
        return None
    from temporal_tasks.runs import read_samples
    from temporal_tasks.samples import fed_keys, line_payload
    from temporal_tasks.scoring import complete_groups

    payloads = []
    for line in read_samples(samples):  # stops on a file holding answers from two runs
        payload = line_payload(line) if metric in fed_keys(line) else None
        if payload is not None and "group_size" in payload:
            payloads.append(payload)
    return complete_groups(payloads) if payloads else None


def summary_rows(runs: list[Run]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the one-screen summary: per run and task, its headline metric with the 95% CI,
    the other headline metrics, ``invalid_rate``, questions scored and complete groups scored."""
    header = ["Task", "headline", "value [95% CI]", "other headline metrics", "invalid_rate", "questions", "groups"]
    if len(runs) > 1:
        header.insert(0, "Model")
    rows = []
    for run in runs:
        for task in _ordered(run.results, [t for spec in BENCHMARKS for t in spec.tasks]):
            values = run.results[task]
            spec = benchmark_of(task)
            order = (*spec.primary, *spec.headline) if spec else tuple(sorted(values))
            scores = [m for m in dict.fromkeys(order) if m in values and m != "invalid_rate"]
            if not scores:
                continue
            head = scores[0]
            others = ", ".join(f"{_pretty(m)} {fmt_value(Value(values[m].value))}" for m in scores[1:])
            counts = run.n_samples.get(task) if isinstance(run.n_samples.get(task), dict) else {}
            groups = _scored_groups(run.path, task, head)
            row = [
                task, _pretty(head), fmt_value(values[head]), others or "–", fmt_value(values.get("invalid_rate")),
                str(counts.get("effective", "–")), "–" if groups is None else str(groups),
            ]  # fmt: skip
            rows.append([run.label, *row] if len(runs) > 1 else row)
    return header, rows


def summary_table(results: Iterable[str | Path], run: str | None = None) -> str:
    """``temporal-tasks summary``: one Markdown table, a row per task, from results files or folders
    (a folder: one run per model folder, its newest complete one or ``run``; the choice is named below)."""
    notes: list[str] = []
    runs = [load_run(p) for p in find_results(results, run, notes)]
    _disambiguate(runs)
    header, rows = summary_rows(runs)
    if not rows:
        raise ValueError("no task of the results has a headline metric to summarise")
    partial = [r.label for r in runs if r.partial]
    note = [f"(partial runs, --limit: {', '.join(partial)})"] if partial else []
    note += [f"({n})" for n in notes]
    return "\n".join(_md_table(header, rows) + note + provenance_lines(runs))


def provenance_lines(runs: list[Run]) -> list[str]:
    """One line per run and task: what produced the numbers (reading, N and its source, data, seed, cut)."""
    from temporal_tasks.provenance import describe

    lines = []
    for run in runs:
        for task, record in sorted(run.provenance.items()):
            who = f"{run.label} " if len(runs) > 1 else ""
            lines.append(f"- {who}{task}: {describe(record)}")
    return ["", "Provenance:", *lines] if lines else []


def _cmd_summary(args: argparse.Namespace) -> int:
    print(summary_table(args.results, getattr(args, "run", None)))
    return 0


def add_summary_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``summary`` subcommand (sets ``func``)."""
    p = subparsers.add_parser("summary", help="one compact table of the headline metrics of lmms-eval results JSONs")
    p.add_argument("results", nargs="+", help="lmms-eval *_results.json files, or folders holding them")
    p.add_argument("--run", help="which run, when a folder holds several: its stamp (e.g. 20261125_101010) or file")
    p.set_defaults(func=_cmd_summary)
    return p


def main_report(
    results: list[str], out: str, references: bool | str = True, run: str | None = None, notes: list[str] | None = None
) -> list[Path]:
    """``temporal-tasks report``: load results files (or folders of them) and write the report into ``out``.

    ``references``: True for the packaged paper numbers, False for none, or a path to another reference JSON.
    A folder gives one run per model folder (its newest complete one, or ``run``); ``notes`` gets the choices.
    """
    runs = [load_run(p) for p in find_results(results, run, notes)]
    if not runs:
        raise ValueError("no results files given")
    refs = [] if references is False else load_references(None if references is True else references)
    return write_report(runs, out, refs)


def _cmd_report(args: argparse.Namespace) -> int:
    refs: bool | str = False if args.no_references else (args.references or True)
    notes: list[str] = []
    for path in main_report(args.results, args.out, refs, getattr(args, "run", None), notes):
        print(path)
    for note in notes:
        print(f"temporal-tasks: {note}", file=sys.stderr)
    return 0


def add_report_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``report`` subcommand to an ``argparse`` subparsers object (sets ``func``)."""
    p = subparsers.add_parser(
        "report", help="Markdown/CSV tables and PNG charts from lmms-eval results JSONs, next to the papers' numbers"
    )
    p.add_argument("results", nargs="+", help="lmms-eval *_results.json files, or folders holding them")
    p.add_argument("--out", default="report", help="output folder (default: ./report)")
    p.add_argument("--references", help="reference-numbers JSON to use instead of the packaged one")
    p.add_argument("--no-references", action="store_true", help="leave out the papers' numbers")
    p.add_argument("--run", help="which run, when a folder holds several: its stamp (e.g. 20261125_101010) or file")
    p.set_defaults(func=_cmd_report)
    return p
