"""N, the frame count of built videos (``video/frame_count.py``): from the model instance lmms-eval evaluates, not a
script's argv; the environment variable wins and a difference warns once; announced once."""

from __future__ import annotations

import sys

import pytest

from temporal_tasks import video
from temporal_tasks.base import settings
from tests.helpers.stand_ins import FrameModel, fake_evaluate


def test_env_wins_and_a_difference_warns_once_with_both_values(monkeypatch):
    from temporal_tasks.base import log

    warnings: list[str] = []
    monkeypatch.setattr(log.logger, "warning", warnings.append)
    monkeypatch.delenv(settings.ENV_NUM_FRAMES, raising=False)
    assert video.resolve_num_frames(("max_num_frames", 9)) == (9, "--model_args max_num_frames=9")
    assert video.resolve_num_frames(None)[0] == 32
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "16")
    for _ in range(3):
        assert video.resolve_num_frames(("max_num_frames", 9))[0] == 16
    assert len(warnings) == 1 and "TEMPORAL_TASKS_NUM_FRAMES=16" in warnings[0] and "max_num_frames=9" in warnings[0]
    assert video.resolve_num_frames(("max_num_frames", 16))[0] == 16 and len(warnings) == 1
    monkeypatch.delenv(settings.ENV_NUM_FRAMES)
    with pytest.raises(ValueError, match="max_num_frames=2"):
        video.resolve_num_frames(("max_num_frames", 2))


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


def test_announce_prints_once_on_stderr(capsys):
    video.announce("test: paired videos have N=7 frames (x)")
    video.announce("test: paired videos have N=7 frames (x)")
    assert capsys.readouterr().err.count("N=7 frames") == 1


def test_num_frames_from_env(monkeypatch):
    monkeypatch.delenv(settings.ENV_NUM_FRAMES, raising=False)
    assert settings.num_frames() is None
    assert video.resolve_num_frames(None) == (32, video.DEFAULT_SOURCE)
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "16")
    assert settings.num_frames() == 16
    assert video.resolve_num_frames(None) == (16, settings.ENV_NUM_FRAMES)
    for bad in ("2", "abc"):
        monkeypatch.setenv(settings.ENV_NUM_FRAMES, bad)
        with pytest.raises(ValueError, match=settings.ENV_NUM_FRAMES):
            settings.num_frames()
