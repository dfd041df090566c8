"""Derived visuals are built ahead only for a model that reads visuals (issue 39): the model instance declares it
(``reads_visuals``); replay reads none unless it stands in for a GPU model; a model without the declaration reads
them, as lmms-eval's models do."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from temporal_tasks import video
from temporal_tasks.base import settings
from temporal_tasks.base.run_state import STATE
from temporal_tasks.benchmarks.vinoground import tasks as vinoground
from temporal_tasks.harness import shortcuts
from temporal_tasks.video import paired, shortcut_files


class _Watcher:
    """A video model as lmms-eval's are: a frame count, no declaration."""

    def __init__(self, n: int = 5) -> None:
        self.max_num_frames = n


class _OwnReplay(_Watcher):
    """A user's own replay-like model: it declares that it reads no visuals."""

    reads_visuals = False


def _in_simple_evaluate(model, probe):
    """Run ``probe()`` inside a stand-in for lmms-eval's ``simple_evaluate`` frame holding ``model`` as ``lm``."""

    def simple_evaluate(model=None, model_args=None, limit=None, offset=0, num_fewshot=None):
        lm = model  # noqa: F841 - read from this frame, as from lmms-eval's own
        return probe()

    return simple_evaluate(model=model, model_args="")


def _replay(tmp_path: Path, **kwargs):
    from temporal_tasks.harness.replay import TemporalReplay

    responses = tmp_path / "r.jsonl"
    responses.write_text('{"question_id": "q0", "response": "A"}\n')
    return TemporalReplay(responses=str(responses), max_num_frames=5, **kwargs)


@pytest.fixture
def recorded(monkeypatch, offline_env, tmp_path):
    """Every paired-video and shuffled-file build, by target (stub files), in this test's own cache folder."""
    built: list[Path] = []
    lock = threading.Lock()

    def record(out) -> Path:
        time.sleep(0.01)
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_bytes(b"stub")
        with lock:
            built.append(Path(out))
        return Path(out)

    monkeypatch.setattr(paired, "build_paired_video", lambda first, second, out, n=32: record(out))
    monkeypatch.setattr(shortcut_files, "build_shuffled_video", lambda clip, out, n: record(out))
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(settings.ENV_NUM_FRAMES, raising=False)
    for label, kind in (("vinoground", "paired video"), ("shortcuts", "shortcut file")):
        STATE.builders[label] = video.BackgroundBuilds(label, workers=2, kind=kind)
    yield built
    for label in ("vinoground", "shortcuts"):
        STATE.builders[label].shutdown()


