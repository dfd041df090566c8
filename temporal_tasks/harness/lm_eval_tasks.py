"""The language-only (blind) controls as EleutherAI lm-evaluation-harness tasks.

Video cannot run under lm-eval, but the text-only rows of the papers (VELOCITI's Qwen2 LLM,
TemporalBench's text-only LLMs, Vinoground's 0-frame row) can. Each lm-eval task here is the
lmms-eval task of the same name with the video left out: same data layer (the main task's
``process_docs``), same prompt (``pre_prompt``/``post_prompt`` of its ``lmms_eval_specific_kwargs``
baked into the ``lm_eval_text`` field), same ``process_results`` and aggregations, so the same
metric keys. Only the task files differ, and they are generated from the lmms-eval configs
(:func:`render_yaml`; ``python -m temporal_tasks.harness.lm_eval_tasks`` rewrites them, a test checks
they are current). lm-eval's ``!function m.f`` loads ``m.py`` from the YAML's folder, so that
folder holds shims per benchmark re-exporting this module, the benchmark module and its aggregations
(:func:`render_shim`, also generated). The tasks are the ``blind`` variants the benchmark specs declare.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from temporal_tasks import lm_eval_tasks_dir
from temporal_tasks.api.registry import get, registered
from temporal_tasks.data.sources import language_only
from temporal_tasks.harness.doc_hooks import doc_to_text
from temporal_tasks.harness.task_configs import load_task_yaml, our_tasks, resolve_function
from temporal_tasks.scoring import aggregations

# lm-eval task -> its benchmark (the shim file's name): the blind variant of each benchmark's main task.
BLIND_TASKS: dict[str, str] = {spec.blind: name for name, spec in registered().items() if spec.blind}
PACKAGE = "temporal_tasks."
GEN_KWARGS_MAP = {"max_new_tokens": "max_gen_toks"}  # lmms-eval's generation keys -> lm-eval's

__all__ = ["BLIND_TASKS", "blind_docs", "render_yaml", "write_yamls", *(f"{t}_dataset" for t in BLIND_TASKS)]


def _config(task: str) -> dict:
    return load_task_yaml(Path(our_tasks()[task][1]))


def blind_docs(task: str) -> list[dict]:
    """The docs of lmms-eval task ``task`` with no video and the full prompt in ``lm_eval_text``."""
    cfg = _config(task)
    kwargs = (cfg.get("lmms_eval_specific_kwargs") or {}).get("default") or {}
    with language_only():  # the annotation files only: no video is downloaded, extracted or checked
        dataset = resolve_function(cfg["process_docs"], f"{task}'s process_docs")(None)
    docs = []
    for doc in dataset:
        doc = dict(doc)
        doc["videos"] = []
        doc["lm_eval_text"] = doc_to_text(doc, kwargs)
        docs.append(doc)
    return docs


def _dataset_fn(task: str) -> Callable:
    def load(**_metadata):  # lm-eval passes the task metadata and dataset_kwargs; nothing here needs them
        import datasets

        return datasets.DatasetDict({"test": datasets.Dataset.from_list(blind_docs(task))})

    load.__name__ = load.__qualname__ = f"{task}_dataset"
    load.__doc__ = f"lm-eval ``custom_dataset`` of {task}: the validated docs, language only."
    return load


for _task in BLIND_TASKS:
    globals()[f"{_task}_dataset"] = _dataset_fn(_task)


def _fn(ref, shim: str) -> str:
    name = ref[1]
    if not name.startswith((PACKAGE, get(shim).package + ".")):
        raise ValueError(f"{name}: only functions of the temporal_tasks package or of {shim}'s can be shimmed")
    return f"!function {shim}.{name.rsplit('.', 1)[1]}"


def render_shim(benchmark: str) -> str:
    """The shim ``<benchmark>.py`` lm-eval's ``!function`` loads: this module, the benchmark's modules that hold
    its blind task's ``process_results``, and its aggregations by name (sorted, as ruff orders imports)."""
    spec = get(benchmark)
    if spec.blind is None:
        raise ValueError(
            f"{benchmark}: declares no shortcut analyses (shortcut_main), so it has no blind task to shim."
        )
    cfg = _config(spec.blind)
    refs = [cfg["process_results"], *(m["aggregation"] for m in cfg["metric_list"])]
    own = {ref[1].rpartition(".")[0] for ref in refs if ref[1].startswith(spec.package + ".")}
    named = sorted({ref[1].rpartition(".")[2] for ref in refs if ref[1].rpartition(".")[0] == aggregations.__name__})
    lines = [
        f"# lm-eval loads `!function {benchmark}.<name>` from this file: re-export the package's functions "
        "(no logic here).",
        *(f"from {module} import *  # noqa: F403" for module in sorted({*own, "temporal_tasks.harness.lm_eval_tasks"})),
        *(
            [f"from {aggregations.__name__} import (", *(f"    {n},  # noqa: F401" for n in named), ")"]
            if named
            else []
        ),
    ]
    return "\n".join(lines) + "\n"


def render_yaml(task: str) -> str:
    """The lm-eval YAML of ``task``, from its lmms-eval config (metric list, generation settings)."""
    shim = BLIND_TASKS[task]
    cfg = _config(task)
    gen = {GEN_KWARGS_MAP.get(k, k): v for k, v in (cfg.get("generation_kwargs") or {}).items()}
    gen.setdefault("until", ["\n\n"])
    lines = [
        f"# Generated by `python -m temporal_tasks.harness.lm_eval_tasks` from the lmms-eval task {task}: do not edit.",
        "# Language only: the lmms-eval task's docs, prompt, parser and aggregations, with no video.",
        f"task: {task}",
        f"custom_dataset: !function {shim}.{task}_dataset",
        "test_split: test",
        "output_type: generate_until",
        "doc_to_text: lm_eval_text",
        "doc_to_target: gold",
        f"process_results: {_fn(cfg['process_results'], shim)}",
        "generation_kwargs:",
        *(f"  {k}: {_scalar(v)}" for k, v in gen.items()),
        "metric_list:",
    ]
    for m in cfg["metric_list"]:
        agg, better = _fn(m["aggregation"], shim), _scalar(m["higher_is_better"])
        lines.append(f"  - {{metric: {m['metric']}, aggregation: {agg}, higher_is_better: {better}}}")
    lines += ["metadata:", "  version: 1.0", ""]
    return "\n".join(lines)


def _scalar(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    return json.dumps(v)


def write_yamls(directory: str | Path | None = None) -> list[Path]:
    """(Re)write the lm-eval YAMLs and shims of every :data:`BLIND_TASKS` entry; returns their paths."""
    directory = Path(directory or lm_eval_tasks_dir())
    out = []
    for task, shim in BLIND_TASKS.items():
        for path, text in (
            (directory / f"{task}.yaml", render_yaml(task)),
            (directory / f"{shim}.py", render_shim(shim)),
        ):
            path.write_text(text, encoding="utf-8")
            out.append(path)
    return out


if __name__ == "__main__":
    for p in write_yamls():
        print(p)
