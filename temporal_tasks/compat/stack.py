"""The call-stack reaches: what lmms-eval's own frames hold while our code runs inside them."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from types import FrameType
from typing import Any

import yaml

from temporal_tasks.base.run_state import STATE
from temporal_tasks.compat.cli import command_line_setting

EVALUATOR_MODULE = "lmms_eval.evaluator"

# Frame-count arguments of lmms-eval 0.7.3's video models (``__init__`` parameters found in
# lmms_eval/models): max_num_frames (qwen2_vl, qwen2_5_vl, qwen3_vl, gemma3, huggingface, ...),
# max_frames_num (llava_onevision, llava_hf, openai, gemini, claude, ...), num_frames (internvl_hf,
# llama_vid, ...), nframes (vllm, sglang, async_openai), max_frames (qwen3_5, vita, async_openai),
# max_frame_num (vllm, sglang, longvila), num_frame (internvl2/3), video_max_frames (cambrians),
# num_frm (video_chatgpt), num_video_frames (omnivinci), decode_num_frames (dummy). frames_upbound
# (LLaVA-Video's name) is not in 0.7.3's models but is accepted too. Earlier names win.
# The models store the value under the same name, as ``self.<name>`` or ``self._<name>``.
FRAME_ARGS = (
    "max_num_frames", "max_frames_num", "num_frames", "nframes", "frames_upbound", "max_frames", "max_frame_num",
    "num_frame", "video_max_frames", "num_frm", "num_video_frames", "decode_num_frames",
)  # fmt: skip


@dataclass
class EvaluationFrames:
    """What the stack says about the lmms-eval evaluation this code runs in (None: not found)."""

    model: Any = None  # the model instance (``lm``)
    model_args: Any = None  # simple_evaluate's ``model_args`` (a string or a dict)
    limit: Any = None
    offset: Any = 0
    num_fewshot: Any = None  # simple_evaluate's ``num_fewshot`` (--num_fewshot)
    baseline: Any = None  # simple_evaluate's ``baseline`` (--baseline)
    where: str = ""  # "simple_evaluate" or "evaluate": the innermost of them found


def _frames(start: FrameType | None):
    frame = start
    while frame is not None:
        yield frame
        frame = frame.f_back


def _is_simple_evaluate(frame: FrameType) -> bool:
    # Matched by name and its `model_args` argument (not by module) so a wrapper or test stand-in works too.
    return frame.f_code.co_name == "simple_evaluate" and "model_args" in frame.f_locals


def _is_evaluate(frame: FrameType) -> bool:
    return (
        frame.f_code.co_name == "evaluate"
        and frame.f_globals.get("__name__") == EVALUATOR_MODULE
        and "lm" in frame.f_locals
        and "task_dict" in frame.f_locals
    )


def evaluation_frames() -> EvaluationFrames | None:
    """The model instance, ``model_args``, ``limit`` and ``offset`` of the lmms-eval evaluation on this
    thread's stack (``simple_evaluate`` and/or ``evaluate``), or None when there is none.

    The innermost ``evaluate`` knows the model (it is the one running); ``simple_evaluate`` adds the
    ``model_args`` string. ``limit``/``offset`` come from the innermost of the two.
    """
    found = EvaluationFrames()
    seen = False
    for frame in _frames(sys._getframe(1)):
        if _is_evaluate(frame) or _is_simple_evaluate(frame):
            loc = frame.f_locals
            if not seen:
                found.where, found.limit, found.offset = frame.f_code.co_name, loc.get("limit"), loc.get("offset", 0)
                seen = True
            if found.model is None:
                lm = loc.get("lm")
                if lm is None and not isinstance(loc.get("model"), str | type(None)):
                    lm = loc.get("model")  # simple_evaluate(model=<instance>) before `lm = model`
                found.model = lm
            if found.model_args is None and "model_args" in loc:
                found.model_args = loc.get("model_args")
                found.num_fewshot = loc.get("num_fewshot")
                found.baseline = loc.get("baseline")
    return found if seen else None


def instance_frame_setting(model: Any) -> tuple[str, int] | None:
    """``(attribute, N)``: the model instance's own frame count, or None when it keeps none we know."""
    if model is None:
        return None
    for name in FRAME_ARGS:
        for attr in (name, f"_{name}"):
            try:
                value = getattr(model, attr, None)
            except Exception:  # noqa: BLE001 - a property of a half-built model may raise; not a frame count then
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            if value > 0 and float(value).is_integer():
                return attr, int(value)
    return None


