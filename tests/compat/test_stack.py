"""Contract tests of ``compat/stack.py`` (and the names in ``compat/__init__.py``): each lmms-eval internal found on
the stack (evaluation frames, aggregations, the request cache, task builds, the models' frame attributes), checked
against the installed lmms-eval, so an upgrade that breaks one fails here with the helper to re-check (issue 24)."""

from __future__ import annotations

import inspect
from pathlib import Path

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


def test_contract_process_docs_runs_in_download_of_a_task_with_config_metadata():
    from lmms_eval.api.task import ConfigurableTask, TaskConfig

    download = inspect.unwrap(ConfigurableTask.download)
    assert download.__code__.co_name == "download" and "self" in download.__code__.co_varnames, (
        f"{LMMS_EVAL_CHANGED}: ConfigurableTask.download was renamed (compat.building_task_config looks for it)"
    )
    assert "self.config.process_docs(" in inspect.getsource(download), (
        f"{LMMS_EVAL_CHANGED}: ConfigurableTask.download no longer calls process_docs"
    )
    assert isinstance(inspect.getattr_static(ConfigurableTask, "config", None), property), (
        f"{LMMS_EVAL_CHANGED}: a task no longer gives its config as the property Task.config"
    )
    assert isinstance(inspect.getattr_static(ConfigurableTask, "instances", None), property), (
        f"{LMMS_EVAL_CHANGED}: a task no longer gives its requests as the property Task.instances "
        "(compat.restore_cached_visuals)"
    )
    fields = TaskConfig.__dataclass_fields__
    assert {"task", "metadata"} <= set(fields), f"{LMMS_EVAL_CHANGED}: TaskConfig has no task/metadata field"
    assert "self.config.to_dict()" in inspect.getsource(ConfigurableTask.dump_config), (
        f"{LMMS_EVAL_CHANGED}: dump_config no longer writes the whole config (metadata.provenance) to the results"
    )

    class Task:  # a task's download frame, as compat finds it
        def __init__(self) -> None:
            self.config = TaskConfig(task="t", metadata={"version": 1})

        def download(self):
            return compat.building_task_config()

    task = Task()
    config = task.download()
    assert config is task.config and compat.task_config_name(config) == "t"
    compat.add_task_metadata(config, "provenance", {"x": 1})
    assert config.to_dict()["metadata"] == {"version": 1, "provenance": {"x": 1}}
    assert compat.building_task_config() is None  # not inside a task build


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
