"""``temporal-tasks timeorder`` and ``sweep-frames``: the tables, CSVs and chart of
:mod:`temporal_tasks.tools.timeorder`, and the subcommands (thin: every number comes from the package's other
modules)."""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from temporal_tasks.tools.compare import ITERATIONS
from temporal_tasks.tools.timeorder import (
    LABELS,
    RATIO_NAMES,
    VARIANT_NAMES,
    ControlRow,
    FrameSeries,
    TimeOrder,
    collect,
    frame_series,
    time_order,
)

ROW_FIELDS = [
    "benchmark", "main_task", "main_run", "n", "repeat", "control_task", "variant", "metric", "control", "main", "diff",
    "ci_low", "ci_high", "p_value", "groups", "relative", "relative_ci_low", "relative_ci_high", "right_in_both",
    "main_only", "control_only", "wrong_in_both",
]  # fmt: skip
FRAME_FIELDS = ["benchmark", "task", "model", "metric", "n", "value", "ci_low", "ci_high", "groups", "step",
                "diff", "diff_ci_low", "diff_ci_high", "p_value"]  # fmt: skip


def _f(x: float, digits: int = 2, sign: bool = False) -> str:
    if x is None or math.isnan(x):
        return "nan"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _p(x: float) -> str:
    return "nan" if math.isnan(x) else (f"{x:.4f}" if x >= 0.0001 else "<0.0001")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    cell = lambda text: str(text).replace("|", "\\|")  # noqa: E731 - one-line escaper
    return ["| " + " | ".join(map(cell, header)) + " |", "|" + "---|" * len(header)] + [
        "| " + " | ".join(map(cell, r)) + " |" for r in rows
    ]


def repeat_text(t: TimeOrder) -> str:
    """``"; repeat 2 of 3"`` for one repeat's reading of a ``--repeats k`` run, else ``""``."""
    return "" if t.repeat is None else f"; repeat {t.repeat + 1} of {t.repeats}"


def control_rows(t: TimeOrder) -> list[list[str]]:
    """Rows of one time-order table: main, then each control (values, main - control with CI and p, tau/kappa,
    flips)."""
    rows = [["video (main task)", f"`{t.main.task}`", t.key, "", _f(t.main_value), "", "", "", "", "", "", "", "", ""]]
    return rows + [row_cells(r) for r in t.rows]


def row_cells(r: ControlRow) -> list[str]:
    """One control's row: values, main - control with CI and p, the relative gain, the flips."""
    c, f = r.comparison, r.flips
    rel = f"{RATIO_NAMES[r.variant]} {_f(r.relative, sign=True)} [{_f(r.relative_ci[0])}, {_f(r.relative_ci[1])}]"
    return [
        VARIANT_NAMES[r.variant], f"`{r.task}`", c.metric, _f(c.base), _f(c.new), _f(c.diff, sign=True),
        f"[{_f(c.ci_low)}, {_f(c.ci_high)}]", _p(c.p_value), str(c.groups), rel,
        str(f["both"]), str(f["main_only"]), str(f["control_only"]), str(f["neither"]),
    ]  # fmt: skip


HEADER = ["Input", "Task", "Metric", "Control", "Main", "Main − control", "95% CI", "p", "groups",
          "relative (A_main − A_c) / A_c", "right in both", "main only", "control only", "wrong in both"]  # fmt: skip


def label_lines(t: TimeOrder) -> list[str]:
    """The label counts (and per category) of one time-order result, or nothing without all four tasks."""
    if not t.labels:
        return []
    counts = t.label_counts()
    total = sum(counts.values())
    md = [f"Groups by what answers them ({len(t.labels)} groups all four scored; key `{t.label_key}`):", ""]
    md += _table(["Label", "groups", "%"], [[k, str(v), _f(100.0 * v / total, 1)] for k, v in counts.items()])
    cats = t.category_counts()
    if cats:
        md += ["", "Per category (a group counts in each of its categories):", ""]
        md += _table(["Category", *LABELS], [[c, *(str(v[k]) for k in LABELS)] for c, v in cats.items()])
    return md


def time_order_markdown(results: Sequence[TimeOrder], extra_rows: dict[int, list[list[str]]] | None = None) -> str:
    """Every time-order result as Markdown (``extra_rows``: more rows of result i, e.g. the papers')."""
    md: list[str] = []
    for i, t in enumerate(results):
        n = f"N={t.main.n}" if t.main.n is not None else "N unknown"
        md += [f"### {t.benchmark}: `{t.main.task}` ({n}{repeat_text(t)}; model {t.main.model}; run {t.main.run})", ""]
        md += _table(HEADER, control_rows(t) + (extra_rows or {}).get(i, [])) + [""]
        if t.category_rows:
            md += ["Per category of the headline key (`--categories`):", ""]
            md += _table(HEADER, [row_cells(r) for r in t.category_rows]) + [""]
        lines = label_lines(t)
        if lines:
            md += lines + [""]
        md += [f"- {note}" for note in t.notes] + ([""] if t.notes else [])
    return "\n".join(md).rstrip() + "\n"


