"""What we can learn about the lmms-eval run we are part of: the model, --limit/--offset, rank.

``process_docs`` runs inside ``lmms_eval.evaluator.simple_evaluate`` after the model is built, on
every rank (the CLI, ``--config`` files, ``simple_evaluate(model=...)``); a task's requests run inside
``evaluate`` (also when a script calls ``evaluate(lm, task_dict)`` itself). The run's settings are read
from those frames on the call stack (:mod:`temporal_tasks.compat` holds every such reach): the model
instance's own frame attribute first, then ``simple_evaluate``'s ``model_args``. Only when no such frame
exists *and* the process is the lmms-eval CLI is the command line read (``--model_args a=b,c=d``);
a script's own ``sys.argv`` is never taken for the run's. The rank and world size come from
``torch.distributed`` when it is initialised, else from the launcher's ``RANK``/``WORLD_SIZE`` variables
(:func:`launcher`: the one place the package reads the launcher's variables).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any

from temporal_tasks.compat import (
    FRAME_ARGS,
    command_line_setting,
    evaluation_frames,
    instance_frame_setting,
    is_lmms_eval_command_line,
    shard,
)

__all__ = [
    "FRAME_ARGS",
    "FrameSetting",
    "Launcher",
    "RunContext",
    "launcher",
    "model_frame_setting",
    "rank_share",
    "run_context",
]


class FrameSetting(tuple):
    """``(name, N)`` of the model's frame setting, with ``origin``: where it was read."""

    origin: str

    def __new__(cls, name: str, value: int, origin: str = "--model_args") -> FrameSetting:
        self = super().__new__(cls, (name, value))
        self.origin = origin
        return self

    def describe(self) -> str:
        """E.g. ``"model instance attribute max_num_frames=8"`` or ``"--model_args max_num_frames=8"``."""
        return f"{self.origin} {self[0]}={self[1]}"


@dataclass
class RunContext:
    """The run's model args (as strings), ``--limit``/``--offset``, and this process's rank."""

    model_args: dict[str, str] = field(default_factory=dict)
    limit: float | None = None
    offset: int = 0
    rank: int = 0
    world_size: int = 1
    num_fewshot: int | None = None  # --num_fewshot of the run, when given
    model_frames: tuple[str, int] | None = None  # the model instance's own frame attribute, when found
    model: Any = None  # the model instance lmms-eval evaluates, when on the stack
    where: str = "none"  # "simple_evaluate", "evaluate", "command line" or "none"


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


def _number(raw: object) -> float | None:
    try:
        return float(raw)  # type: ignore[arg-type]  # whatever float() takes; what it refuses is None below
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class Launcher:
    """This process's place among the processes a launcher started (torchrun, ``accelerate launch``)."""

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0  # the rank on this node: the GPU it uses
    local_world_size: int = 1  # the processes on this node


def _launcher_number(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(
            f"{name}={raw!r} is not an integer; it is the launcher's (torchrun, accelerate launch): unset it for a "
            "single process."
        ) from None


def launcher() -> Launcher:
    """The launcher's variables ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``LOCAL_WORLD_SIZE`` (torch's names; each
    unset or empty: a single process). The one place the package reads them; a non-integer is a ``ValueError``."""
    return Launcher(
        rank=_launcher_number("RANK", 0),
        world_size=max(1, _launcher_number("WORLD_SIZE", 1)),
        local_rank=_launcher_number("LOCAL_RANK", 0),
        local_world_size=max(1, _launcher_number("LOCAL_WORLD_SIZE", 1)),
    )


def _rank_and_world() -> tuple[int, int]:
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
    except ImportError:
        pass
    found = launcher()
    return found.rank, found.world_size


def run_context(argv: list[str] | None = None) -> RunContext:
    """The settings of the lmms-eval run this code is called from (defaults when there is none).

    ``argv`` (default ``sys.argv``) is read only when no evaluation frame is on the stack and it is an
    lmms-eval command line (:func:`temporal_tasks.compat.is_lmms_eval_command_line`).
    """
    ctx = RunContext()
    ctx.rank, ctx.world_size = _rank_and_world()
    found = evaluation_frames()
    if found is not None:
        ctx.where = found.where
        ctx.model = found.model
        ctx.model_frames = instance_frame_setting(found.model)
        ctx.model_args = parse_model_args(found.model_args)
        ctx.limit = _number(found.limit)
        ctx.offset = int(_number(found.offset) or 0)
        shots = _number(found.num_fewshot)
        ctx.num_fewshot = None if shots is None else int(shots)
        return ctx
    argv = sys.argv if argv is None else argv
    if not is_lmms_eval_command_line(argv):
        return ctx
    ctx.where = "command line"
    ctx.model_args = parse_model_args(command_line_setting(argv, "model_args"))
    ctx.limit = _number(command_line_setting(argv, "limit"))
    ctx.offset = int(_number(command_line_setting(argv, "offset")) or 0)
    shots = _number(command_line_setting(argv, "num_fewshot"))
    ctx.num_fewshot = None if shots is None else int(shots)
    return ctx


def model_frame_setting(ctx: RunContext | None = None) -> FrameSetting | None:
    """The model's frame count: the instance's own attribute, else the first frame-count model arg with a
    positive integer value; None when neither is found."""
    ctx = ctx or run_context()
    if ctx.model_frames is not None:
        return FrameSetting(*ctx.model_frames, origin="model instance attribute")
    args = ctx.model_args
    for name in FRAME_ARGS:
        value = _number(args.get(name))
        if value is not None and value > 0 and value.is_integer():
            return FrameSetting(name, int(value))
    return None


def rank_share(items: list, ctx: RunContext | None = None) -> list:
    """The items this rank will be asked for in the run (lmms-eval's sharding: :func:`temporal_tasks.compat.shard`)."""
    ctx = ctx or run_context()
    return shard(items, ctx.limit, ctx.offset, ctx.rank, ctx.world_size)