# The attribute by which a model declares whether it reads the visuals of its requests (ours, not lmms-eval's:
# no lmms-eval 0.7.3 model class has it, so a model without it is one of theirs, and reads them).
READS_VISUALS = "reads_visuals"


def model_reads_visuals(model: Any) -> bool:
    """Whether the model instance reads its requests' visuals (calls their ``doc_to_visual``).

    Its ``reads_visuals`` attribute (class or instance) when it has one, else True: lmms-eval's models, API
    models and ``first_token_prob`` all read them. A ``ValueError`` names the model's class when the attribute is
    not True or False.
    """
    declared = getattr(model, READS_VISUALS, True)
    if not isinstance(declared, bool):
        raise ValueError(
            f"model {type(model).__name__}: {READS_VISUALS}={declared!r} is not True or False. Set it to False on a "
            "model that never calls a request's doc_to_visual (a replay model), or remove it (the model reads visuals)."
        )
    return declared


def is_lmms_eval_command_line(argv: list[str] | None = None) -> bool:
    """Whether this process is the lmms-eval CLI (or our wrapper): only then is ``sys.argv`` the run's."""
    argv = sys.argv if argv is None else argv
    if not argv:
        return False
    head = os.path.normpath(str(argv[0]))
    base = os.path.basename(head)
    if base in ("lmms-eval", "lmms_eval", "temporal-tasks", "temporal_tasks"):
        return True
    parent = os.path.basename(os.path.dirname(head))
    # `python -m lmms_eval` / `accelerate launch -m lmms_eval` / torchrun: argv[0] is the package's __main__.py
    return base == "__main__.py" and parent in ("lmms_eval", "temporal_tasks")


def aggregation_selection() -> tuple[str, int, int] | None:
    """While an lmms-eval aggregation runs: ``(task name, questions selected, distinct questions answered)``.

    Selected: the task's processed dataset cut by ``--limit``/``--offset`` (all ranks). Answered: the
    distinct ``question_id`` values among the gathered payloads of the task's metric with the most.
    None outside an aggregation (``rescore``, unit tests) or when the stack is not as expected.
    """
    output = None
    evaluate_locals = None
    for frame in _frames(sys._getframe(1)):
        if output is None and frame.f_code.co_name == "calculate_aggregate_metric":
            candidate = frame.f_locals.get("self")
            if hasattr(candidate, "task") and hasattr(candidate, "sample_metrics"):
                output = candidate
        elif output is not None and _is_evaluate(frame):
            evaluate_locals = frame.f_locals
            break
    if output is None or evaluate_locals is None:
        return None
    try:
        total = len(output.task.eval_docs)
    except Exception:  # noqa: BLE001 - a task without docs: nothing to check
        return None
    limit, offset = evaluate_locals.get("limit"), int(evaluate_locals.get("offset") or 0)
    stop = None if limit is None or limit == -1 else offset + int(limit)
    selected = len(range(total)[offset:stop])
    lists = list(output.sample_metrics.values())
    longest = max(lists, key=len) if lists else []
    key = (id(output), id(longest), len(longest), selected)
    hit = STATE.selections.get(key)
    if hit is None:
        # One pass over the metric with the most payloads (every question feeds each headline key once).
        ids = {p.get("question_id") for p in longest if isinstance(p, dict)}
        ids.discard(None)
        hit = (str(getattr(output, "task_name", "") or ""), selected, len(ids))
        if len(STATE.selections) > 64:
            STATE.selections.clear()
        STATE.selections[key] = hit
    return hit