def frames_markdown(series: Sequence[FrameSeries], charts: dict[int, Path] | None = None) -> str:
    """Every frame-count series as Markdown: the score per N, then each step's paired difference."""
    md: list[str] = []
    for i, s in enumerate(series):
        md += [f"### {s.benchmark}: `{s.task}` against N ({s.model}; key `{s.key}`)", ""]
        chart = (charts or {}).get(i)
        if chart is not None:
            md += [f"![{s.task} against N]({chart.name})", ""]
        rows = [[str(p.n), _f(p.value), f"[{_f(p.ci_low)}, {_f(p.ci_high)}]", str(p.groups)] for p in s.points]
        md += _table(["N", s.key, "95% CI", "groups"], rows) + [""]
        rows = [[c.task, _f(c.diff, sign=True), f"[{_f(c.ci_low)}, {_f(c.ci_high)}]", _p(c.p_value), str(c.groups)]
                for c in s.steps]  # fmt: skip
        md += _table(["Step", "difference", "95% CI", "p", "groups"], rows) + [""]
        md += [f"- {note}" for note in s.notes] + ([""] if s.notes else [])
    return "\n".join(md).rstrip() + "\n"


def write_rows_csv(results: Sequence[TimeOrder], path: Path) -> Path:
    """One CSV row per main task and control (:data:`ROW_FIELDS`)."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(ROW_FIELDS)
        for t in results:
            for r in [*t.rows, *t.category_rows]:
                c, f = r.comparison, r.flips
                w.writerow([t.benchmark, t.main.task, t.main.run, t.main.n, t.repeat, r.task, r.variant, c.metric,
                            c.base, c.new, c.diff, c.ci_low, c.ci_high, c.p_value, c.groups, r.relative, *r.relative_ci,
                            f["both"], f["main_only"], f["control_only"], f["neither"]])  # fmt: skip
    return path


def write_labels_csv(results: Sequence[TimeOrder], path: Path) -> Path:
    """One CSV row per labelled group: benchmark, main task, run, group id, label, categories."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["benchmark", "main_task", "main_run", "repeat", "metric", "group_id", "label", "categories"])
        for t in results:
            for gid, label in t.labels.items():
                w.writerow([t.benchmark, t.main.task, t.main.run, t.repeat, t.label_key, gid, label,
                            ";".join(t.categories.get(gid, []))])  # fmt: skip
    return path


