"""The scheduler of derived visuals (``video/schedule.py``): tasks built before ``evaluate`` build with the model's
N; the progress bar."""

from __future__ import annotations

import sys
from pathlib import Path

from temporal_tasks import video
from temporal_tasks.base import settings
from temporal_tasks.base.run_state import STATE
from temporal_tasks.benchmarks.vinoground import tasks as vinoground
from temporal_tasks.video.schedule import BuildProgress
from tests.helpers.stand_ins import FrameModel, fake_evaluate


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
    ns["probe"] = lambda: [vinoground.question_video(row)[0] for row in rows if row["paired"]]
    paths = ns["evaluate"](FrameModel(5), {})
    builds.shutdown()
    assert {Path(p).parent.name for p in paths} == {"n5"} and not STATE.deferred
    assert {p.parent.name for p in cache.rglob("paired_videos/*/*.mp4")} == {"n5"}  # none at 16 or 32


def test_build_progress_bar(capsys):
    progress = BuildProgress(vinoground.PAIRED.progress)  # the bar of Vinoground's paired videos
    progress.expect(20)  # this rank's share
    progress.tick(False)  # cache hits show nothing
    assert progress.bar is None
    progress.tick(True)  # a build with 18 still to go: the bar appears
    assert progress.bar is not None and progress.bar.n == 2 and progress.bar.total == 20
    for _ in range(18):
        progress.tick(False)
    assert progress.bar is None  # closed when the rank's share is done
    assert "vinoground: paired videos" in capsys.readouterr().err
