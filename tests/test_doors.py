"""Every way people run lmms-eval gives the right number or a clear error (issue 24).

Contract tests of :mod:`temporal_tasks.compat` (each lmms-eval internal we rely on), N from the model
instance, scored = selected, one run per results set, and (slow) the Python API and stale-cache runs.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from temporal_tasks import cli, compat, run_context, video
from temporal_tasks.data import DataError
from temporal_tasks.rescore import rescore
from temporal_tasks.run_state import STATE
from temporal_tasks.runs import choose_run, find_runs, read_samples

LMMS_EVAL_CHANGED = "lmms-eval changed: temporal_tasks/compat/ relies on this; re-check it against the new version"


# ----------------------------------------------------------------------------- compat contracts


def _locals_of(fn) -> set[str]:
    code = inspect.unwrap(fn).__code__
    return {*code.co_varnames, *code.co_cellvars}  # a closure's variables are cells, still in f_locals


def test_contract_evaluation_frames_hold_the_model_and_the_selection():
    from lmms_eval import evaluator

    simple = _locals_of(evaluator.simple_evaluate)
    assert {"model", "model_args", "lm", "limit", "offset", "num_fewshot", "baseline"} <= simple, LMMS_EVAL_CHANGED
    assert {"lm", "task_dict", "limit", "offset"} <= _locals_of(evaluator.evaluate), LMMS_EVAL_CHANGED
    assert inspect.unwrap(evaluator.evaluate).__module__ == compat.EVALUATOR_MODULE, LMMS_EVAL_CHANGED
    src = inspect.getsource(inspect.unwrap(evaluator.simple_evaluate))
    # the model is built before the tasks (process_docs), so the stack has it when N is resolved
    assert src.index("lm = model") < src.index("get_task_dict(tasks"), LMMS_EVAL_CHANGED
    assert "limit = get_sample_size(task, limit)" in inspect.getsource(inspect.unwrap(evaluator.evaluate))


def test_contract_config_entries_and_their_env():
    from lmms_eval import __main__ as main

    src = inspect.getsource(main.cli_evaluate)
    assert "args_list" in _locals_of(main.cli_evaluate), LMMS_EVAL_CHANGED
    # every entry's env is exported before the first entry runs (why differing entries are an error)
    assert src.index('config.pop("env", None)') < src.index("for args in args_list:"), LMMS_EVAL_CHANGED


def test_contract_aggregations_run_in_task_output_with_gathered_payloads():
    from lmms_eval.evaluator_utils import TaskOutput

    fn = TaskOutput.calculate_aggregate_metric
    assert fn.__name__ == "calculate_aggregate_metric" and "self" in fn.__code__.co_varnames, LMMS_EVAL_CHANGED
    src = inspect.getsource(fn)
    assert "self.sample_metrics" in src and "agg_fn(items" in src, LMMS_EVAL_CHANGED
    assert "self.task" in src, LMMS_EVAL_CHANGED


def test_contract_aggregations_know_their_task_name_and_generation_kwargs():
    # compat.aggregating_task (for truncated_rate's warning) reads self.task_name and
    # self.task.config.generation_kwargs of the TaskOutput that calls the aggregation.
    from lmms_eval.evaluator_utils import TaskOutput

    src = inspect.getsource(TaskOutput)
    assert "self.task_name" in src, LMMS_EVAL_CHANGED
    from lmms_eval.api.task import TaskConfig

    assert "generation_kwargs" in TaskConfig.__dataclass_fields__, LMMS_EVAL_CHANGED


def test_aggregating_task_outside_lmms_eval_is_named_generically():
    from temporal_tasks.compat import aggregating_task

    assert aggregating_task() == ("this task", None)


def test_contract_video_models_keep_their_frame_count_as_an_attribute():
    from lmms_eval.models.simple import llava_onevision, qwen2_5_vl

    assert "self.max_num_frames = max_num_frames" in inspect.getsource(qwen2_5_vl), LMMS_EVAL_CHANGED
    assert "self.max_frames_num = max_frames_num" in inspect.getsource(llava_onevision), LMMS_EVAL_CHANGED


def test_contract_request_cache_is_keyed_without_the_data_and_its_folder_can_be_moved():
    from lmms_eval.api.task import Task
    from lmms_eval.caching import cache

    src = inspect.getsource(Task.build_all_requests)
    # why scored = selected is checked: the key names the task, shots, rank and world size, not the data
    assert 'f"requests-{self._config.task}-{self.config.num_fewshot}shot-rank{rank}-world_size{world_size}"' in src
    assert "instances[:og_limit]" in src, LMMS_EVAL_CHANGED  # --limit 0 builds no request (rank_share)
    assert "LM_HARNESS_CACHE_PATH" in inspect.getsource(cache), LMMS_EVAL_CHANGED


def test_contract_request_cache_hit_loses_doc_to_visual_and_we_restore_it():
    import lmms_eval.tasks  # noqa: F401 - our import hook patches on this import
    from lmms_eval.api.task import Task

    src = inspect.getsource(inspect.unwrap(Task.build_all_requests))
    # the hit returns before the FIXME that restores doc_to_visual; if lmms-eval fixes it, drop our patch
    assert src.index("self._instances = flattened_instances\n            return") < src.index("FIXME"), (
        LMMS_EVAL_CHANGED
    )
    patched = getattr(Task.build_all_requests, compat.stack._PATCHED, False)
    assert patched, "compat.restore_cached_visuals is not installed"


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


def test_contract_process_docs_runs_in_download_of_a_task_with_config_metadata():
    from lmms_eval.api.task import ConfigurableTask, TaskConfig

    download = inspect.unwrap(ConfigurableTask.download)
    assert download.__code__.co_name == "download" and "self" in download.__code__.co_varnames, (
        f"{LMMS_EVAL_CHANGED}: ConfigurableTask.download was renamed (compat.building_task_config looks for it)"
    )
    assert "self.config.process_docs(" in inspect.getsource(download), (
        f"{LMMS_EVAL_CHANGED}: ConfigurableTask.download no longer calls process_docs"
    )
    assert "self._config = TaskConfig(" in inspect.getsource(ConfigurableTask.__init__), (
        f"{LMMS_EVAL_CHANGED}: a task no longer keeps its config as self._config"
    )
    fields = TaskConfig.__dataclass_fields__
    assert {"task", "metadata"} <= set(fields), f"{LMMS_EVAL_CHANGED}: TaskConfig has no task/metadata field"
    assert "self.config.to_dict()" in inspect.getsource(ConfigurableTask.dump_config), (
        f"{LMMS_EVAL_CHANGED}: dump_config no longer writes the whole config (metadata.provenance) to the results"
    )

    class Task:  # a task's download frame, as compat finds it
        def __init__(self) -> None:
            self._config = TaskConfig(task="t", metadata={"version": 1})

        def download(self):
            return compat.building_task_config()

    task = Task()
    config = task.download()
    assert config is task._config and compat.task_config_name(config) == "t"
    compat.add_task_metadata(config, "provenance", {"x": 1})
    assert config.to_dict()["metadata"] == {"version": 1, "provenance": {"x": 1}}
    assert compat.building_task_config() is None  # not inside a task build


def test_contract_cli_knows_the_flags_we_read(monkeypatch):
    from lmms_eval.__main__ import parse_eval_args

    values = {"model_args": "max_num_frames=8", "limit": "0.5", "offset": "3", "num_fewshot": "0", "baseline": "b"}
    argv = ["lmms-eval", "--model", "m", "--tasks", "t"]
    for name, value in values.items():
        argv += [compat.CLI_FLAGS[name], value]
    monkeypatch.setattr(sys, "argv", argv)
    try:
        _parser, args = parse_eval_args()
    except SystemExit as exc:
        pytest.fail(f"{LMMS_EVAL_CHANGED}: its CLI rejects one of {sorted(compat.CLI_FLAGS.values())} ({exc})")
    for name, value in values.items():
        parsed = getattr(args, name, None)
        same = parsed == value if name in ("model_args", "baseline") else float(parsed) == float(value)
        assert same, f"{LMMS_EVAL_CHANGED}: {compat.CLI_FLAGS[name]} {value} now parses as {parsed!r}"
        assert compat.command_line_setting(argv, name) == value
        assert compat.command_line_setting([f"{compat.CLI_FLAGS[name]}={value}"], name) == value


def test_contract_sharding_matches_lmms_eval():
    from lmms_eval.api.task import Task
    from lmms_eval.evaluator_utils import get_sample_size
    from lmms_eval.utils import create_iterator

    assert "instances[:og_limit]" in inspect.getsource(Task.build_all_requests), (
        f"{LMMS_EVAL_CHANGED}: build_all_requests no longer cuts the rank's requests to the limit"
    )
    docs = list(range(23))
    fake = type("FakeTask", (), {"eval_docs": docs})
    for world in (1, 2, 3):
        for limit in (None, 0, -1, 5, 0.3, 100):
            for offset in (0, 3):
                n = get_sample_size(fake, limit)
                for rank in range(world):
                    expected = list(
                        create_iterator(iter(docs), rank=rank, world_size=world, limit=n or None, offset=offset)
                    )[:n]
                    assert compat.shard(docs, limit, offset, rank, world) == expected, (
                        f"{LMMS_EVAL_CHANGED}: its sharding of docs over ranks changed (world {world}, "
                        f"limit {limit}, offset {offset}, rank {rank}: compat.shard)"
                    )


def _constructed(output_type: str, **extra):
    from lmms_eval.api.task import ConfigurableTask

    def doc_to_visual(doc):
        return ["video.mp4"]

    config = SimpleNamespace(
        task="t",
        generation_kwargs={"max_new_tokens": 7},
        target_delimiter=" ",
        doc_to_text=lambda doc, lmms_eval_specific_kwargs=None: "q",
    )
    task = SimpleNamespace(
        OUTPUT_TYPE=output_type,
        config=config,
        doc_to_visual=doc_to_visual,
        doc_to_target=lambda doc: "Yes",
        doc_to_choice=lambda doc: ["Yes", "No"],
        dataset={"test": {4: {}}},
        multiple_input=False,
        _metric_fn_list={},
        lmms_eval_specific_kwargs=None,
        **extra,
    )
    metadata = {"task": "t", "doc_id": 4, "repeats": 1, "split": "test"}
    return ConfigurableTask.construct_requests(task, 4, "the prompt", metadata=metadata), doc_to_visual


def test_contract_requests_carry_their_arguments_in_order():
    req, visual = _constructed("generate_until")
    try:
        context, gen_kwargs, doc_to_visual, doc_id, task, split = compat.generate_args(req)
    except ValueError as exc:
        pytest.fail(f"{LMMS_EVAL_CHANGED}: generate_until arguments are no longer 6 ({exc}; compat.generate_args)")
    assert (context, gen_kwargs, doc_to_visual, doc_id, task, split) == (
        "the prompt",
        {"max_new_tokens": 7},
        visual,
        4,
        "t",
        "test",
    ), f"{LMMS_EVAL_CHANGED}: generate_until arguments changed order: {req.args}"
    assert compat.request_context(req) == "the prompt" and compat.request_visuals(req) is visual
    assert compat.request_doc(req) == (4, "t", "test")

    reqs, visual = _constructed("multiple_choice")
    assert [compat.loglikelihood_args(r) for r in reqs] == [
        ("the prompt", " Yes", visual, 4, "t", "test"),
        ("the prompt", " No", visual, 4, "t", "test"),
    ], f"{LMMS_EVAL_CHANGED}: multiple_choice arguments changed: {[r.args for r in reqs]}"
    assert [r.request_type for r in reqs] == ["loglikelihood", "loglikelihood"], LMMS_EVAL_CHANGED

    req, visual = _constructed("loglikelihood")
    context, continuation, doc_to_visual, doc_id, task, split = compat.loglikelihood_args(req)
    assert callable(continuation) and (context, doc_to_visual, doc_id, task, split) == (
        "the prompt",
        visual,
        4,
        "t",
        "test",
    ), f"{LMMS_EVAL_CHANGED}: loglikelihood arguments changed: {req.args}"

    req, visual = _constructed("generate_until_multi_round")
    assert compat.request_doc(req) == (4, "t", "test") and compat.request_visuals(req) is visual, (
        f"{LMMS_EVAL_CHANGED}: multi-round arguments changed: {req.args}"
    )


@pytest.mark.parametrize("kept", ["take_first", "ours"])
def test_contract_multiple_choice_results_reach_process_results_as_text(kept):
    import math

    import numpy as np
    from lmms_eval import evaluator
    from lmms_eval.api.instance import Instance, unwrap_generation_output
    from lmms_eval.filters import build_filter_ensemble

    from temporal_tasks.doc_hooks import FirstOfRepeats

    src = inspect.getsource(inspect.unwrap(evaluator.evaluate))
    assert "text, tc = unwrap_generation_output(x)" in src and "req.resps.append(text)" in src, (
        f"{LMMS_EVAL_CHANGED}: model results no longer pass through unwrap_generation_output (compat.loss_value)"
    )
    assert "task.process_results(doc, [req.filtered_resps[filter_key] for req in requests])" in inspect.getsource(
        evaluator
    ), f"{LMMS_EVAL_CHANGED}: process_results no longer gets one filtered result per request"
    metadata = {"task": "t", "doc_id": 0, "repeats": 1}
    model_out = [(0.25, False), (np.float64(1.5), np.True_), (math.inf, False), (2.0, True)]
    reqs = [Instance("loglikelihood", ("c", f" {i}"), idx=i, metadata=metadata) for i in range(len(model_out))]
    for out, req in zip(model_out, reqs, strict=True):
        text, _ = unwrap_generation_output(out)
        req.resps.append(text)
    build_filter_ensemble("none", [["take_first" if kept == "take_first" else FirstOfRepeats, None]]).apply(reqs, [])
    results = [req.filtered_resps["none"] for req in reqs]
    assert [compat.loss_value(r) for r in results] == [0.25, 1.5, math.inf, 2.0], (
        f"{LMMS_EVAL_CHANGED}: a multiple_choice result now reaches process_results as {results!r}"
    )
    assert math.isnan(compat.loss_value("garbage")) and math.isnan(compat.loss_value(None))


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

    from temporal_tasks.task_configs import load_task_yaml, our_tasks

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


def test_instance_frame_setting_reads_known_attributes_only():
    class Qwen:
        max_num_frames = 8

    class Llava:
        def __init__(self) -> None:
            self._max_frames_num = 16
            self.num_frames = True  # a flag, not a count

    class Other:
        fps = 2

    assert compat.instance_frame_setting(Qwen()) == ("max_num_frames", 8)
    assert compat.instance_frame_setting(Llava()) == ("_max_frames_num", 16)
    assert compat.instance_frame_setting(Other()) is None and compat.instance_frame_setting(None) is None


@pytest.mark.parametrize(
    ("argv", "ours"),
    [(["/venv/bin/lmms-eval"], True), (["/x/site-packages/lmms_eval/__main__.py"], True),
     (["/venv/bin/temporal-tasks"], True), (["my_eval_stack.py", "--model_args", "max_num_frames=16"], False),
     (["-c"], False), ([], False)],
)  # fmt: skip
def test_only_an_lmms_eval_command_line_is_read(argv, ours):
    assert compat.is_lmms_eval_command_line(argv) is ours


# ----------------------------------------------------------------------------- N from the model instance


class _Model:
    def __init__(self, n: int) -> None:
        self.max_num_frames = n


def _fake_evaluate():
    # lmms-eval's evaluate, as compat finds it: module lmms_eval.evaluator, locals lm and task_dict
    source = (
        "def evaluate(lm, task_dict, limit=None, offset=0):\n"
        "    return probe()\n"
    )  # fmt: skip
    namespace = {"__name__": compat.EVALUATOR_MODULE}
    exec(compile(source, "<lmms_eval.evaluator>", "exec"), namespace)  # noqa: S102 - a stand-in frame
    return namespace


def test_evaluate_takes_n_from_the_model_instance_not_the_scripts_argv(monkeypatch):
    monkeypatch.delenv(video.ENV_NUM_FRAMES, raising=False)
    monkeypatch.setattr(sys, "argv", ["my_script.py", "--model_args", "max_num_frames=16"])
    ns = _fake_evaluate()
    ns["probe"] = video.num_frames_setting
    assert ns["evaluate"](_Model(8), {}) == (8, "model instance attribute max_num_frames=8")
    # no evaluation on the stack and a script's own command line: the default, announced as such
    n, source = video.num_frames_setting()
    assert n == 32 and source.startswith("default 32 (no frame setting found; set TEMPORAL_TASKS_NUM_FRAMES")
    # the lmms-eval command line is read when it is the process's
    monkeypatch.setattr(sys, "argv", ["lmms_eval", "--model_args", "max_num_frames=16"])
    assert video.num_frames_setting() == (16, "--model_args max_num_frames=16")
    monkeypatch.setenv(video.ENV_NUM_FRAMES, "12")
    assert video.num_frames_setting() == (12, "TEMPORAL_TASKS_NUM_FRAMES")


def test_tasks_built_before_evaluate_build_their_videos_with_the_models_n(offline_env, monkeypatch, tmp_path):
    """A script builds the task dict, then calls evaluate(lm, ...): no build before the model is known."""
    from temporal_tasks.benchmarks.vinoground import tasks as vinoground

    cache = tmp_path / "cache"
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(cache))
    monkeypatch.delenv(video.ENV_NUM_FRAMES, raising=False)
    monkeypatch.setattr(sys, "argv", ["my_script.py", "--model_args", "max_num_frames=16"])
    builds = video.BackgroundBuilds("vinoground", workers=1)
    STATE.builders["vinoground"] = builds
    rows = list(vinoground.process_docs_group(None))  # what get_task_dict runs, before evaluate()
    assert ("vinoground", "group") in STATE.deferred and not list(cache.rglob("paired_videos/**/*.mp4"))
    ns = _fake_evaluate()
    ns["probe"] = lambda: [vinoground.doc_to_visual(row)[0] for row in rows if row["paired"]]
    paths = ns["evaluate"](_Model(5), {})
    builds.shutdown()
    assert {Path(p).parent.name for p in paths} == {"n5"} and not STATE.deferred
    assert {p.parent.name for p in cache.rglob("paired_videos/*/*.mp4")} == {"n5"}  # none at 16 or 32


def test_simple_evaluate_instance_wins_over_its_model_args(monkeypatch):
    monkeypatch.delenv(video.ENV_NUM_FRAMES, raising=False)

    def simple_evaluate(model=None, model_args=None, limit=None, offset=0, num_fewshot=None):
        lm = model  # noqa: F841 - read from this frame, as from lmms-eval's own
        return run_context.run_context()

    ctx = simple_evaluate(model=_Model(8), model_args="max_num_frames=16", limit=3)
    assert run_context.model_frame_setting(ctx).describe() == "model instance attribute max_num_frames=8"
    assert ctx.limit == 3 and ctx.where == "simple_evaluate"
    ctx = simple_evaluate(model="qwen2_5_vl", model_args="max_num_frames=16")
    assert run_context.model_frame_setting(ctx).describe() == "--model_args max_num_frames=16"


def test_announce_prints_once_on_stderr(capsys):
    video.announce("test: paired videos have N=7 frames (x)")
    video.announce("test: paired videos have N=7 frames (x)")
    assert capsys.readouterr().err.count("N=7 frames") == 1


def test_num_fewshot_above_zero_is_a_clear_error(monkeypatch):
    from temporal_tasks.task_docs import check_zero_shot

    def simple_evaluate(model_args=None, num_fewshot=None):
        check_zero_shot()

    simple_evaluate(model_args="", num_fewshot=0)
    with pytest.raises(SystemExit, match="--num_fewshot 2: these temporal-reasoning tasks are zero-shot"):
        simple_evaluate(model_args="", num_fewshot=2)


# ----------------------------------------------------------------------------- one run per results set


def _timeblind_lines(fixture_root, monkeypatch, answer: str | None) -> list[dict]:
    """Sample lines of timeblind_iacc: every answer ``answer``, or the gold label when None."""
    from temporal_tasks.benchmarks.timeblind import tasks as timeblind

    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(fixture_root))
    lines = []
    for d in timeblind.load_docs():
        text = d["gold"] if answer is None else answer
        # as lmms-eval writes a line: the answer in filtered_resps (lean payloads do not repeat it)
        lines.append({"filtered_resps": [text], **json.loads(json.dumps(timeblind.process_results(d, [text])))})
    return lines


def _write_run(folder: Path, stamp: str, lines_by_task: dict[str, list[dict]], model: str, mtime: float) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    results = folder / f"{stamp}_results.json"
    results.write_text(json.dumps({"results": {t: {} for t in lines_by_task}, "config": {"model": model}}))
    for task, lines in lines_by_task.items():
        path = folder / f"{stamp}_samples_{task}.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        os.utime(path, (mtime, mtime))
    os.utime(results, (mtime, mtime))


def test_rescore_reads_one_run_and_names_it(fixture_root, monkeypatch, tmp_path, capsys):
    yes = _timeblind_lines(fixture_root, monkeypatch, None)  # all right
    no = _timeblind_lines(fixture_root, monkeypatch, "")  # all unreadable
    folder = tmp_path / "out" / "model"
    _write_run(folder, "20261125_100000", {"timeblind_iacc": yes}, "run_a", 1_000)
    _write_run(folder, "20261125_110000", {"timeblind_iacc": no}, "run_b", 2_000)
    # run A also left a samples file of a task run B did not run: it must not join B's results
    (folder / "20261125_100000_samples_vinoground_group.jsonl").write_text("")

    result = rescore([tmp_path / "out"])
    cfg = result["config"]
    assert cfg["run"].endswith("20261125_110000") and cfg["model"] == "run_b"
    assert "newest complete run of 2" in cfg["run_note"] and "--run" in cfg["run_note"]
    assert set(result["results"]) == {"timeblind_iacc"}
    # run A, chosen: its empty vinoground file is an error naming it (never an empty table)
    with pytest.raises(DataError, match="samples_vinoground_group.jsonl: cannot score vinoground_group: it is empty"):
        rescore([tmp_path / "out"], run="20261125_100000")
    (folder / "20261125_100000_samples_vinoground_group.jsonl").unlink()
    chosen = rescore([tmp_path / "out"], run="20261125_100000")
    assert chosen["config"]["model"] == "run_a" and set(chosen["results"]) == {"timeblind_iacc"}
    assert chosen["results"]["timeblind_iacc"]["instance_acc,none"] == 100.0
    assert result["results"]["timeblind_iacc"]["instance_acc,none"] == 0.0
    with pytest.raises(DataError, match="--run 2099: no run matches"):
        rescore([tmp_path / "out"], run="2099")

    a_file, b_file = (
        folder / "20261125_100000_samples_timeblind_iacc.jsonl",
        folder / "20261125_110000_samples_timeblind_iacc.jsonl",
    )
    with pytest.raises(DataError, match="come from different runs"):
        rescore([a_file, folder / "20261125_110000_samples_timeblind_iacc.jsonl"])
    assert rescore([a_file])["config"]["model"] == "run_a"  # a file given by name: its run
    assert rescore([b_file])["config"]["model"] == "run_b"
    assert cli.main(["rescore", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "20261125_110000: the newest complete run of 2" in out and "model: run_b" in out


def test_a_samples_file_with_answers_from_two_runs_is_an_error(fixture_root, monkeypatch, tmp_path):
    yes = _timeblind_lines(fixture_root, monkeypatch, "yes")
    no = _timeblind_lines(fixture_root, monkeypatch, "no")
    mixed = tmp_path / "20261125_100000_samples_timeblind_iacc.jsonl"
    mixed.write_text("".join(json.dumps(x) + "\n" for x in yes + no))
    with pytest.raises(DataError, match=f"{mixed}: question '0' is answered twice with different answers"):
        read_samples(mixed)
    with pytest.raises(DataError, match="two runs"):
        rescore([mixed])
    same = tmp_path / "20261125_100001_samples_timeblind_iacc.jsonl"
    same.write_text("".join(json.dumps(x) + "\n" for x in yes + yes))  # a replayed shard: same answers
    assert len(read_samples(same)) == 2 * len(yes)


def test_summary_takes_each_folders_newest_run(tmp_path):
    from temporal_tasks.report import find_results

    folder = tmp_path / "model"
    for stamp, mtime in (("20261125_100000", 1_000), ("20261125_110000", 2_000)):
        _write_run(folder, stamp, {}, stamp, mtime)
    notes: list[str] = []
    assert find_results([tmp_path], notes=notes) == [folder / "20261125_110000_results.json"]
    assert len(notes) == 1 and "newest complete run of 2" in notes[0]
    assert find_results([tmp_path], run="20261125_100000") == [folder / "20261125_100000_results.json"]
    runs = find_runs([tmp_path])
    assert [r.stamp for r in runs] == ["20261125_100000", "20261125_110000"]
    assert choose_run(runs[:1], what="results")[1] == ""  # one run: no choice to name


# ----------------------------------------------------------------------------- slow: the Python API


def _api_env(fixture_root: Path, cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        TEMPORAL_TASKS_DATA_DIR=str(fixture_root), TEMPORAL_TASKS_CACHE_DIR=str(cache), HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
    )  # fmt: skip
    env.pop(video.ENV_NUM_FRAMES, None)
    env.pop("TEMPORAL_TASKS_PARSER", None)
    return env


def _vinoground_answers(path: Path) -> Path:
    qids = [f"{i}_{side}_{kind}" for i in range(4) for side in ("pos", "neg") for kind in ("text", "video")]
    path.write_text("".join(json.dumps({"question_id": q, "response": "A"}) + "\n" for q in qids))
    return path


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["evaluate", "simple_evaluate"])
def test_python_api_builds_the_models_n_and_prints_it(mode, fixture_root, tmp_path):
    """A plain script with a model made with max_num_frames=8 (its own argv says 16): N = 8, printed."""
    script = Path(__file__).parent / "scripts" / "api_run.py"
    cache = tmp_path / "cache"
    responses = _vinoground_answers(tmp_path / "answers.jsonl")
    cmd = [sys.executable, str(script), mode, str(responses), str(tmp_path / "out.json"), "--model_args",
           "max_num_frames=16"]  # fmt: skip
    proc = subprocess.run(cmd, env=_api_env(fixture_root, cache), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "vinoground: paired videos have N=8 frames (model instance attribute max_num_frames=8)" in proc.stderr
    built = {p.parent.name for p in (cache / "paired_videos").rglob("*.mp4")}
    assert built == {"n8"}, built  # every paired video at N = 8, none at 16 or 32
    # "A" everywhere (fixture golds): text right on both sides of pair 2 only, video on pair 0 only: 25, 25, 0
    metrics = json.loads((tmp_path / "out.json").read_text())
    assert metrics["text_score,none"] == 25.0 and metrics["video_score,none"] == 25.0
    assert metrics["group_score,none"] == 0.0


# ----------------------------------------------------------------------------- slow: the flag matrix
# One row per lmms-eval flag: the real CLI with temporal_replay on the small fixtures, timeblind_iacc (16
# questions, 4 instances) unless N matters. Each row asserts exact values, computed here in-process from
# the task's own process_docs/process_results/aggregations over the questions the flag selects, or a clear
# error. README "lmms-eval flags" has the same table.


def _expected(env: dict[str, str], monkeypatch, *, start: int = 0, stop: int | None = None) -> dict[str, float]:
    """timeblind_iacc's metrics over docs[start:stop] answered from TRICKY, in the parser mode of ``env``."""
    from temporal_tasks.rescore import task_metrics
    from temporal_tasks.task_configs import resolve_function, task_config
    from tests.test_timeblind import TRICKY

    for key in ("TEMPORAL_TASKS_DATA_DIR", "TEMPORAL_TASKS_PARSER"):
        if key in env:
            monkeypatch.setenv(key, env[key])
        else:
            monkeypatch.delenv(key, raising=False)
    cfg = task_config("timeblind_iacc")
    docs = list(resolve_function(cfg["process_docs"])(None))[start:stop]
    per_doc = [resolve_function(cfg["process_results"])(d, [TRICKY[d["question_id"]]]) for d in docs]
    out = {}
    for key, fn, _hib in task_metrics("timeblind_iacc"):
        items = [r[key] for r in per_doc if key in r]
        if items:
            out[key] = fn(items)
    return out


