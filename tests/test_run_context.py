"""N (the paired videos' frame count) comes from the model instance lmms-eval evaluates, not a script's argv;
``--num_fewshot`` above zero is a clear error (issue 24)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from temporal_tasks import video
from temporal_tasks.base import settings
from temporal_tasks.base.run_state import STATE
from temporal_tasks.compat import run_context
from tests.helpers.stand_ins import FrameModel, fake_evaluate


def test_evaluate_takes_n_from_the_model_instance_not_the_scripts_argv(monkeypatch):
    monkeypatch.delenv(settings.ENV_NUM_FRAMES, raising=False)
    monkeypatch.setattr(sys, "argv", ["my_script.py", "--model_args", "max_num_frames=16"])
    ns = fake_evaluate()
    ns["probe"] = video.num_frames_setting
    assert ns["evaluate"](FrameModel(8), {}) == (8, "model instance attribute max_num_frames=8")
    # no evaluation on the stack and a script's own command line: the default, announced as such
    n, source = video.num_frames_setting()
    assert n == 32 and source.startswith("default 32 (no frame setting found; set TEMPORAL_TASKS_NUM_FRAMES")
    # the lmms-eval command line is read when it is the process's
    monkeypatch.setattr(sys, "argv", ["lmms_eval", "--model_args", "max_num_frames=16"])
    assert video.num_frames_setting() == (16, "--model_args max_num_frames=16")
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "12")
    assert video.num_frames_setting() == (12, "TEMPORAL_TASKS_NUM_FRAMES")


def test_tasks_built_before_evaluate_build_their_videos_with_the_models_n(offline_env, monkeypatch, tmp_path):
    """A script builds the task dict, then calls evaluate(lm, ...): no build before the model is known."""
    from temporal_tasks.benchmarks.vinoground import tasks as vinoground

    cache = tmp_path / "cache"
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(cache))
    monkeypatch.delenv(settings.ENV_NUM_FRAMES, raising=False)
    monkeypatch.setattr(sys, "argv", ["my_script.py", "--model_args", "max_num_frames=16"])
    builds = video.BackgroundBuilds("vinoground", workers=1)
    STATE.builders["vinoground"] = builds
    rows = list(vinoground.process_docs_group(None))  # what get_task_dict runs, before evaluate()
    assert ("vinoground", "group") in STATE.deferred and not list(cache.rglob("paired_videos/**/*.mp4"))
    ns = fake_evaluate()
    ns["probe"] = lambda: [vinoground.doc_to_visual(row)[0] for row in rows if row["paired"]]
    paths = ns["evaluate"](FrameModel(5), {})
    builds.shutdown()
    assert {Path(p).parent.name for p in paths} == {"n5"} and not STATE.deferred
    assert {p.parent.name for p in cache.rglob("paired_videos/*/*.mp4")} == {"n5"}  # none at 16 or 32


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


def test_announce_prints_once_on_stderr(capsys):
    video.announce("test: paired videos have N=7 frames (x)")
    video.announce("test: paired videos have N=7 frames (x)")
    assert capsys.readouterr().err.count("N=7 frames") == 1


def test_num_fewshot_above_zero_is_a_clear_error(monkeypatch):
    from temporal_tasks.harness.task_docs import check_zero_shot

    def simple_evaluate(model_args=None, num_fewshot=None):
        check_zero_shot()

    simple_evaluate(model_args="", num_fewshot=0)
    with pytest.raises(SystemExit, match="--num_fewshot 2: these temporal-reasoning tasks are zero-shot"):
        simple_evaluate(model_args="", num_fewshot=2)
