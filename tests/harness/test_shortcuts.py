"""The shortcut variants' task hooks (``harness/shortcuts.py``): configs that reuse the main task, a blind visual,
the main task's docs with their files built ahead, and a failed build named."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from temporal_tasks import video
from temporal_tasks.api.registry import get
from temporal_tasks.base import settings
from temporal_tasks.base.run_state import STATE
from temporal_tasks.data.sources import DataError
from temporal_tasks.harness import shortcuts
from temporal_tasks.harness.task_configs import our_tasks, task_config
from temporal_tasks.video import shortcut_files
from tests.helpers.shortcuts import MAIN, SHORTCUT_TASKS

# --------------------------------------------------------------------------- task tree


def test_variant_configs_reuse_the_main_task():
    tasks = our_tasks()
    for bench, main in MAIN.items():
        main_cfg = task_config(main)
        for name in SHORTCUT_TASKS[bench]:
            assert tasks[name][0] == "task"
            cfg = task_config(name)
            # same docs (except vinoground's text-only blind task), parser, prompt and aggregation
            if name != "vinoground_text_blind":
                # variants with files to build load the main docs through their own process_docs (which plans
                # this rank's background builds); test_variant_docs_are_the_main_docs checks they are the same
                own = (
                    ("task", "doc_to_visual") if name.endswith("_blind") else ("task", "doc_to_visual", "process_docs")
                )
                assert {k: v for k, v in cfg.items() if k not in own} == {
                    k: v for k, v in main_cfg.items() if k not in own
                }
                variant = name.rsplit(main + "_", 1)[1]
                assert cfg["doc_to_visual"][1] == f"temporal_tasks.harness.kit.{variant}_visual"
                if variant != "blind":  # one process_docs per variant; the main task from the benchmark's spec
                    assert cfg["process_docs"][1] == f"temporal_tasks.harness.kit.process_docs_{variant}"
                    assert get(bench).shortcut_main == main
        group = task_config(f"{bench}_shortcuts")
        assert group["task"] == [main, *SHORTCUT_TASKS[bench]]


def test_blind_visual_is_empty():
    assert shortcuts.blind_visual({"question_id": "0", "videos": ["x.mp4"]}) == []


@pytest.fixture
def fresh_builds(monkeypatch):
    """A fresh background scheduler for the shortcut variants (the module's one is shared by the process)."""
    builds = video.BackgroundBuilds("shortcuts", workers=2, kind="shortcut file")
    STATE.builders["shortcuts"] = builds
    yield builds
    builds.shutdown()


def _wait_idle(builds: video.BackgroundBuilds, seconds: float = 120) -> None:
    end = time.monotonic() + seconds
    while builds.alive() and time.monotonic() < end:
        time.sleep(0.02)
    assert builds.alive() == 0


def _loaded_main_docs(main: str) -> list[dict]:
    """The main task's docs straight from its benchmark's loader (independent of the task configs)."""
    import importlib

    bench = get(main.split("_", 1)[0])
    module = importlib.import_module(f"{bench.package}.tasks")
    if bench.name == "vinoground":
        return module.load_docs(variant="group", log_frames=False)
    if bench.name == "velociti":
        return module.load_docs(kind="entail")
    if bench.name == "temporalbench":
        return module.load_qa("short_qa")
    return module.load_docs()


@pytest.mark.parametrize(("main", "variant"), [("timeblind_iacc", "shuffled"), ("vinoground_group", "single_frame")])
def test_variant_docs_are_the_main_docs_and_their_files_are_built_ahead(
    offline_env, monkeypatch, fresh_builds, tmp_path, main, variant
):
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "5")
    monkeypatch.setattr(sys, "argv", ["lmms_eval"])
    main_docs = _loaded_main_docs(main)
    assert shortcuts.main_docs(main) == main_docs  # from the main task's process_docs
    docs = shortcuts.load_variant_docs(main, variant)
    assert [{k: v for k, v in d.items() if not k.startswith("shortcut_")} for d in docs] == main_docs
    assert {(d["shortcut_task"], d["shortcut_frames"]) for d in docs} == {(f"{main}_{variant}", 5)}
    _wait_idle(fresh_builds)  # every file of the rank built in the background, before the model asks
    assert all(not shortcut_files.cached_visual(d, variant, 5)[1] for d in docs)
    visual = shortcuts.shuffled_visual if variant == "shuffled" else shortcuts.single_frame_visual
    import datasets

    for doc in datasets.Dataset.from_list(docs):  # the rows as lmms-eval hands them to doc_to_visual
        got = visual(doc)[0]
        if isinstance(got, str):
            assert got == str(shortcut_files.cached_visual(doc, variant, 5)[0])
    assert fresh_builds._waits[0] == 0  # no question waited for its file