def aggregating_task() -> tuple[str | None, int | None]:
    """``(task name, max_new_tokens)`` of the lmms-eval task whose aggregation is running, for messages only.

    lmms-eval calls each aggregation from ``TaskOutput.calculate_aggregate_metric`` (``self.task_name``,
    ``self.task.config.generation_kwargs``); an aggregation gets only its payloads. ``(None, None)`` when called
    from elsewhere (``rescore``, tests).
    """
    frame: FrameType | None = sys._getframe(1)
    for _ in range(8):
        if frame is None:
            break
        if frame.f_code.co_name != "calculate_aggregate_metric":
            # Only that frame's locals are read: on Python < 3.13, ``f_locals`` of a running frame snapshots every
            # local into a dict the frame keeps, which would hold the caller's objects (a million payloads) alive
            # until the next snapshot, so their freeing lands in a later aggregation.
            frame = frame.f_back
            continue
        owner = frame.f_locals.get("self")
        name = getattr(owner, "task_name", None)
        if isinstance(name, str) and hasattr(owner, "task"):
            config = getattr(getattr(owner, "task", None), "config", None)
            gen = getattr(config, "generation_kwargs", None) or {}
            tokens = gen.get("max_new_tokens") if isinstance(gen, dict) else None
            return name, tokens if isinstance(tokens, int) else None
        frame = frame.f_back
    return None, None


def config_entries_env() -> list[dict[str, str]] | None:
    """Each entry's ``env:`` mapping while a multi-entry ``--config`` file runs (None otherwise).

    lmms-eval pops ``env`` from the entries it keeps, so the file is read again.
    """
    for frame in _frames(sys._getframe(1)):
        if frame.f_code.co_name != "cli_evaluate" or "args_list" not in frame.f_locals:
            continue
        entries = frame.f_locals.get("args_list") or []
        path = getattr(entries[0], "config", None) if entries else None
        if len(entries) < 2 or not path:
            return None
        try:
            with open(path, encoding="utf-8") as fh:
                loaded = yaml.safe_load(fh)
        except (OSError, ValueError):
            return None
        loaded = loaded if isinstance(loaded, list) else [loaded]
        return [
            {str(k): str(v) for k, v in ((e or {}).get("env") or {}).items()} for e in loaded if isinstance(e, dict)
        ]
    return None


_PATCHED = "_temporal_tasks_restores_visuals"


def restore_cached_visuals() -> None:
    """Repair lmms-eval 0.7.3's ``--cache_requests`` hit for our tasks (idempotent).

    The cache stores requests with their ``doc_to_visual`` callable replaced by None, and on a hit
    ``Task.build_all_requests`` returns before restoring it, so every model that fetches visuals fails
    with ``'NoneType' object is not callable``. After the call, our tasks' requests get it back.
    """
    from lmms_eval.api.task import Task

    original = Task.build_all_requests
    if getattr(original, _PATCHED, False):
        return

    def build_all_requests(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        visual = getattr(self, "doc_to_visual", None)  # the task's method, which calls the config's function
        ours = getattr(getattr(self, "config", None), "doc_to_visual", None)
        if visual is not None and str(getattr(ours, "__module__", "")).startswith("temporal_tasks"):
            for inst in getattr(self, "instances", None) or []:  # Task.instances: the requests just built
                arguments = tuple(inst.arguments)
                if len(arguments) > 2 and arguments[2] is None:
                    inst.arguments = (arguments[0], arguments[1], visual, *arguments[3:])
        return out

    build_all_requests.__wrapped__ = original  # type: ignore[attr-defined]  # functools' mark of a wrapper
    setattr(build_all_requests, _PATCHED, True)
    Task.build_all_requests = build_all_requests


def building_task_config() -> Any:
    """The config (``Task.config``) of the lmms-eval task whose ``download`` (and so ``process_docs``) is running.

    None outside an lmms-eval task build (unit tests, ``rescore``).
    """
    for frame in _frames(sys._getframe(1)):
        if frame.f_code.co_name != "download":
            continue
        config = getattr(frame.f_locals.get("self"), "config", None)
        if config is not None and hasattr(config, "metadata"):
            return config
    return None


def run_baseline() -> str | None:
    """The run's ``--baseline`` (``simple_evaluate``'s argument, else the lmms-eval command line), or None."""
    found = evaluation_frames()
    if found is not None:
        return found.baseline
    return command_line_setting(sys.argv, "baseline") if is_lmms_eval_command_line() else None
