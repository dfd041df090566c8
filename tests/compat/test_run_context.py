"""The run's settings as lmms-eval gives them (``compat/run_context.py``): model arguments, limit and offset from the
command line or ``simple_evaluate``, the model's frame setting, a rank's share, the launcher's variables."""

from __future__ import annotations

import sys

import pytest

from temporal_tasks.base import settings
from temporal_tasks.compat import run_context
from temporal_tasks.compat.run_context import Launcher, launcher
from tests.helpers.stand_ins import FrameModel

# ----------------------------------------------------------------------------- run context


@pytest.mark.parametrize(
    "argv",
    [["lmms_eval", "--model", "x", "--model_args", "pretrained=p,max_num_frames=9", "--limit", "7"],
     ["lmms_eval", "--model_args=pretrained=p,max_num_frames=9", "--limit=7"]],
)  # fmt: skip
def test_run_context_from_the_command_line(argv, monkeypatch):
    monkeypatch.delenv("RANK", raising=False)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    ctx = run_context.run_context(argv)
    assert ctx.model_args == {"pretrained": "p", "max_num_frames": "9"} and ctx.limit == 7 and ctx.offset == 0
    assert run_context.model_frame_setting(ctx) == ("max_num_frames", 9)


def test_run_context_from_simple_evaluate_wins_over_argv(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["lmms_eval", "--model_args", "max_num_frames=9"])

    def simple_evaluate(model_args=None, limit=None, offset=0):  # stands for lmms-eval's, found on the stack
        return run_context.run_context()

    ctx = simple_evaluate(model_args={"max_frames_num": 16, "fps": 1}, limit=0.5, offset=2)
    assert run_context.model_frame_setting(ctx) == ("max_frames_num", 16) and (ctx.limit, ctx.offset) == (0.5, 2)


def test_frame_setting_ignores_non_counts():
    ctx = run_context.RunContext(model_args={"nframes": "0", "fps": "2", "num_frames": "abc", "max_frames": "12"})
    assert run_context.model_frame_setting(ctx) == ("max_frames", 12)
    assert run_context.model_frame_setting(run_context.RunContext()) is None


@pytest.mark.parametrize("world", [1, 2, 3])
@pytest.mark.parametrize("limit", [None, 0, -1, 5, 0.3, 100])
@pytest.mark.parametrize("offset", [0, 3])
def test_rank_share_matches_lmms_eval_sharding(world, limit, offset):
    from lmms_eval.evaluator_utils import get_sample_size
    from lmms_eval.utils import create_iterator

    docs = list(range(23))

    class Task:
        eval_docs = docs

    for rank in range(world):
        n = get_sample_size(Task, limit)
        # lmms-eval builds requests for the rank's docs, then keeps `instances[:n]`: none with --limit 0
        expected = list(create_iterator(iter(docs), rank=rank, world_size=world, limit=n or None, offset=offset))[:n]
        ctx = run_context.RunContext(limit=limit, offset=offset, rank=rank, world_size=world)
        assert run_context.rank_share(docs, ctx) == expected


def test_simple_evaluate_instance_wins_over_its_model_args(monkeypatch):
    monkeypatch.delenv(settings.ENV_NUM_FRAMES, raising=False)

    def simple_evaluate(model=None, model_args=None, limit=None, offset=0, num_fewshot=None):
        lm = model  # noqa: F841 - read from this frame, as from lmms-eval's own
        return run_context.run_context()

    ctx = simple_evaluate(model=FrameModel(8), model_args="max_num_frames=16", limit=3)
    assert run_context.model_frame_setting(ctx).describe() == "model instance attribute max_num_frames=8"
    assert ctx.limit == 3 and ctx.where == "simple_evaluate"
    ctx = simple_evaluate(model="qwen2_5_vl", model_args="max_num_frames=16")
    assert run_context.model_frame_setting(ctx).describe() == "--model_args max_num_frames=16"


def test_the_launchers_variables(monkeypatch):
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    assert launcher() == Launcher(0, 1, 0, 1)
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("WORLD_SIZE", "4")
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    assert launcher() == Launcher(3, 4, 1, 2)
    monkeypatch.setenv("WORLD_SIZE", "many")
    with pytest.raises(ValueError, match="WORLD_SIZE='many' is not an integer"):
        launcher()