def _wait_idle(builds: video.BackgroundBuilds, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while builds.alive() and time.monotonic() < end:
        time.sleep(0.01)
    assert builds.alive() == 0


def _files(tmp_path: Path) -> list[Path]:
    built = [p for d in ("paired_videos", "shortcuts") for p in (tmp_path / "cache" / d).rglob("*.mp4")]
    return sorted(p for p in built if not p.name.startswith("."))


@pytest.mark.parametrize("model", [_OwnReplay(), "replay"], ids=["own_declaration", "temporal_replay"])
def test_a_model_that_reads_no_visuals_gets_none_built(model, recorded, tmp_path, capsys):
    model = _replay(tmp_path) if model == "replay" else model

    def load():
        rows = list(vinoground.process_docs_group(None))
        shortcut_docs = shortcuts.load_variant_docs("timeblind_iacc", "shuffled")
        return rows, shortcut_docs

    rows, shortcut_docs = _in_simple_evaluate(model, load)
    assert any(r["paired"] for r in rows) and shortcut_docs
    # N is still the run's setting (the provenance records it): the docs carry it, no file is made for it
    assert {r["num_frames"] for r in rows if r["paired"]} == {5}
    assert {d["shortcut_frames"] for d in shortcut_docs} == {5}
    for label in ("vinoground", "shortcuts"):
        builds = STATE.builders[label]
        assert builds.planned == 0 and builds.alive() == 0, label
    assert STATE.deferred == {}  # not waiting for a first request either
    time.sleep(0.1)
    assert recorded == [] and _files(tmp_path) == []
    err = capsys.readouterr().err
    name = type(model).__name__
    assert f"vinoground: no paired video built ahead: the model ({name}) reads no visuals (reads_visuals=False)" in err
    assert f"timeblind_iacc_shuffled: no shuffled file built ahead: the model ({name}) reads no visuals" in err
    assert "vinoground: paired videos have N=5 frames (model instance attribute max_num_frames=5)" in err


@pytest.mark.parametrize("model", [_Watcher(), "replay"], ids=["lmms_eval_like", "temporal_replay_visuals"])
def test_a_model_that_reads_visuals_gets_each_built_once_ahead(model, recorded, tmp_path):
    model = _replay(tmp_path, visuals="true") if model == "replay" else model
    rows = _in_simple_evaluate(model, lambda: list(vinoground.process_docs_group(None)))
    builds = STATE.builders["vinoground"]
    pairs = {tuple(r["videos"]) for r in rows if r["paired"]}  # two questions may share a paired video
    assert builds.planned == sum(r["paired"] for r in rows) > len(pairs) > 0
    _wait_idle(builds)  # every paired video built in the background, before the model asks
    assert len(recorded) == len(pairs)
    served = _in_simple_evaluate(model, lambda: [vinoground.question_video(r)[0] for r in rows if r["paired"]])
    assert len(recorded) == len(set(recorded)) == len(pairs)  # each built exactly once, none again when asked
    assert {Path(p) for p in served} == set(recorded) == set(_files(tmp_path))
    assert {p.parent.name for p in recorded} == {"n5"} and builds._waits[0] == 0


def test_a_request_still_gets_its_file_from_a_model_that_declared_none(recorded, tmp_path):
    # the declaration only stops building ahead: a model that asks for a visual anyway gets the real file
    rows = _in_simple_evaluate(_OwnReplay(), lambda: list(vinoground.process_docs_group(None)))
    row = next(r for r in rows if r["paired"])
    (path,) = _in_simple_evaluate(_OwnReplay(), lambda: vinoground.question_video(row))
    assert recorded == [Path(path)] and Path(path).parent.name == "n5"


def test_a_declaration_that_is_not_a_bool_stops_the_run_naming_the_model(recorded):
    class Unsure(_Watcher):
        reads_visuals = "no"

    with pytest.raises(SystemExit, match=r"model Unsure: reads_visuals='no' is not True or False"):
        _in_simple_evaluate(Unsure(), lambda: vinoground.process_docs_group(None))
    assert recorded == []


def test_tasks_built_before_evaluate_defer_their_builds_whatever_the_model(recorded, monkeypatch):
    # no model on the stack (a script builds its tasks, then calls evaluate(lm, ...)): the builds wait for the first
    # request, which only a model that reads visuals makes
    import sys

    monkeypatch.setattr(sys, "argv", ["my_script.py"])
    list(vinoground.process_docs_group(None))
    assert ("vinoground", "group") in STATE.deferred and STATE.builders["vinoground"].planned == 0
    assert recorded == []


def test_replay_declares_what_it_reads(tmp_path):
    from temporal_tasks import compat
    from temporal_tasks.harness.replay import TemporalReplay

    assert TemporalReplay.reads_visuals is False
    assert compat.model_reads_visuals(_replay(tmp_path)) is False  # plain replay: answers only
    assert compat.model_reads_visuals(_replay(tmp_path, visuals="true")) is True
    assert compat.model_reads_visuals(_replay(tmp_path, latency_ms="5")) is True  # a stand-in for a GPU model
    assert compat.model_reads_visuals(_replay(tmp_path, latency_ms="5", visuals="false")) is False
    assert compat.model_reads_visuals(_Watcher()) is True  # no declaration: lmms-eval's models read visuals
    with pytest.raises(SystemExit, match=r"temporal_replay: visuals='maybe'; use visuals=true or visuals=false"):
        _replay(tmp_path, visuals="maybe")