def _same_numbers(got: dict[str, float], want: dict[str, float]) -> None:
    assert set(got) == set(want), set(got) ^ set(want)
    for key, value in want.items():
        if isinstance(value, float) and value != value:  # NaN
            assert got[key] != got[key], key
        else:
            assert got[key] == pytest.approx(value, abs=1e-9), key


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


ROWS = [
    "limit_offset", "log_samples_rescore", "predict_only_rescore", "use_cache", "cache_requests", "repeats",
    "process_docs_parallel", "config_one_entry", "config_two_entries", "seed", "gen_kwargs", "system_instruction",
    "num_fewshot", "limit_0", "two_ranks", "frames_from_model_args",
]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("row", ROWS)
def test_flag_matrix(row, lmms_eval, fixture_root, cache_root, tmp_path, monkeypatch):
    from tests.test_timeblind import TRICKY

    task = "timeblind_iacc"
    data = {"TEMPORAL_TASKS_DATA_DIR": str(fixture_root)}
    request_cache = tmp_path / "request_cache"  # lmms-eval's --cache_requests folder, this test's own
    request_cache.mkdir()
    env = {"LM_HARNESS_CACHE_PATH": str(request_cache)}

    def run(*args: str, **kw):
        return lmms_eval(task, responses=TRICKY, args=list(args), env={**env, **kw.pop("env", {})}, **kw)

    if row == "limit_offset":
        _same_numbers(
            run("--limit", "8", "--offset", "4").metrics(task), _expected(data, monkeypatch, start=4, stop=12)
        )
    elif row == "log_samples_rescore":
        done = run()
        assert len(done.samples[task]) == 16
        again = rescore([tmp_path / "run1" / "results"])["results"][task]
        _same_numbers({k.split(",")[0]: v for k, v in again.items() if k.endswith(",none")}, done.metrics(task))
    elif row == "predict_only_rescore":
        done = run("--predict_only")
        assert set(done.metrics(task)) == {"bypass"}  # lmms-eval computes no metric of ours: answers only
        # rescore rebuilds each question's payload from the task's data (checked against the run's provenance)
        monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(fixture_root))
        again = rescore([tmp_path / "run1" / "results"])["results"][task]
        _same_numbers({k.split(",")[0]: v for k, v in again.items() if k.endswith(",none")},
                      _expected(data, monkeypatch))  # fmt: skip
    elif row == "use_cache":
        responses_cache = tmp_path / "responses_cache"
        first = run("--use_cache", str(responses_cache))
        second = run("--use_cache", str(responses_cache))
        _same_numbers(first.metrics(task), _expected(data, monkeypatch))
        _same_numbers(second.metrics(task), first.metrics(task))
    elif row == "cache_requests":
        # visuals=true: the model fetches each request's visuals, as a real video model does (lmms-eval 0.7.3
        # drops doc_to_visual from a cache hit; compat.restore_cached_visuals puts it back for our tasks)
        answers = tmp_path / "answers.jsonl"
        answers.write_text("".join(json.dumps({"question_id": q, "response": r}) + "\n" for q, r in TRICKY.items()))

        def run(*args: str, **kw):  # noqa: F811 - this row's model fetches visuals
            return lmms_eval(task, model_args=f"responses={answers},visuals=true", args=list(args), env=env, **kw)

        first = run("--cache_requests", "true")
        assert list(request_cache.iterdir()), "lmms-eval wrote no request cache"
        _same_numbers(first.metrics(task), _expected(data, monkeypatch))
        hit = run("--cache_requests", "true")  # a cache hit: same data, same numbers, no crash
        assert "not callable" not in hit.output
        _same_numbers(hit.metrics(task), first.metrics(task))
        # a bigger data folder with the stale cache: the clear error, never scores over 16 of 2,400 questions
        from temporal_tasks.fixtures import write_fixtures

        full = tmp_path / "full"
        write_fixtures(full, ["timeblind"], full=True)
        stale = run("--cache_requests", "true", data_dir=full, expect_ok=False)
        assert stale.returncode != 0 and not stale.results
        assert "the run selected 2400 questions" in stale.output and "only 16 were answered" in stale.output
        assert "--cache_requests refresh" in stale.output
        fresh = run("--cache_requests", "refresh", data_dir=full)
        assert fresh.results["n-samples"][task]["effective"] == 2400
    elif row == "repeats":
        # lmms-eval 0.7.3 asks each question k times and every answer is scored (issue 23). The replay gives
        # both repeats the same answer: every value is the single run's, plus the stability keys of each group
        # metric (consensus = the value, every group consistent, SD 0). tests/test_repeats.py: differing repeats.
        from temporal_tasks.payloads import is_group_metric

        done = run("--repeats", "2").metrics(task)
        want = _expected(data, monkeypatch)
        stability = {f"{k}_{s}" for k in want if is_group_metric(k) for s in ("consensus_accuracy",
                     "consistency_rate", "repeat_sd")}  # fmt: skip
        assert set(done) == set(want) | stability
        _same_numbers({k: v for k, v in done.items() if k in want}, want)
        for key, value in want.items():
            if is_group_metric(key) and value == value:
                assert done[f"{key}_consensus_accuracy"] == pytest.approx(value, abs=1e-9), key
                assert done[f"{key}_consistency_rate"] == 100.0 and done[f"{key}_repeat_sd"] == 0.0, key
    elif row == "process_docs_parallel":
        _same_numbers(run("--process_docs_parallel", "1").metrics(task), _expected(data, monkeypatch))
    elif row in ("config_one_entry", "config_two_entries"):
        import yaml

        responses = tmp_path / "answers.jsonl"
        responses.write_text("".join(json.dumps({"question_id": q, "response": r}) + "\n" for q, r in TRICKY.items()))
        entry = {"model": "temporal_replay", "model_args": f"responses={responses}", "tasks": task, "batch_size": 1,
                 "log_samples": True, "verbosity": "DEBUG"}  # fmt: skip
        entries = [{**entry, "output_path": str(tmp_path / "a"), "env": {"TEMPORAL_TASKS_PARSER": "official"}}]
        if row == "config_two_entries":
            entries.append({**entry, "output_path": str(tmp_path / "b")})  # sets no parser
        config = tmp_path / "run.yaml"
        config.write_text(yaml.safe_dump(entries))
        proc = subprocess.run(
            [sys.executable, "-m", "lmms_eval", "--config", str(config)], cwd=tmp_path, capture_output=True,
            text=True, timeout=900, env={**_api_env(fixture_root, cache_root), **env},
        )  # fmt: skip
        if row == "config_two_entries":
            # lmms-eval exports every entry's env before the first run: entry 2 would be scored `official` too
            assert proc.returncode != 0, "two entries with different parser settings ran"
            out = proc.stdout + proc.stderr
            assert "--config: the entries set TEMPORAL_TASKS_PARSER differently" in out
            assert "entry 1=official, entry 2=(unset)" in out and "model_args" in out
            assert not list(tmp_path.rglob("*_results.json"))
            return
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        (results,) = (tmp_path / "a").rglob("*_results.json")
        got = json.loads(results.read_text())["results"][task]
        official = _expected({**data, "TEMPORAL_TASKS_PARSER": "official"}, monkeypatch)
        scored = {k.split(",")[0]: v for k, v in got.items() if k.endswith(",none") and "_stderr" not in k}
        _same_numbers(scored, official)
        (samples,) = (tmp_path / "a").rglob("*_samples_*.jsonl")
        from temporal_tasks.samples import line_payload

        modes = {line_payload(json.loads(x))["parser_mode"] for x in samples.read_text().splitlines() if x}
        assert modes == {"official"}  # the samples say which reading scored them
    elif row == "seed":
        _same_numbers(run("--seed", "7,8,9,10").metrics(task), _expected(data, monkeypatch))
    elif row == "gen_kwargs":
        done = run("--gen_kwargs", "max_new_tokens=8,temperature=0")
        _same_numbers(done.metrics(task), _expected(data, monkeypatch))
        assert done.results["configs"][task]["generation_kwargs"]["max_new_tokens"] == 8
    elif row == "system_instruction":
        done = run("--system_instruction", "Answer briefly.")
        _same_numbers(done.metrics(task), _expected(data, monkeypatch))
        assert done.results["system_instruction"] == "Answer briefly."
    elif row == "num_fewshot":
        done = run("--num_fewshot", "2", expect_ok=False)
        assert done.returncode != 0 and not done.results
        assert "--num_fewshot 2: these temporal-reasoning tasks are zero-shot" in done.output
        assert "has no attribute 'sampler'" not in done.output
    elif row == "limit_0":
        videos = tmp_path / "videos"
        done = lmms_eval("vinoground_group", responses=_vinoground_answers(tmp_path / "v.jsonl"),
                         args=["--limit", "0"], env={**env, "TEMPORAL_TASKS_CACHE_DIR": str(videos)},
                         expect_ok=False)  # fmt: skip
        assert not done.results  # lmms-eval stops: no document selected
        built = list((videos / "paired_videos").rglob("*.mp4"))
        assert not built, "a paired video was built for a run that selects no question"
    elif row == "two_ranks":
        launcher = ["-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", str(_free_port())]
        done = run(launcher=launcher)
        assert "Running on rank 1" in done.output
        _same_numbers(done.metrics(task), _expected(data, monkeypatch))
    elif row == "frames_from_model_args":
        videos = tmp_path / "videos"
        responses = _vinoground_answers(tmp_path / "v.jsonl")
        done = lmms_eval("vinoground_group", model_args=f"responses={responses},max_num_frames=8,visuals=true",
                         env={**env, "TEMPORAL_TASKS_CACHE_DIR": str(videos)})  # fmt: skip
        assert "paired videos have N=8 frames (model instance attribute max_num_frames=8)" in done.output
        assert {p.parent.name for p in (videos / "paired_videos").rglob("*.mp4")} == {"n8"}
        assert done.metrics("vinoground_group")["group_score"] == 0.0
    else:  # pragma: no cover
        raise AssertionError(row)


def test_summary_stops_on_a_samples_file_from_two_runs(fixture_root, monkeypatch, tmp_path):
    from temporal_tasks.report import summary_table

    right = _timeblind_lines(fixture_root, monkeypatch, None)
    wrong = _timeblind_lines(fixture_root, monkeypatch, "")
    folder = tmp_path / "model"
    _write_run(folder, "20261125_100000", {"timeblind_iacc": right + wrong}, "m", 1_000)
    results = folder / "20261125_100000_results.json"
    results.write_text(json.dumps({"results": {"timeblind_iacc": {"instance_acc,none": 50.0, "alias": "x"}}}))
    with pytest.raises(DataError, match="20261125_100000_samples_timeblind_iacc.jsonl: question '0' is answered twice"):
        summary_table([tmp_path])
