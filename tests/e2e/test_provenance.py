"""The provenance record in the results of real lmms-eval runs, and safe resumes with lmms-eval's response cache
(``--use_cache``)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from temporal_tasks.cli import demo_responses
from temporal_tasks.data.fixtures import write_fixtures
from temporal_tasks.harness import provenance
from temporal_tasks.tools import provenance as read_back

_STATS = re.compile(r"ResponseCache stats: (\d+) hits, .*?(\d+) misses")


def _cache_hits(output: str) -> tuple[int, int]:
    m = _STATS.search(output)
    assert m, f"no ResponseCache stats in the output:\n{output[-3000:]}"
    return int(m.group(1)), int(m.group(2))


def _answers(module: str, monkeypatch, root: Path, **kw) -> dict[str, str]:
    import importlib

    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(root))
    package = f"temporal_tasks.benchmarks.{module}"
    tasks = importlib.import_module(f"{package}.tasks")
    load_docs = getattr(tasks, "load_docs", None) or importlib.import_module(f"{package}.loader").load_docs
    docs = load_docs(**kw)
    return {line["question_id"]: line["response"] for line in demo_responses(docs, seed=3)}


def _record(run, task: str) -> dict:
    return run.results["configs"][task]["metadata"]["provenance"]


def test_record_in_results_and_cache_misses_on_new_videos(lmms_eval, tmp_path, monkeypatch):
    root = tmp_path / "data"
    write_fixtures(root, ["timeblind", "vinoground"])
    from tests.conftest import write_responses

    # One responses file: its path is a model argument, and so part of the cache key.
    answers = write_responses(tmp_path / "answers.jsonl", _answers("timeblind", monkeypatch, root))
    args = ["--use_cache", str(tmp_path / "response-cache")]
    first = lmms_eval("timeblind_iacc", responses=answers, data_dir=root, args=args)
    rec = _record(first, "timeblind_iacc")
    assert rec["version"] == provenance.PROVENANCE_VERSION and rec["task"] == "timeblind_iacc"
    assert rec["reading"] == "robust" and rec["benchmark"] == "timeblind"
    assert rec["data"]["kind"] == "local" and rec["data"]["path"] == str(root / "timeblind")
    assert rec["data"]["questions"] == 16 and rec["data"]["videos"] == 8
    assert rec["frames"] == {"n": None, "source": "the model's default", "applies_to": "model"}
    assert rec["cut"] == {"limit": None, "offset": 0}
    assert _cache_hits(first.output)[0] == 0

    second = lmms_eval("timeblind_iacc", responses=answers, data_dir=root, args=args)
    hits, misses = _cache_hits(second.output)
    assert hits / (hits + misses) >= 0.98
    assert second.metrics("timeblind_iacc") == first.metrics("timeblind_iacc")

    # Another data revision: every video replaced by a different file (same names, other sizes).
    from temporal_tasks.data.fixtures.clips import moving, write_video

    videos = sorted((root / "timeblind" / "videos").rglob("*.mp4"))
    assert videos
    for video in videos:
        other = write_video(tmp_path / "other.mp4", moving("right_to_left", "red"), num_frames=24)
        assert other.stat().st_size != video.stat().st_size
        shutil.copyfile(other, video)
    third = lmms_eval("timeblind_iacc", responses=answers, data_dir=root, args=args)
    assert _cache_hits(third.output)[0] == 0
    rec3 = _record(third, "timeblind_iacc")
    assert rec3["data"]["videos_sha256"] != rec["data"]["videos_sha256"]
    assert rec3["data"]["annotations_sha256"] == rec["data"]["annotations_sha256"]
    assert read_back.differences(rec, rec3) == [
        f'data.videos_sha256: "{rec["data"]["videos_sha256"]}" != "{rec3["data"]["videos_sha256"]}"'
    ]


def test_cache_misses_when_n_changes(lmms_eval, fixture_root, tmp_path, monkeypatch):
    answers = _answers("vinoground", monkeypatch, fixture_root, variant="group")
    responses = tmp_path / "answers.jsonl"
    from tests.conftest import write_responses

    write_responses(responses, answers)
    args = ["--use_cache", str(tmp_path / "response-cache")]
    base = lmms_eval("vinoground_group", model_args=f"responses={responses},max_num_frames=8", args=args)
    rec = _record(base, "vinoground_group")
    # temporal_replay keeps max_num_frames as an instance attribute, as the video models do: that is where N is read
    source = "model instance attribute max_num_frames=8"
    assert rec["frames"] == {"n": 8, "source": source, "applies_to": "paired videos"}
    assert rec["paired_layout"] == {"frames_per_clip": 3, "black_frames": 2}
    from temporal_tasks.tools.report import summary_table

    shown = summary_table([tmp_path / "run1" / "results"])
    assert f"vinoground_group: reading robust; N=8 ({source}; paired videos); paired 3+2+3" in shown
    same = lmms_eval("vinoground_group", model_args=f"responses={responses},max_num_frames=8", args=args)
    assert _cache_hits(same.output)[1] == 0

    env = lmms_eval(
        "vinoground_group", model_args=f"responses={responses},max_num_frames=8", args=args,
        env={"TEMPORAL_TASKS_NUM_FRAMES": "16"},
    )  # fmt: skip
    assert _cache_hits(env.output)[0] == 0
    assert _record(env, "vinoground_group")["frames"]["n"] == 16
    assert _record(env, "vinoground_group")["frames"]["source"] == "TEMPORAL_TASKS_NUM_FRAMES"

    model = lmms_eval("vinoground_group", model_args=f"responses={responses},max_num_frames=12", args=args)
    assert _cache_hits(model.output)[0] == 0
    assert read_back.differences(rec, _record(model, "vinoground_group"))[:2] == [
        "frames.n: 8 != 12",
        'paired_layout: {"frames_per_clip": 3, "black_frames": 2} != {"frames_per_clip": 5, "black_frames": 2}',
    ]
