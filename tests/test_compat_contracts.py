"""Contract tests of :mod:`temporal_tasks.compat`: each lmms-eval internal we rely on, checked against the
installed lmms-eval, so an upgrade that breaks one fails here with the name of the helper to re-check (issue 24)."""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from temporal_tasks import compat
from tests.helpers.compat import LMMS_EVAL_CHANGED

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

    assert aggregating_task() == (None, None)


def test_contract_video_models_keep_their_frame_count_as_an_attribute():
    from lmms_eval.models.simple import llava_onevision, qwen2_5_vl

    assert "self.max_num_frames = max_num_frames" in inspect.getsource(qwen2_5_vl), LMMS_EVAL_CHANGED
    assert "self.max_frames_num = max_frames_num" in inspect.getsource(llava_onevision), LMMS_EVAL_CHANGED


def test_contract_only_the_model_fetches_visuals_and_no_lmms_eval_model_declares_reads_visuals():
    import lmms_eval.models
    from lmms_eval import evaluator, evaluator_utils
    from lmms_eval.api.model import lmms
    from lmms_eval.caching.response_cache import ResponseCache

    # A request's doc_to_visual is called by the model alone: evaluate, its helpers and the response cache
    # (--use_cache) never call it, so a model that reads no visuals needs none built (video.watching).
    for where, src in (
        ("evaluator.evaluate", inspect.getsource(inspect.unwrap(evaluator.evaluate))),
        ("evaluator_utils", inspect.getsource(evaluator_utils)),
        ("ResponseCache.execute", inspect.getsource(ResponseCache.execute)),
    ):
        assert "doc_to_visual(" not in src and "args[2](" not in src, f"{LMMS_EVAL_CHANGED}: {where} fetches visuals"
    # reads_visuals is our declaration: no lmms-eval model has the attribute, so one without it is theirs
    assert not hasattr(lmms, compat.READS_VISUALS), LMMS_EVAL_CHANGED
    folder = Path(lmms_eval.models.__file__).parent
    declaring = [p.name for p in folder.rglob("*.py") if compat.READS_VISUALS in p.read_text(errors="replace")]
    assert not declaring, f"{LMMS_EVAL_CHANGED}: {declaring} now use the attribute {compat.READS_VISUALS}"


def test_model_reads_visuals_is_the_declaration_else_true():
    class Theirs:
        pass

    class Replay:
        reads_visuals = False

    class Unsure:
        reads_visuals = "no"

    assert compat.model_reads_visuals(Theirs()) is True and compat.model_reads_visuals(Replay()) is False
    with pytest.raises(ValueError, match=r"model Unsure: reads_visuals='no' is not True or False"):
        compat.model_reads_visuals(Unsure())


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

    from temporal_tasks.harness.doc_hooks import FirstOfRepeats

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


def test_aggregating_task_keeps_no_caller_local_alive():
    """Reading a frame's locals on Python < 3.13 snapshots them into a dict the frame keeps: only lmms-eval's
    aggregation frame is read, so a caller's objects (a million payloads) are freed when the caller drops them."""
    import weakref

    from temporal_tasks.compat import aggregating_task

    class Big:
        pass

    def caller() -> bool:
        big = Big()
        ref = weakref.ref(big)

        def inner() -> tuple:
            return aggregating_task()

        assert inner() == (None, None)
        del big
        return ref() is None

    assert caller()
