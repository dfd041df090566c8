"""``temporal-tasks summary``: one compact Markdown table of the headline metrics, a row per run and task."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from temporal_tasks.scoring.metrics import complete_groups
from temporal_tasks.tools.provenance import describe
from temporal_tasks.tools.report.layout import benchmark_of, benchmarks, metric_label, ordered
from temporal_tasks.tools.report.results import RunResults, Value, disambiguate, find_results, load_run
from temporal_tasks.tools.report.tables import fmt_value, md_table
from temporal_tasks.tools.runs import read_samples
from temporal_tasks.tools.samples import fed_keys, line_payload


def _scored_groups(results_path: Path, task: str, metric: str) -> int | None:
    """Complete groups behind ``metric`` in the run's ``--log_samples`` file of ``task`` (beside the results)."""
    stem = results_path.name.removesuffix("results.json")
    samples = results_path.with_name(f"{stem}samples_{task}.jsonl")
    if not samples.is_file():
        return None

    payloads = []
    for line in read_samples(samples):  # stops on a file holding answers from two runs
        payload = line_payload(line) if metric in fed_keys(line) else None
        if payload is not None and "group_size" in payload:
            payloads.append(payload)
    return complete_groups(payloads) if payloads else None


def summary_rows(runs: list[RunResults]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the one-screen summary: per run and task, its headline metric with the 95% CI,
    the other headline metrics, ``invalid_rate``, questions scored and complete groups scored."""
    header = ["Task", "headline", "value [95% CI]", "other headline metrics", "invalid_rate", "questions", "groups"]
    if len(runs) > 1:
        header.insert(0, "Model")
    rows = []
    for run in runs:
        for task in ordered(run.results, [t for spec in benchmarks() for t in spec.tasks]):
            values = run.results[task]
            spec = benchmark_of(task)
            order = (*spec.primary, *spec.headline) if spec else tuple(sorted(values))
            scores = [m for m in dict.fromkeys(order) if m in values and m != "invalid_rate"]
            if not scores:
                continue
            head = scores[0]
            others = ", ".join(f"{metric_label(m)} {fmt_value(Value(values[m].value))}" for m in scores[1:])
            counts = run.n_samples.get(task)
            if not isinstance(counts, dict):
                counts = {}
            groups = _scored_groups(run.path, task, head)
            row = [
                task, metric_label(head), fmt_value(values[head]), others or "–", fmt_value(values.get("invalid_rate")),
                str(counts.get("effective", "–")), "–" if groups is None else str(groups),
            ]  # fmt: skip
            rows.append([run.label, *row] if len(runs) > 1 else row)
    return header, rows


def summary_table(results: Iterable[str | Path], run: str | None = None) -> str:
    """``temporal-tasks summary``: one Markdown table, a row per task, from results files or folders
    (a folder: one run per model folder, its newest complete one or ``run``; the choice is named below)."""
    notes: list[str] = []
    runs = [load_run(p) for p in find_results(results, run, notes)]
    disambiguate(runs)
    header, rows = summary_rows(runs)
    if not rows:
        raise ValueError("no task of the results has a headline metric to summarise")
    partial = [r.label for r in runs if r.partial]
    note = [f"(partial runs, --limit: {', '.join(partial)})"] if partial else []
    note += [f"({n})" for n in notes]
    return "\n".join(md_table(header, rows) + note + provenance_lines(runs))


def provenance_lines(runs: list[RunResults]) -> list[str]:
    """One line per run and task: what produced the numbers (reading, N and its source, data, seed, cut)."""
    lines = []
    for run in runs:
        for task, record in sorted(run.provenance.items()):
            who = f"{run.label} " if len(runs) > 1 else ""
            lines.append(f"- {who}{task}: {describe(record)}")
    return ["", "Provenance:", *lines] if lines else []