@pytest.mark.parametrize("known", [True, False])
@pytest.mark.parametrize("main", ["vinoground_group", "velociti_strictvle", "temporalbench_short_mba"])
def test_variant_docs_inside_docs_only_start_no_build(offline_env, monkeypatch, fresh_builds, tmp_path, main, known):
    from temporal_tasks.harness.task_configs import resolve_function
    from temporal_tasks.harness.task_docs import task_docs

    cache = tmp_path / "cache"
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(cache))
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "5" if known else "")
    monkeypatch.setattr(sys, "argv", ["lmms_eval"] if known else ["my_script.py"])
    main_builds = video.BackgroundBuilds("vinoground", workers=1)  # the main task's paired-video builds
    STATE.builders["vinoground"] = main_builds
    for variant in ("single_frame", "shuffled"):
        process_docs = resolve_function(task_config(f"{main}_{variant}")["process_docs"])
        docs = task_docs(process_docs, f"{main}_{variant}")  # what rescoring a --predict_only run of the variant reads
        assert [{k: v for k, v in d.items() if not k.startswith("shortcut_")} for d in docs] == _loaded_main_docs(main)
        assert {d["shortcut_task"] for d in docs} == {f"{main}_{variant}"}
    # nothing planned, deferred or built: neither the variants' files nor the main task's paired videos
    assert fresh_builds._entries == [] and main_builds._entries == [] and fresh_builds.alive() == 0
    assert STATE.deferred == {}
    assert not (cache / "paired_videos").exists() and not (cache / "shortcuts").exists()  # (zips are extracted)


def test_a_failed_background_build_names_the_clip(offline_env, monkeypatch, fresh_builds, tmp_path):
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "5")
    monkeypatch.setattr(sys, "argv", ["lmms_eval"])
    bad = {}

    def broken(clip, out, n):
        bad.setdefault("clip", str(clip))
        if str(clip) == bad["clip"]:
            raise RuntimeError("moov atom not found")
        Path(out).write_bytes(b"stub")
        return Path(out)

    monkeypatch.setattr(shortcut_files, "build_shuffled_video", broken)
    docs = shortcuts.load_variant_docs("timeblind_iacc", "shuffled")
    _wait_idle(fresh_builds)
    other = next(d for d in docs if d["videos"][0] != bad["clip"])
    with pytest.raises(SystemExit, match="moov atom not found") as err:
        shortcuts.shuffled_visual(other)  # any next request stops the run, not only the broken one
    assert f"shortcuts: could not build the shuffled video of {bad['clip']} (N=5)" in str(err.value)


def test_variant_process_docs_refuses_a_task_that_is_not_a_shortcut_variant(offline_env):
    from temporal_tasks.harness.shortcuts import process_docs_shuffled, process_docs_single_frame
    from temporal_tasks.harness.task_docs import docs_only

    for fn, task in ((process_docs_single_frame, "timeblind_iacc"), (process_docs_shuffled, "mytask_shuffled")):
        with docs_only(task), pytest.raises(DataError, match="variant of a benchmark's shortcut main task"):
            fn(None)
