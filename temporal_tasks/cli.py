"""``temporal-tasks`` command line (same as ``python -m temporal_tasks``)."""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from temporal_tasks import tasks_dir
from temporal_tasks.harness.task_configs import our_tasks


def _cmd_tasks(args: argparse.Namespace) -> int:
    for name, (kind, _path) in sorted(our_tasks().items()):
        print(f"{name}\t{kind}" if args.verbose else name)
    return 0


def _cmd_tasks_dir(args: argparse.Namespace) -> int:
    if getattr(args, "harness", "lmms-eval") == "lm-eval":
        from temporal_tasks import lm_eval_tasks_dir

        print(lm_eval_tasks_dir())
    else:
        print(tasks_dir())
    return 0


def _cmd_fixtures(args: argparse.Namespace) -> int:
    from temporal_tasks.data.fixtures import write_fixtures

    written = write_fixtures(args.out, args.benchmark or None, full=args.full)
    for name, path in written.items():
        print(f"{name}\t{path}")
    return 0


_PHRASES = {
    "yes": ["Yes", "Yes.", "yes", "The answer is Yes."],
    "no": ["No", "No.", "no", "Answer: No"],
    "A": ["A", "A.", "(A)", "The answer is A."],
    "B": ["B", "B.", "(B)", "The answer is B."],
}


def demo_responses(docs: list[dict], seed: int = 0, accuracy: float = 0.75) -> list[dict]:
    """Replay lines that behave like a mediocre model: mostly right, some wrong, a few unreadable."""
    from temporal_tasks.answers.parsing import get_parser

    rng = random.Random(seed)
    lines = []
    for doc in docs:
        labels = get_parser(doc["parser"]).labels
        roll = rng.random()
        if roll < 0.04:
            text = rng.choice(["", "I cannot tell from the video.", "maybe"])
        else:
            label = doc["gold"] if roll < accuracy else rng.choice([x for x in labels if x != doc["gold"]])
            text = rng.choice(_PHRASES.get(label, [label]))
        lines.append({"question_id": doc["question_id"], "response": text})
    return lines


def write_demo_responses(
    path: Path, benchmarks: list[str], seed: int = 0, data_dir: Path | None = None, cache_dir: Path | None = None
) -> Path:
    """A replay file of simulated answers for every question of ``benchmarks``, whose offline copies are under
    ``data_dir`` (default: the settings' data folder, which must be set); archives are extracted into ``cache_dir``
    (default: the settings' cache folder).

    One set of answers per benchmark, over the questions of all its ``demo_tasks`` (each question once),
    written for each of those tasks: lines name their task, as question ids are unique within a benchmark,
    not across benchmarks.
    """
    from temporal_tasks.api.registry import get
    from temporal_tasks.tools.samples import docs_of_task

    with open(path, "w", encoding="utf-8") as fh:
        for bench in benchmarks:
            tasks = get(bench).demo_tasks
            docs: dict[str, dict] = {}
            for task in tasks:
                for doc in docs_of_task(task, data_dir, cache_dir):
                    docs.setdefault(doc["question_id"], doc)
            lines = demo_responses(list(docs.values()), seed=seed)
            for task in tasks:
                for line in lines:
                    fh.write(json.dumps({"task": task, **line}) + "\n")
    return path


