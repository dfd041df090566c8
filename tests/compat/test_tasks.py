"""Contract tests of ``compat/tasks.py``: lmms-eval's task manager and include merge, and the wrapped evaluation
entry points."""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from types import SimpleNamespace

from temporal_tasks import compat
from tests.helpers.compat import LMMS_EVAL_CHANGED


def test_contract_task_manager_takes_include_path_and_earlier_directories_win():
    import lmms_eval.tasks as lt

    original = inspect.unwrap(lt.TaskManager.initialize_tasks)
    params = list(inspect.signature(original).parameters)
    assert params == ["self", "include_path", "include_defaults"], (
        f"{LMMS_EVAL_CHANGED}: TaskManager.initialize_tasks{inspect.signature(original)} is no longer "
        "(self, include_path=None, include_defaults=True) (compat.patch_task_manager)"
    )

    class Manager:  # lmms-eval indexes each folder with _get_task_and_group, then merges
        def _get_task_and_group(self, task_dir):
            return {"clash": {"dir": task_dir}, task_dir: {"dir": task_dir}}

    index = original(Manager(), include_path=["/first", "/second"], include_defaults=False)
    assert index["clash"]["dir"] == "/first", f"{LMMS_EVAL_CHANGED}: earlier include_path folders no longer win"
    assert set(original(Manager(), include_path="/one", include_defaults=False)) == {"clash", "/one"}, (
        f"{LMMS_EVAL_CHANGED}: include_path given as one string is no longer accepted"
    )
    index = original(Manager(), include_path=["/ours"], include_defaults=True)
    assert index["clash"]["dir"] != "/ours", f"{LMMS_EVAL_CHANGED}: a built-in task no longer wins over an include"
    assert getattr(lt.TaskManager, "_temporal_tasks_patched", False), "compat.patch_task_manager is not installed"


def test_patch_task_manager_appends_our_dirs_last_once():
    calls = []

    class TaskManager:
        def initialize_tasks(self, include_path=None, include_defaults=True):
            calls.append((include_path, include_defaults))

    module = type("Module", (), {"TaskManager": TaskManager})
    assert compat.patch_task_manager(module, lambda: [os.path.realpath("/ours"), os.path.realpath("/theirs")])
    assert not compat.patch_task_manager(module, lambda: ["/again"])  # idempotent
    TaskManager().initialize_tasks()
    TaskManager().initialize_tasks(include_path="/user", include_defaults=False)
    TaskManager().initialize_tasks(include_path=["/user", "/ours"])
    ours, theirs = os.path.realpath("/ours"), os.path.realpath("/theirs")
    assert calls == [([ours, theirs], True), (["/user", ours, theirs], False), (["/user", "/ours", theirs], True)]


def _same(ours, theirs) -> bool:
    """Equal, where our ``("!function", name)`` stands for whatever lmms-eval made of that tag."""
    if isinstance(ours, tuple) and len(ours) == 2 and ours[0] == "!function":
        return True
    if isinstance(ours, dict):
        return isinstance(theirs, dict) and set(ours) == set(theirs) and all(_same(ours[k], theirs[k]) for k in ours)
    if isinstance(ours, list):
        return isinstance(theirs, list) and len(ours) == len(theirs) and all(map(_same, ours, theirs))
    return ours == theirs


def test_contract_include_merge_matches_lmms_eval(tmp_path):
    from lmms_eval.utils import load_yaml_config

    from temporal_tasks.harness.task_configs import load_task_yaml, our_tasks

    paths = sorted({Path(path) for _kind, path in our_tasks().values() if "include:" in Path(path).read_text()})
    assert len(paths) >= 4
    for path in paths:
        ours, theirs = load_task_yaml(path), load_yaml_config(str(path), mode="simple")
        # lmms-eval also resolves a local dataset's data_files against the YAML's folder: not the merge
        files = [cfg.get("dataset_kwargs", {}).pop("data_files", None) for cfg in (ours, theirs)]
        names = [None if f is None else {k: Path(v).name for k, v in f.items()} for f in files]
        assert names[0] == names[1], f"{LMMS_EVAL_CHANGED}: its include merge of {path} gives data_files {files}"
        assert set(ours) == set(theirs), (
            f"{LMMS_EVAL_CHANGED}: its include merge of {path} gives keys {sorted(set(theirs) ^ set(ours))} "
            "differently (compat.merge_includes)"
        )
        assert _same(ours, theirs), f"{LMMS_EVAL_CHANGED}: its include merge of {path} gives other values"
    # several includes: the file's own keys win, then the first include
    (tmp_path / "a.yaml").write_text("x: 1\ny: 1\n")
    (tmp_path / "b.yaml").write_text("x: 2\nz: 2\ny: 2\n")
    (tmp_path / "main.yaml").write_text("include: [a.yaml, b.yaml]\ny: 0\nf: !function m.f\n")
    theirs = load_yaml_config(str(tmp_path / "main.yaml"), mode="simple")
    ours = load_task_yaml(tmp_path / "main.yaml")
    assert {k: v for k, v in theirs.items() if k != "f"} == {"x": 1, "y": 0, "z": 2}, (
        f"{LMMS_EVAL_CHANGED}: the order of several includes changed: {theirs} (compat.merge_includes)"
    )
    assert ours == {"x": 1, "y": 0, "z": 2, "f": ("!function", "m.f")}