def write_frames_csv(series: Sequence[FrameSeries], path: Path) -> Path:
    """One CSV row per N and one per step between successive N (:data:`FRAME_FIELDS`)."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(FRAME_FIELDS)
        for s in series:
            head = [s.benchmark, s.task, s.model, s.key]
            for p in s.points:
                w.writerow([*head, p.n, p.value, p.ci_low, p.ci_high, p.groups, "", "", "", "", ""])
            for c in s.steps:
                w.writerow([*head, "", "", "", "", c.groups, c.task, c.diff, c.ci_low, c.ci_high, c.p_value])
    return path


def frames_chart(s: FrameSeries, path: Path) -> Path:
    """Score against N with its 95% CI whiskers (matplotlib, as the report's charts)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ns = [p.n for p in s.points]
    values = [p.value for p in s.points]
    low = [max(0.0, p.value - p.ci_low) if not math.isnan(p.ci_low) else 0.0 for p in s.points]
    high = [max(0.0, p.ci_high - p.value) if not math.isnan(p.ci_high) else 0.0 for p in s.points]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.errorbar(ns, values, yerr=[low, high], fmt="o-", capsize=4, color="tab:blue")
    ax.set_xscale("log", base=2)
    ax.set_xticks(ns)
    ax.set_xticklabels([str(n) for n in ns])
    ax.set_xlabel("frames N (from each run's provenance)")
    ax.set_ylabel(f"{s.key} (%, 95% CI)")
    ax.set_title(f"{s.task}: score against N")
    ax.set_ylim(-2, 102)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def chart_name(s: FrameSeries, i: int) -> str:
    """The file name of series ``i``'s chart."""
    return f"frames_{s.task}_{i}.png"


def write_outputs(results: Sequence[TimeOrder], series: Sequence[FrameSeries], out: str | Path) -> list[Path]:
    """``timeorder.md``, ``timeorder.csv``, ``timeorder_groups.csv`` and, for frame sweeps, ``frames.csv`` and a
    PNG per series, in ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    charts = {i: frames_chart(s, out / chart_name(s, i)) for i, s in enumerate(series)}
    md = out / "timeorder.md"
    md.write_text(document(results, series, charts), encoding="utf-8")
    written = [
        md,
        write_rows_csv(results, out / "timeorder.csv"),
        write_labels_csv(results, out / "timeorder_groups.csv"),
    ]
    if series:
        written.append(write_frames_csv(series, out / "frames.csv"))
    return written + list(charts.values())


INTRO = (
    "Main − control over the groups both scored, in percentage points; 95% CI from a paired group bootstrap; "
    "two-sided p-value from a paired sign-flip permutation test over groups (as `temporal-tasks compare`). "
    "relative: (A_main − A_c) / A_c (τ: shuffled, κ: single frame) with a paired bootstrap CI. A CI containing 0 "
    "shows no difference at this sample size, not that there is none (docs/time-order.md)."
)


def document(results: Sequence[TimeOrder], series: Sequence[FrameSeries], charts: dict[int, Path] | None = None) -> str:
    """The whole ``timeorder`` output: the time-order tables, then the frame-count tables."""
    md = ["## Time order", "", INTRO, ""]
    md += [time_order_markdown(results) if results else "No main task with a control found.", ""]
    if series:
        md += ["## Frame count", "", frames_markdown(series, charts)]
    return "\n".join(md).rstrip() + "\n"


def add_timeorder_parser(subparsers: Any) -> Any:
    """Add the ``timeorder`` and ``sweep-frames`` subcommands (set ``func``)."""
    p = subparsers.add_parser(
        "timeorder",
        help="main task vs its blind / single-frame / shuffled variants, paired over groups; and score against N",
    )
    p.add_argument("runs", nargs="+", help="run folders (or files) holding the main task and its controls' samples")
    p.add_argument("--force", action="store_true", help="pair runs even if they differ beyond the visual input")
    p.add_argument("--categories", action="store_true", help="also a row per category of the headline key")
    p.add_argument("--csv", help="also write the rows (one per main task and control) to this CSV file")
    p.add_argument("--out", help="also write timeorder.md, the CSVs and the frame charts here")
    p.add_argument("--iterations", type=int, default=ITERATIONS, help=f"resamples (default {ITERATIONS})")
    p.set_defaults(func=_cmd_timeorder)

    p = subparsers.add_parser(
        "sweep-frames", help="print an lmms-eval --config YAML: one run per N (the frame-count sweep)"
    )
    p.add_argument("--model", required=True, help="lmms-eval --model")
    p.add_argument("--model-args", default="", help="lmms-eval --model_args, without the frame argument")
    p.add_argument("--tasks", required=True, help="lmms-eval --tasks (e.g. a *_shortcuts group)")
    p.add_argument("--frames", required=True, help="the values of N, comma-separated (e.g. 8,16,32)")
    p.add_argument("--frame-arg", default="max_num_frames", help="the model's frame argument (default max_num_frames)")
    p.add_argument("--output-path", default="logs/frames", help="runs go to OUTPUT_PATH/n<N> (default logs/frames)")
    p.add_argument("--print", action="store_true", help="print the YAML (the default without --out)")
    p.add_argument("--out", help="write the YAML to this file (then run: lmms-eval --config FILE)")
    p.set_defaults(func=_cmd_sweep)
    return p


def _cmd_timeorder(args: Any) -> int:
    runs = collect(args.runs)
    results = time_order(runs, force=args.force, iters=args.iterations, categories=args.categories)
    series = frame_series(runs, iters=args.iterations)
    print(document(results, series), end="")
    if args.csv:
        print(f"wrote {write_rows_csv(results, Path(args.csv))}")
    if args.out:
        for path in write_outputs(results, series, args.out):
            print(f"wrote {path}")
    return 0


def sweep_config(model: str, model_args: str, tasks: str, frames: Sequence[int], frame_arg: str, out: str) -> str:
    """lmms-eval's ``--config`` YAML list: one entry per N, N given as the model's frame argument (which the
    shortcut files and paired videos follow too) and each run in its own ``OUT/n<N>`` folder."""
    lines = []
    for n in frames:
        args = ",".join(a for a in (model_args.strip(","), f"{frame_arg}={n}") if a)
        lines += [
            f"- model: {model}",
            f'  model_args: "{args}"',
            f"  tasks: {tasks}",
            "  batch_size: 1",
            "  log_samples: true",
            f"  output_path: {out.rstrip('/')}/n{n}",
        ]
    return "\n".join(lines) + "\n"


def _cmd_sweep(args: Any) -> int:
    try:
        frames = [int(x) for x in args.frames.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--frames {args.frames!r}: give whole numbers, comma-separated (e.g. 8,16,32)") from None
    if len(frames) < 2 or any(n < 1 for n in frames):
        raise ValueError(f"--frames {args.frames!r}: give at least two positive values of N")
    text = sweep_config(args.model, args.model_args, args.tasks, frames, args.frame_arg, args.output_path)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    if args.print or not args.out:
        print(text, end="")
    if args.out:
        print(f"wrote {args.out}; run: lmms-eval --config {args.out}")
    return 0