def _cmd_demo(args: argparse.Namespace) -> int:
    from temporal_tasks.base import settings
    from temporal_tasks.data.fixtures import demo_tasks, write_fixtures

    work = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="temporal-tasks-demo-"))
    data_dir = work / "data"
    print(f"[demo] writing the synthetic fixture suite to {data_dir}", flush=True)
    written = write_fixtures(data_dir)
    cache_dir = settings.cache_dir(default=work / "cache")  # the environment's, else one beside the demo's data
    responses = work / "responses.jsonl"
    write_demo_responses(responses, list(written), seed=args.seed, data_dir=data_dir, cache_dir=cache_dir)
    tasks = args.tasks or ",".join(demo_tasks())
    cmd = [
        sys.executable, "-m", "lmms_eval", "--model", "temporal_replay", "--model_args", f"responses={responses}",
        "--tasks", tasks, "--batch_size", "1", "--output_path", str(work / "results"), "--log_samples",
        "--verbosity", "DEBUG" if args.debug else "INFO",
    ]  # fmt: skip
    env = settings.child_environment(
        {
            settings.ENV_DATA_DIR: str(data_dir),
            settings.ENV_CACHE_DIR: str(cache_dir),
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
        }
    )
    print(f"[demo] running: {' '.join(cmd)}", flush=True)
    proc = subprocess.run(cmd, env=env, capture_output=not args.debug, text=True)
    if proc.returncode != 0 or not list((work / "results").rglob("*_results.json")):
        if not args.debug:
            sys.stderr.write((proc.stdout or "")[-5000:] + (proc.stderr or "")[-5000:])
        print("[demo] lmms-eval failed (see above)", file=sys.stderr)
        return 1
    from temporal_tasks.tools.report import summary_table

    print(f"[demo] results and samples: {work / 'results'} (full tables: `temporal-tasks report DIR`)")
    # The last lines are the one-screen summary, not lmms-eval's long per-metric table.
    print(summary_table([work / "results"]))
    return 0