def test_entry_points_start_an_evaluation_once_and_evaluate_keeps_what_its_tasks_deferred():

    from temporal_tasks.compat import wrap_evaluation_entry_points

    calls: list[str] = []
    module = SimpleNamespace()

    def evaluate(lm=None, task_dict=None):
        calls.append("evaluate")

    def simple_evaluate(model=None, model_args=None):
        calls.append("simple_evaluate")
        module.evaluate()  # as lmms-eval's simple_evaluate calls the module's evaluate

    module.simple_evaluate, module.evaluate = simple_evaluate, evaluate
    assert wrap_evaluation_entry_points(module, lambda: calls.append("start"), lambda: calls.append("continue"))
    assert not wrap_evaluation_entry_points(module, lambda: calls.append("again"))  # idempotent
    module.simple_evaluate()
    assert calls == ["start", "simple_evaluate", "evaluate"]  # evaluate inside simple_evaluate starts nothing
    calls.clear()
    module.evaluate()
    assert calls == ["continue", "evaluate"]  # a script's own evaluate(lm, task_dict)


def test_contract_our_placeholder_split_resolves_from_any_working_directory(tmp_path, monkeypatch):
    """lmms-eval (from 0.7.3, with compat.resolve_data_files before) hands ``datasets`` our placeholder split as an
    absolute path: a relative one is looked up in the working directory, where it is not."""
    import lmms_eval.tasks  # noqa: F401 - the import hook patches lmms-eval's utils as this module loads
    from lmms_eval import utils

    from temporal_tasks import tasks_dir

    monkeypatch.chdir(tmp_path)
    leaf = next(Path(tasks_dir()).glob("timeblind/*.yaml"))
    files = utils.load_yaml_config(yaml_path=str(leaf), mode="simple")["dataset_kwargs"]["data_files"]
    assert list(files) == ["test"] and os.path.isabs(files["test"]), (
        f"{LMMS_EVAL_CHANGED}: our placeholder split is no longer resolved against its YAML's folder "
        "(compat.resolve_data_files)"
    )
    assert os.path.realpath(files["test"]) == os.path.join(os.path.realpath(tasks_dir()), "_placeholder.jsonl")


def _load_like_070(yaml_path=None, yaml_config=None, yaml_dir=None, mode="full"):
    """lmms-eval 0.7.0's ``utils.load_yaml_config`` in short: the YAML's keys, relative ``data_files`` left alone."""
    if yaml_config is not None:
        return dict(yaml_config)
    files = {"test": "_placeholder.jsonl", "other": "missing.jsonl", "url": "https://x/y.jsonl"}
    return {"dataset_path": "json", "dataset_kwargs": {"data_files": files}}


def test_resolve_data_files_only_where_lmms_eval_does_not(tmp_path):
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    for folder in (ours, theirs):
        (folder / "sub").mkdir(parents=True)
        (folder / "_placeholder.jsonl").write_text("{}\n")
        (folder / "sub" / "_placeholder.jsonl").write_text("{}\n")
    utils = SimpleNamespace(load_yaml_config=_load_like_070)
    assert not compat.resolves_data_files(_load_like_070, str(ours), "_placeholder.jsonl")
    assert compat.resolve_data_files(utils, lambda: [str(ours)], "_placeholder.jsonl")
    assert not compat.resolve_data_files(utils, lambda: [str(ours)], "_placeholder.jsonl")  # idempotent
    assert compat.resolves_data_files(utils.load_yaml_config, str(ours), "_placeholder.jsonl")
    files = utils.load_yaml_config(yaml_path=str(ours / "sub" / "leaf.yaml"))["dataset_kwargs"]["data_files"]
    # an existing relative file of our folder becomes absolute; a missing file and a URL stay as written
    assert files == {"test": str(ours / "sub" / "_placeholder.jsonl"), "other": "missing.jsonl",
                     "url": "https://x/y.jsonl"}  # fmt: skip
    files = utils.load_yaml_config(yaml_path=str(theirs / "leaf.yaml"))["dataset_kwargs"]["data_files"]
    assert files["test"] == "_placeholder.jsonl"  # another package's or lmms-eval's own task: untouched

    resolving = SimpleNamespace(load_yaml_config=lambda **kw: {"dataset_kwargs": {"data_files": {"test": "/abs"}}})
    assert not compat.resolve_data_files(resolving, lambda: [str(ours)], "_placeholder.jsonl")  # 0.7.3: nothing to do
