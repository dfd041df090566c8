"""Recompute our tasks' metrics from lmms-eval's ``--log_samples`` files, without the model.

Each sample line holds the payload our ``process_results`` returned (gold, parser name, readings, ...)
once, ``same_as`` references under the other metric keys it fed, and the raw answer as lmms-eval's
``filtered_resps`` (:mod:`temporal_tasks.tools.samples`). Rescoring re-parses the raw answer (in the recorded
reading, or the one asked for) and runs the very aggregation functions the task YAML names, so a
rescore reproduces the run exactly. The aggregations follow the mode the payloads were re-read in (their
``parser_mode``), not the environment; a payload of an older samples file that records none is re-read as
``robust``, the default mode. Samples of a ``--predict_only`` run are rebuilt from the task's data
first. The result keeps each task's provenance record and adds ``rescored`` (the reading it used).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from pathlib import Path

from temporal_tasks.base.errors import DataError
from temporal_tasks.harness.task_configs import resolve_function, task_config
from temporal_tasks.scoring.payloads import read_answer
from temporal_tasks.tools.runs import Run, choose_run, find_runs
from temporal_tasks.tools.samples import fed_keys, line_payload, line_payloads, scorable_lines


def task_metrics(task: str) -> list[tuple[str, Callable, bool]]:
    """``(metric key, aggregation function, higher_is_better)`` for each metric of our task."""
    cfg = task_config(task)
    return [
        (m["metric"], resolve_function(m["aggregation"]), bool(m.get("higher_is_better", True)))
        for m in cfg["metric_list"]
    ]


def select_samples(paths: Iterable[str | Path], run: str | None = None) -> tuple[dict[str, Path], Run, str]:
    """The samples files (task -> file) of ONE run among ``paths``, the run, and a note naming the choice.

    Files and folders are grouped into runs (:mod:`temporal_tasks.tools.runs`); several runs mean the newest
    complete one, or ``run`` (``--run``). Tasks from different runs are never combined.
    """
    paths = list(paths)
    for raw in paths:
        if not Path(raw).exists():
            raise DataError(f"{raw}: no such file or folder (pass lmms-eval's *_samples_<task>.jsonl files).")
    runs = [r for r in find_runs(paths) if r.samples]
    if not runs:
        raise DataError(f"no *_samples_<task>.jsonl file under {[str(p) for p in paths]}; run lmms-eval --log_samples.")
    named = {str(Path(raw)) for raw in paths if Path(raw).is_file()}
    holding = [r for r in runs if named & {str(f) for f in r.samples.values()}]
    if run is None and len(holding) > 1:
        raise DataError(
            "the samples files given come from different runs ("
            + ", ".join(r.name for r in holding)
            + "); tasks from different runs are never combined: pass one run's files, or --run STAMP."
        )
    chosen, note = choose_run(holding if len(holding) == 1 and run is None else runs, run)
    return dict(chosen.samples), chosen, note


def find_sample_files(paths: Iterable[str | Path], run: str | None = None) -> dict[str, Path]:
    """Map task -> samples file of one run among files or folders (see :func:`select_samples`)."""
    return select_samples(paths, run)[0]


def line_answers(line: dict) -> list[str] | None:
    """The k answers of a sample line of a ``--repeats k`` run, as ``process_results`` saw them (stripped).

    lmms-eval logs them as ``filtered_resps`` (``[a1, …, ak]``, or nested one level) and, in some
    versions, ``resps``.
    """
    for field in ("filtered_resps", "resps"):
        given = line.get(field)
        if isinstance(given, list) and given and isinstance(given[0], list):
            given = given[0]
        if isinstance(given, list) and given:
            return ["" if a is None else str(a).strip() for a in given]
    return None


def reparse(payload: dict, mode: str | None, answers: list[str] | None = None) -> dict:
    """A copy of ``payload`` with both readings, ``pred`` and ``correct`` recomputed from the raw answer.

    A payload of a ``--repeats k`` run (``repeats``) re-reads each repeat's answer from ``answers`` (the
    sample line's ``resps``); the top-level fields stay repeat 0's.
    """
    if "parser" not in payload or "answer" not in payload:
        return dict(payload)  # e.g. log-likelihood payloads: nothing to parse

    use = mode or payload.get("parser_mode") or "robust"
    keys = payload.get("option_keys")

    def read(answer: str) -> dict:
        return read_answer(payload, answer, use, keys)

    out = {**payload, **read(payload["answer"]), "parser_mode": use}
    repeats = payload.get("repeats")
    if repeats:
        if answers is None or len(answers) != len(repeats):
            raise DataError(
                f"question {payload.get('question_id')!r}: its payload holds {len(repeats)} repeats but the sample "
                f"line's resps hold {0 if answers is None else len(answers)} answers; the samples file is not the "
                "one lmms-eval wrote for this run."
            )
        out["repeats"] = [{**rep, **read(answer)} for rep, answer in zip(repeats, answers, strict=True)]
        out["parser_errors"] = sum(rep["parser_errors"] for rep in out["repeats"])  # as make_payload counts them
    return out


def _effective_mode(payloads: list[dict], mode: str | None) -> str | None:
    recorded = {p.get("parser_mode") for p in payloads}
    recorded.discard(None)
    return mode or (recorded.pop() if len(recorded) == 1 else None)


def task_items(task: str, lines: list[dict], mode: str | None = None) -> tuple[dict[str, list], str | None]:
    """``({metric key: payloads}, reading)`` of ``task``'s sample lines, re-parsed in ``mode`` (or as recorded).

    One payload object per question across keys, as in the live run (lean or full lines, see
    :mod:`temporal_tasks.tools.samples`).
    """
    items: dict[str, list] = {key: [] for key, _fn, _hib in task_metrics(task)}
    payloads = []
    for line in lines:
        payload = line_payload(line)
        if payload is None:
            continue
        payloads.append(payload)
        fresh = reparse(payload, mode, line_answers(line) if payload.get("repeats") else None)
        for key in fed_keys(line):
            if key in items:
                items[key].append(fresh)
    return items, _effective_mode(payloads, mode)


def rescore_task(task: str, lines: list[dict], mode: str | None = None) -> dict[str, float]:
    """Every metric of ``task`` from its sample lines (the aggregations read the mode of the re-read payloads)."""
    items, _mode = task_items(task, lines, mode)
    out = {}
    for key, fn, _hib in task_metrics(task):
        if items[key]:  # lmms-eval reports no row for a key no question returned
            out[key] = float(fn(items[key]))
    return out


def _run_config(run: Run) -> dict:
    # The model of the run, from the results file written with the samples (when there is one).
    if run.results is None:
        return {}
    try:
        cfg = json.loads(run.results.read_text(encoding="utf-8")).get("config") or {}
    except (OSError, json.JSONDecodeError, AttributeError):
        return {}
    return {k: cfg[k] for k in ("model", "model_args", "limit") if k in cfg}


def rescore(paths: Iterable[str | Path], mode: str | None = None, run: str | None = None) -> dict:
    """Rescore the samples files of one run (``run``: ``--run``); returns a dict in lmms-eval's results format,
    with each task's provenance.

    ``config`` names the run (``run``, ``run_note`` when a choice was made) and its model. Samples of a
    ``--predict_only`` run are scored from the task's data (checked against the run's provenance); a file
    that cannot be scored raises ``DataError``.
    """
    files, chosen, note = select_samples(paths, run)
    results, hib, nsamples, configs = {}, {}, {}, {}
    for task, file in sorted(files.items()):
        task_metrics(task)  # an unknown task stops here, naming it
        lines, record, predict_only = scorable_lines(task, file)
        payloads = line_payloads(lines)
        values = rescore_task(task, lines, mode)
        if not values:
            raise DataError(f"{file}: no metric of {task} could be computed from its lines; rerun with --log_samples.")
        results[task] = {"alias": task, **{f"{k},none": v for k, v in values.items()}}
        hib[task] = {k: h for k, _f, h in task_metrics(task) if k in values}
        nsamples[task] = {"original": len(lines), "effective": len(lines)}
        rescored = {
            "reading": _effective_mode(payloads, mode) or "robust",
            "samples": str(file),
            "predict_only": predict_only,
        }
        configs[task] = {"metadata": {"provenance": {**(record or {"version": None}), "rescored": rescored}}}
    return {
        "results": results,
        "higher_is_better": hib,
        "n-samples": nsamples,
        "configs": configs,
        "config": {
            **_run_config(chosen),
            "run": chosen.name,
            **({"run_note": note} if note else {}),
            "rescored_from": {t: str(f) for t, f in files.items()},
            "parser": mode or "as recorded",
        },
    }


def format_table(result: dict) -> str:
    """A Markdown table like lmms-eval's (task, metric, value)."""
    rows = ["| Task | Metric | Value |", "|---|---|---:|"]
    for task, metrics in result["results"].items():
        for key in sorted(k for k in metrics if k.endswith(",none")):
            value = metrics[key]
            shown = "nan" if isinstance(value, float) and math.isnan(value) else f"{value:.4f}"
            rows.append(f"| {task} | {key.split(',')[0]} | {shown} |")
    return "\n".join(rows)


def write_results(result: dict, out_dir: str | Path) -> Path:
    """Write ``rescored_results.json`` into ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "rescored_results.json"
    path.write_text(json.dumps(result, indent=2, default=str), encoding="utf-8")
    return path
