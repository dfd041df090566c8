"""The language-only controls under EleutherAI lm-evaluation-harness (``harness/lm_eval_tasks.py``,
``tasks_lm_eval/``): generated YAMLs and shims, blind docs."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

import temporal_tasks
from temporal_tasks.api.registry import registered
from temporal_tasks.benchmarks.timeblind import tasks as timeblind
from temporal_tasks.harness import lm_eval_tasks
from temporal_tasks.harness.doc_hooks import doc_to_text
from temporal_tasks.harness.task_configs import our_tasks, task_config
from temporal_tasks.scoring.aggregations import functions

pytest.importorskip("lm_eval")

timeblind_agg = SimpleNamespace(**functions("timeblind"))


def test_yamls_are_generated_from_the_lmms_eval_configs():
    folder = Path(temporal_tasks.lm_eval_tasks_dir())
    assert {p.stem for p in folder.glob("*.yaml")} == set(lm_eval_tasks.BLIND_TASKS)
    for task, shim in lm_eval_tasks.BLIND_TASKS.items():
        text = (folder / f"{task}.yaml").read_text(encoding="utf-8")
        assert text == lm_eval_tasks.render_yaml(task), (
            f"{task}.yaml is stale: python -m temporal_tasks.harness.lm_eval_tasks"
        )
        # same metric keys as the lmms-eval task of the same name
        keys = [line.split("metric: ", 1)[1].split(",", 1)[0] for line in text.splitlines() if "{metric: " in line]
        assert keys == [m["metric"] for m in task_config(task)["metric_list"]]
        assert (folder / f"{shim}.py").read_text(encoding="utf-8") == lm_eval_tasks.render_shim(shim), "stale shim"
        namespace = _shim(shim)
        missing = [
            f for f in re.findall(rf"!function {shim}\.(\w+)", text) if not callable(getattr(namespace, f, None))
        ]
        assert not missing, f"{task}.yaml names functions its shim lacks: {missing}"
    # one per benchmark spec declaring a blind variant
    assert lm_eval_tasks.BLIND_TASKS == {s.blind: n for n, s in registered().items() if s.blind}
    assert len(lm_eval_tasks.BLIND_TASKS) == 4
    # lm-eval's folder is not under the lmms-eval task tree (lmms-eval would index it)
    assert Path(temporal_tasks.tasks_dir()) not in folder.parents
    assert not set(lm_eval_tasks.BLIND_TASKS) - set(our_tasks())


def _shim(name: str):
    # the shim's namespace, as lm-eval's import_function builds it (a module executed from the file)
    import importlib.util

    path = Path(temporal_tasks.lm_eval_tasks_dir()) / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shim_reexports_the_package_functions():
    module = _shim("timeblind")
    assert module.timeblind__instance_acc is timeblind_agg.instance_acc
    assert module.process_results is timeblind.process_results
    assert module.timeblind_iacc_blind_dataset is lm_eval_tasks.timeblind_iacc_blind_dataset


def test_blind_docs_have_no_video_and_the_lmms_eval_prompt(offline_env):
    docs = lm_eval_tasks.blind_docs("vinoground_text_blind")
    assert docs and all(d["videos"] == [] for d in docs)
    post = task_config("vinoground_text_blind")["lmms_eval_specific_kwargs"]["default"]["post_prompt"]
    assert all(d["lm_eval_text"] == d["prompt"] + post for d in docs)
    tb = lm_eval_tasks.blind_docs("timeblind_iacc_blind")
    assert [d["question_id"] for d in tb] == [d["question_id"] for d in timeblind.load_docs()]
    assert all(d["lm_eval_text"] == doc_to_text(d) and not d["videos"] for d in tb)
    ds = lm_eval_tasks.timeblind_iacc_blind_dataset(version=1.0)
    assert list(ds) == ["test"] and len(ds["test"]) == len(tb)
