"""What we can learn about the lmms-eval run we are part of: model args, --limit/--offset, rank.

``process_docs`` runs inside ``lmms_eval.evaluator.simple_evaluate`` after the model is built, on
every rank. The run's settings are read, in this order, from ``simple_evaluate``'s own arguments
(found on the call stack: covers the CLI, ``--config`` files and the Python API) and from the
command line the process was started with (``--model_args a=b,c=d`` or ``--model_args=...``).
The rank and world size come from ``torch.distributed`` when it is initialised, else from the
launcher's ``RANK``/``WORLD_SIZE`` variables.
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field

__all__ = ["FRAME_ARGS", "RunContext", "model_frame_setting", "rank_share", "run_context"]

# Frame-count arguments of lmms-eval 0.7.3's video models (``__init__`` parameters found in
# lmms_eval/models): max_num_frames (qwen2_vl, qwen2_5_vl, qwen3_vl, gemma3, huggingface, ...),
# max_frames_num (llava_onevision, llava_hf, openai, gemini, claude, ...), num_frames (internvl_hf,
# llama_vid, ...), nframes (vllm, sglang, async_openai), max_frames (qwen3_5, vita, async_openai),
# max_frame_num (vllm, sglang, longvila), num_frame (internvl2/3), video_max_frames (cambrians),
# num_frm (video_chatgpt), num_video_frames (omnivinci), decode_num_frames (dummy). frames_upbound
# (LLaVA-Video's name) is not in 0.7.3's models but is accepted too. Earlier names win.
FRAME_ARGS = (
    "max_num_frames", "max_frames_num", "num_frames", "nframes", "frames_upbound", "max_frames", "max_frame_num",
    "num_frame", "video_max_frames", "num_frm", "num_video_frames", "decode_num_frames",
)  # fmt: skip


@dataclass
class RunContext:
    """The run's model args (as strings), ``--limit``/``--offset``, and this process's rank."""

    model_args: dict[str, str] = field(default_factory=dict)
    limit: float | None = None
    offset: int = 0
    rank: int = 0
    world_size: int = 1


def parse_model_args(raw: object) -> dict[str, str]:
    """``"a=b,c=d"`` (or a dict) as ``{"a": "b", "c": "d"}``; items without ``=`` are ignored."""
    if isinstance(raw, dict):
        return {str(k): str(v) for k, v in raw.items()}
    out: dict[str, str] = {}
    for item in str(raw or "").split(","):
        key, sep, value = item.partition("=")
        if sep and key.strip():
            out[key.strip()] = value.strip()
    return out


def _argv_value(argv: list[str], flag: str) -> str | None:
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(flag + "="):
            return arg[len(flag) + 1 :]
    return None


def _number(raw: object) -> float | None:
    try:
        return float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def _evaluate_frame() -> dict | None:
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "simple_evaluate" and "model_args" in frame.f_locals:
            return frame.f_locals
        frame = frame.f_back
    return None


def _rank_and_world() -> tuple[int, int]:
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
    except ImportError:
        pass
    try:
        return int(os.environ.get("RANK", "0") or 0), max(1, int(os.environ.get("WORLD_SIZE", "1") or 1))
    except ValueError:
        return 0, 1


def run_context(argv: list[str] | None = None) -> RunContext:
    """The settings of the lmms-eval run this code is called from (defaults when there is none)."""
    ctx = RunContext()
    ctx.rank, ctx.world_size = _rank_and_world()
    found = _evaluate_frame()
    if found is not None:
        ctx.model_args = parse_model_args(found.get("model_args"))
        ctx.limit = _number(found.get("limit"))
        ctx.offset = int(_number(found.get("offset")) or 0)
        return ctx
    argv = sys.argv if argv is None else argv
    ctx.model_args = parse_model_args(_argv_value(argv, "--model_args"))
    ctx.limit = _number(_argv_value(argv, "--limit"))
    ctx.offset = int(_number(_argv_value(argv, "--offset")) or 0)
    return ctx


def model_frame_setting(ctx: RunContext | None = None) -> tuple[str, int] | None:
    """``(name, N)`` of the first frame-count model arg with a positive integer value, or None."""
    args = (ctx or run_context()).model_args
    for name in FRAME_ARGS:
        value = _number(args.get(name))
        if value is not None and value > 0 and value.is_integer():
            return name, int(value)
    return None


def rank_share(items: list, ctx: RunContext | None = None) -> list:
    """The items this rank will be asked for: lmms-eval's ``islice(docs, rank + offset, offset + limit, world)``."""
    ctx = ctx or run_context()
    limit = ctx.limit
    if not limit or limit < 0:  # None, 0 and -1 all mean every doc in lmms-eval
        count = None
    elif 0 < limit < 1:
        count = math.ceil(len(items) * limit)  # lmms-eval's get_sample_size
    else:
        count = int(limit)
    stop = None if count is None else ctx.offset + count
    return items[ctx.rank + ctx.offset : stop : ctx.world_size]