def _cmd_rescore(args: argparse.Namespace) -> int:
    from temporal_tasks.tools.rescore import format_table, rescore, write_results

    result = rescore(args.samples, args.parser, run=args.run)
    cfg = result["config"]
    print(f"rescored {cfg.get('run_note') or 'run ' + cfg['run']} (model: {cfg.get('model') or 'not recorded'})")
    print(format_table(result))
    if args.out:
        print(f"wrote {write_results(result, args.out)}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from temporal_tasks.tools.export import export

    for path in export(args.benchmark, args.samples, args.out):
        print(path)
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from temporal_tasks.tools.importer import import_answers, score, summary_lines

    record = import_answers(args.benchmark, args.files, args.out, num_frames=args.num_frames)
    for line in summary_lines(record):
        print(line)
    print(f"wrote {Path(args.out) / 'responses.jsonl'} and {Path(args.out) / 'import.json'}")
    if args.score:
        print(f"scored: {score(args.out, parser=args.parser)}")
    return 0


def _prebuildable() -> list[str]:
    from temporal_tasks.api.registry import registered

    return [name for name, spec in registered().items() if spec.prebuild is not None]


def _cmd_prebuild(args: argparse.Namespace) -> int:
    from temporal_tasks.api.registry import get

    for name in args.benchmark or _prebuildable():
        spec = get(name)
        paths = spec.required_hook("prebuild")(args.num_frames)
        print(f"{spec.title}: {len(paths)} prebuilt files ready")
    return 0


def _cmd_check_data(args: argparse.Namespace) -> int:
    from temporal_tasks.tools.check import main as check_main

    return check_main(args.benchmark, args.sample)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (kept separate for tests and docs)."""
    parser = argparse.ArgumentParser(prog="temporal-tasks", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("tasks", help="list our lmms-eval task and group names")
    p.add_argument("-v", "--verbose", action="store_true", help="also print whether each is a task or a group")
    p.set_defaults(func=_cmd_tasks)

    p = sub.add_parser("tasks-dir", help="print the task YAML directory (for --include_path)")
    p.add_argument(
        "--harness", choices=("lmms-eval", "lm-eval"), default="lmms-eval",
        help="lm-eval: the language-only tasks for EleutherAI lm-evaluation-harness",
    )  # fmt: skip
    p.set_defaults(func=_cmd_tasks_dir)

    p = sub.add_parser("fixtures", help="write the synthetic benchmark copies in their official layouts")
    p.add_argument("--out", required=True, help="folder to write into; use it as TEMPORAL_TASKS_DATA_DIR")
    p.add_argument("--benchmark", action="append", help="only this benchmark (repeatable)")
    p.add_argument("--full", action="store_true", help="at the real sizes (tiny videos): a full-size rehearsal")
    p.set_defaults(func=_cmd_fixtures)

    p = sub.add_parser("check-data", help="validate the benchmark copies in seconds (no model): run before a GPU job")
    p.add_argument("--benchmark", action="append", help="check this benchmark and fail if absent (repeatable)")
    p.add_argument("--sample", type=int, default=3, help="videos decoded per part (default 3)")
    p.set_defaults(func=_cmd_check_data)

    p = sub.add_parser("demo", help="run the fixture suite through the real lmms-eval CLI, offline")
    p.add_argument("--out", help="work folder (default: a new temporary folder)")
    p.add_argument("--tasks", help="comma-separated tasks (default: every task with a fixture)")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulated answers")
    p.add_argument("--debug", action="store_true", help="stream lmms-eval's output with --verbosity DEBUG")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("rescore", help="recompute every metric from lmms-eval --log_samples files, no model needed")
    p.add_argument("samples", nargs="+", help="*_samples_<task>.jsonl files or folders holding them")
    p.add_argument("--out", help="folder for rescored_results.json (lmms-eval's results format)")
    p.add_argument("--parser", choices=["robust", "official"], help="re-parse answers in this mode (default: as run)")
    p.add_argument("--run", help="which run, when the folders hold several: its stamp (e.g. 20261125_101010) or file")
    p.set_defaults(func=_cmd_rescore)

    p = sub.add_parser(
        "prebuild", help="build the derived videos a benchmark caches (e.g. paired videos) now, on all cores"
    )
    p.add_argument("--num-frames", type=int, help="N (default: TEMPORAL_TASKS_NUM_FRAMES or 32)")
    p.add_argument(
        "--benchmark", action="append", choices=_prebuildable(),
        help="only this benchmark (repeatable; default: every benchmark with something to prebuild)",
    )  # fmt: skip
    p.set_defaults(func=_cmd_prebuild)

    from temporal_tasks.tools.report import add_report_parser, add_summary_parser

    add_report_parser(sub)
    add_summary_parser(sub)

    from temporal_tasks.tools.compare import add_compare_parser

    add_compare_parser(sub)

    from temporal_tasks.tools.timeorder.tables import add_timeorder_parser

    add_timeorder_parser(sub)

    from temporal_tasks.tools.view import add_view_parser

    add_view_parser(sub)

    from temporal_tasks.tools.bench import add_bench_parser

    add_bench_parser(sub)

    from temporal_tasks.tools.export import EXPORTERS

    p = sub.add_parser("export", help="write a run's answers in a benchmark's official scorer format")
    p.add_argument("--benchmark", required=True, choices=sorted(EXPORTERS))
    p.add_argument("samples", nargs="+", help="*_samples_<task>.jsonl files or folders holding them")
    p.add_argument("--out", required=True, help="output folder")
    p.set_defaults(func=_cmd_export)

    from temporal_tasks.tools.importer import importers

    p = sub.add_parser("import", help="bring a benchmark's official answer files into a replay run (inverse of export)")
    p.add_argument("--benchmark", required=True, choices=sorted(importers()))
    p.add_argument("files", nargs="+", help="the answer files the official scripts (or `export`) wrote, or folders")
    p.add_argument("--out", required=True, help="output folder: responses.jsonl, import.json (and results/)")
    p.add_argument("--num-frames", type=int, help="the N the answers were made with, when known (else: unknown)")
    p.add_argument("--score", action="store_true", help="then run lmms-eval (temporal_replay) on them: OUT/results")
    p.add_argument("--parser", choices=["robust", "official"], help="the answer reading of --score (default: robust)")
    p.set_defaults(func=_cmd_import)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``temporal-tasks`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except Exception as exc:
        from temporal_tasks.data.sources import DataError

        if isinstance(exc, DataError | ValueError | FileNotFoundError):
            print(f"temporal-tasks: error: {exc}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
