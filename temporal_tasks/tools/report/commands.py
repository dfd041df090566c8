"""``temporal-tasks report`` and ``summary``: writing the report and the two subcommands' parsers."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from temporal_tasks.base.log import logger
from temporal_tasks.tools.report.charts import category_chart, have_matplotlib, headline_chart
from temporal_tasks.tools.report.references import Reference, load_references
from temporal_tasks.tools.report.results import RunResults, disambiguate, find_results, load_run
from temporal_tasks.tools.report.sections import build_views
from temporal_tasks.tools.report.summary import summary_table
from temporal_tasks.tools.report.tables import render_markdown, write_csv
from temporal_tasks.tools.report.timeorder import time_order_parts


def write_report(
    runs: list[RunResults], out: str | Path, references: list[Reference] | None = None, charts: bool = True
) -> list[Path]:
    """Write ``report.md``, ``report.csv`` and the PNG charts into ``out``; return the written paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    disambiguate(runs)
    references = references if references is not None else load_references()
    views = build_views(runs, references)
    written: list[Path] = []
    chart_paths: dict[tuple, Path] = {}
    if charts and not have_matplotlib():
        # The tables are still useful without charts; say how to get them.
        logger.warning("report: matplotlib is not installed, so no PNG charts (pip install matplotlib)")
        charts = False
    if charts:
        for view in views:
            p = headline_chart(view, out)
            if p:
                chart_paths[(view.spec.name, "headline")] = p
            for tv in view.tasks:
                for family in tv.families:
                    p = category_chart(view, tv, family, out)
                    if p:
                        chart_paths[(view.spec.name, tv.task, family)] = p
    parts = time_order_parts(runs, references, out, charts)
    for note in parts.notes:
        logger.warning(f"report: time order: {note}")
    md_path = out / "report.md"
    md_path.write_text(render_markdown(runs, views, chart_paths, parts.by_benchmark, parts.frames), encoding="utf-8")
    csv_path = out / "report.csv"
    write_csv(views, csv_path)
    written += [md_path, csv_path, *chart_paths.values(), *parts.written]
    return written


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
    p.add_argument(
        "--references",
        help="reference-numbers JSON to use instead of the packaged ones (each benchmark's references.json)",
    )
    p.add_argument("--no-references", action="store_true", help="leave out the papers' numbers")
    p.add_argument("--run", help="which run, when a folder holds several: its stamp (e.g. 20261125_101010) or file")
    p.set_defaults(func=_cmd_report)
    return p
