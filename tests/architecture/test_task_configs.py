"""Every task as lmms-eval resolves it: no name taken by lmms-eval's own tasks, the resolved configuration equal to
the reviewed snapshot (``task_configs.json`` here), thin leaves on templates, every function target a named
attribute.

After an intended change: ``TEMPORAL_TASKS_UPDATE_SNAPSHOT=1 python -m pytest tests/architecture/test_task_configs.py``
and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import temporal_tasks
from temporal_tasks import tasks_dir
from temporal_tasks.harness.task_configs import our_tasks
from temporal_tasks.scoring.metric_lists import HEADER


def _names_in(task_manager, directory: str) -> set[str]:
    index = task_manager._get_task_and_group(directory)
    return set(index)


def test_no_name_collides_with_lmms_eval_builtins():
    import lmms_eval.tasks as lt

    tm = lt.TaskManager.__new__(lt.TaskManager)  # only the directory indexer is needed
    tm.verbosity, tm.include_path, tm.model_name = "ERROR", None, None
    tm.logger = lt.eval_logger
    builtin = _names_in(tm, os.path.dirname(os.path.abspath(lt.__file__)) + "/")
    ours = _names_in(tm, temporal_tasks.tasks_dir())
    assert "vinoground" in builtin and "temporalbench" in builtin  # the index really holds the built-ins
    assert ours >= set(our_tasks())  # tags included
    assert not ours & builtin, f"task/group/tag names taken by lmms-eval: {sorted(ours & builtin)}"


SNAPSHOT = Path(__file__).parent / "task_configs.json"  # the resolved configuration of every task, reviewed


def _normal(value, root: str):
    """JSON-able form: callables by import path, our absolute paths relative to the task folder."""
    if callable(value):  # a function, or a metric key's aggregation (its repr names its import path)
        qualname = getattr(value, "__qualname__", None)
        return f"<function {value.__module__}.{qualname}>" if qualname else repr(value)
    if isinstance(value, dict):
        return {str(k): _normal(v, root) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, list | tuple):
        return [_normal(v, root) for v in value]
    if isinstance(value, str) and value.startswith(root):
        return "<tasks>" + value[len(root) :]
    return value


def resolved_configs() -> dict[str, dict]:
    """Every task and group of ours, resolved by lmms-eval (includes merged, ``!function`` imported)."""
    from lmms_eval.tasks import TaskManager

    root = os.path.realpath(tasks_dir())
    manager = TaskManager("ERROR", include_path=root)
    out = {}
    for name in sorted(our_tasks()):
        cfg = manager._get_config(name)
        # data_files are resolved against the YAML's folder: compare them relative to our tree
        out[name] = _normal({k: v for k, v in cfg.items() if k != "include"}, root)
    return out


def test_resolved_task_configs_match_snapshot():
    current = resolved_configs()
    if os.environ.get("TEMPORAL_TASKS_UPDATE_SNAPSHOT") == "1":
        SNAPSHOT.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        pytest.skip("snapshot rewritten")
    recorded = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert sorted(current) == sorted(recorded), "task names changed"
    for name in recorded:
        assert current[name] == recorded[name], f"resolved config of {name} changed"


def test_task_tree_is_thin_leaves_on_templates():
    root = Path(tasks_dir())
    files = [p for p in root.rglob("*") if p.is_file() and (p.suffix == ".yaml" or p.name.endswith("_yaml"))]
    assert any(p.name == "_default_template_yaml" for p in files)
    # Hand-written lines only: the generated metric lists (temporal_tasks.metric_lists) are not counted.
    assert sum(len(_hand_written(p.read_text(encoding="utf-8"))) for p in files) <= 700
    for name, (kind, path) in our_tasks().items():
        if kind == "task":
            assert "\ninclude: " in Path(path).read_text(encoding="utf-8"), f"{name} does not use a template"


def _hand_written(text: str) -> list[str]:
    """The YAML's lines without its generated metric list."""
    lines = text.splitlines()
    if HEADER not in lines:
        return lines
    start = lines.index(HEADER) - 1  # the "metric_list:" line
    end = start + 1
    while end < len(lines) and lines[end].startswith("  "):
        end += 1
    return lines[:start] + lines[end:]


def test_every_function_target_is_a_named_module_attribute():
    """Every ``!function`` of our YAML names a module attribute spelled out in that module's source (greppable; a
    hook the kit re-exports: in the module that defines it), or a metric key's aggregation, whose key is spelled out
    where the benchmark declares it."""
    import importlib
    import re

    from temporal_tasks.api.registry import get
    from temporal_tasks.scoring import aggregations
    from temporal_tasks.scoring.metric_lists import entries

    refs = set()
    for path in Path(tasks_dir()).rglob("*"):
        if path.is_file() and (path.suffix == ".yaml" or path.name.endswith("_yaml")):
            refs |= set(re.findall(r"!function ([\w.]+)", path.read_text(encoding="utf-8")))
    assert len(refs) > 100
    for ref in sorted(refs):
        module_name, _, name = ref.rpartition(".")
        module = importlib.import_module(module_name)
        assert callable(getattr(module, name, None)), ref
        if module is aggregations:
            benchmark, _, function = name.partition("__")
            assert getattr(module, name).name == function
            lists = get(benchmark).metric_lists
            declared = {e.aggregation for ml in lists for e in entries(ml) if not isinstance(e, str)}
            assert function in declared, ref
            continue
        # the kit re-exports the YAML-facing hooks (a public name of its __all__); each is defined where it lives
        home = importlib.import_module(getattr(module, name).__module__)
        if home is not module:
            assert name in module.__all__, f"{ref}: {module_name} re-exports it without listing it in __all__"
        source = Path(home.__file__).read_text(encoding="utf-8")
        assert re.search(rf"^(def |class )?{name}\b", source, re.M), f"{ref} is not defined by name in {home.__file__}"
