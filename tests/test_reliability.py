"""Never lose a GPU run: several processes, partial runs, bad inputs, concurrent caches, parser fuzzing, secrets.

The generic tests cover every benchmark that has a fixture (``temporal_tasks.data.fixtures``).
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import shutil
import socket
import zipfile
from itertools import islice
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from temporal_tasks.answers.options import compile_options
from temporal_tasks.answers.parsing import PARSERS, load_benchmark_parsers
from temporal_tasks.cli import demo_responses, write_demo_responses
from temporal_tasks.data.fixtures import demo_tasks, writers
from temporal_tasks.data.sources import DataError, extract_zip
from temporal_tasks.harness.task_configs import resolve_function
from temporal_tasks.tools.rescore import task_config, task_metrics
from tests.helpers.hypothesis_profiles import examples

# Benchmarks register their parsers on import of their parsers module: load them all so every parser is fuzzed.
load_benchmark_parsers()


def _generate_tasks() -> list[str]:
    return [t for t in demo_tasks() if task_config(t).get("output_type", "generate_until") == "generate_until"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _clean(metrics: dict) -> dict:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in metrics.items()}


# ----------------------------------------------------------------------------- 1. several processes


@pytest.mark.slow
def test_two_processes_give_identical_metrics(lmms_eval, offline_env, tmp_path):
    responses = write_demo_responses(tmp_path / "answers.jsonl", list(writers()), seed=11)
    tasks = ",".join(demo_tasks())
    one = lmms_eval(tasks, responses=responses)
    launcher = ["-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", str(_free_port())]
    two = lmms_eval(tasks, responses=responses, launcher=launcher)
    assert "Running on rank 1" in two.output
    for task in demo_tasks():
        assert _clean(one.metrics(task)) == _clean(two.metrics(task)), task
        assert len(one.samples[task]) == len(two.samples[task])
    # Rescoring the logged samples reproduces every metric of every task, without the model.
    from temporal_tasks.tools.rescore import rescore

    for run in ("run1", "run2"):  # run2: payloads gathered from two ranks (pickled), lean lines
        rescored = rescore([tmp_path / run / "results"])["results"]
        for task in demo_tasks():
            again = {k.split(",")[0]: v for k, v in rescored[task].items() if k.endswith(",none")}
            assert _clean(again) == _clean(one.metrics(task)), (run, task)


# ----------------------------------------------------------------------------- 2. partial runs


def _task_pipeline(task: str):
    cfg = task_config(task)
    docs = list(resolve_function(cfg["process_docs"])(None))
    return docs, resolve_function(cfg["process_results"]), task_metrics(task)


def _aggregate(metrics, per_doc: list[dict]) -> dict[str, float]:
    out = {}
    for key, fn, _hib in metrics:
        items = [r[key] for r in per_doc if key in r]
        if items:
            out[key] = fn(items)
    return out


@pytest.mark.parametrize("task", _generate_tasks())
def test_every_limit_and_offset_scores_exactly_the_complete_groups(task, offline_env):
    docs, process_results, metrics = _task_pipeline(task)
    answers = {a["question_id"]: a["response"] for a in demo_responses(docs, seed=5)}
    per_doc = [process_results(d, [answers[d["question_id"]]]) for d in docs]
    n = len(docs)
    for offset in (0, 1, 3, 7):
        for limit in range(1, 51):
            picked = list(islice(range(n), offset, offset + limit))  # lmms-eval's create_iterator, one rank
            if not picked:
                continue
            got = _aggregate(metrics, [per_doc[i] for i in picked])
            for value in got.values():
                assert math.isnan(value) or -100.0 <= value <= 100.0
            # Cutting a group must be the same as never having had it: compare with the complete groups only.
            sizes: dict[str, int] = {}
            for i in picked:
                sizes[docs[i]["group_id"]] = sizes.get(docs[i]["group_id"], 0) + 1
            complete = [i for i in picked if sizes[docs[i]["group_id"]] == int(docs[i]["group_size"])]
            expected = _aggregate(metrics, [per_doc[i] for i in complete])
            for key, value in got.items():
                want = expected.get(key, math.nan)
                assert (math.isnan(value) and math.isnan(want)) or value == pytest.approx(want), (offset, limit, key)


@pytest.mark.slow
def test_cli_limit_and_offset_on_every_task(lmms_eval, offline_env, tmp_path):
    responses = write_demo_responses(tmp_path / "answers.jsonl", list(writers()), seed=2)
    run = lmms_eval(",".join(demo_tasks()), responses=responses, args=["--limit", "7", "--offset", "3"])
    for task in demo_tasks():
        assert run.results["n-samples"][task]["effective"] <= 7
        assert task in run.results["results"]


# ----------------------------------------------------------------------------- 3. bad inputs, one clear error each


@pytest.fixture
def damaged(fixture_root, tmp_path):
    """A private copy of the TimeBlind fixture to break."""
    root = tmp_path / "data"
    shutil.copytree(fixture_root / "timeblind", root / "timeblind")
    return root


def _rewrite_rows(path: Path, edit) -> None:
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    path.write_text("".join(json.dumps(r) + "\n" for r in edit(rows)))


def _drop_field(rows):
    del rows[5]["question"]
    return rows


def _swap_answers(rows):
    rows[0]["answer"] = "no"
    return rows


BAD_INPUTS = {
    "missing annotation": (lambda r: (r / "timeblind/data.jsonl").unlink(), r"missing .*data\.jsonl.*Fix:"),
    "missing field": (
        lambda r: _rewrite_rows(r / "timeblind/data.jsonl", _drop_field),
        r"data\.jsonl row 6: missing field\(s\) \['question'\]",
    ),
    "missing video": (lambda r: (r / "timeblind/videos/vid_00000_1.mp4").unlink(), r"missing:\s+\S*vid_00000_1\.mp4"),
    "zero-byte video": (
        lambda r: (r / "timeblind/videos/vid_00000_1.mp4").write_bytes(b""),
        r"empty \(0 bytes\):\s+\S*vid_00000_1\.mp4",
    ),
    "corrupt video": (
        lambda r: (r / "timeblind/videos/mcq_vid_00001_0.mp4").write_bytes(b"<html>404 Not Found</html>"),
        r"not readable videos .*:\s+\S*mcq_vid_00001_0\.mp4",
    ),
    # tolerated by default, as by the official scorer (test_timeblind.py); a stop only when strict
    "gold inconsistent with roles, TEMPORAL_TASKS_STRICT=1": (
        lambda r: _rewrite_rows(r / "timeblind/data.jsonl", _swap_answers),
        r"disagrees with the positional gold .*index 0 \(yes_no, trial q0_v0\): answer 'no'",
    ),
    "duplicate question ids": (
        lambda r: _rewrite_rows(r / "timeblind/data.jsonl", lambda rows: [*rows, rows[2]]),
        r"duplicate question ids \['2'\]",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_stops_before_any_model_call(lmms_eval, damaged, case):
    breaker, message = BAD_INPUTS[case]
    breaker(damaged)
    # Default verbosity on purpose: lmms-eval alone would exit 0 here.
    env = {"TEMPORAL_TASKS_STRICT": "1"} if "STRICT=1" in case else {"TEMPORAL_TASKS_STRICT": "0"}
    run = lmms_eval("timeblind_iacc", responses={}, data_dir=damaged, expect_ok=False, verbosity="INFO", env=env)
    assert run.returncode != 0
    assert __import__("re").search(message, run.output, flags=__import__("re").S), run.output[-3000:]
    assert "Model Responding" not in run.output and not run.results


@pytest.mark.slow
def test_malformed_replay_file_names_the_line(lmms_eval, tmp_path):
    bad = tmp_path / "answers.jsonl"
    bad.write_text('{"question_id": "0", "response": "Yes"}\n{"question_id": "1", "response": \n')
    run = lmms_eval("timeblind_iacc", responses=bad, expect_ok=False, verbosity="INFO")
    assert run.returncode != 0 and f"{bad}:2: not valid JSON" in run.output


def test_broken_zip_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    archive = tmp_path / "videos.zip"
    archive.write_bytes(b"PK\x03\x04 this is not really a zip")
    with pytest.raises(DataError, match=r"cannot extract .*videos\.zip.*download it again"):
        extract_zip(archive, "bench")
    assert not list((tmp_path / "cache").rglob("*.mp4"))


# ----------------------------------------------------------------------------- 4. concurrent cache


def _extract_after_barrier(archive: str, cache: str, barrier, queue) -> None:
    import os

    os.environ["TEMPORAL_TASKS_CACHE_DIR"] = cache
    barrier.wait()
    queue.put(str(extract_zip(Path(archive), "bench")))


def _make_zip(path: Path, n: int = 50) -> dict[str, bytes]:
    contents = {f"clips/{i:03d}.mp4": bytes([i % 256]) * (20_000 + i) for i in range(n)}
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in contents.items():
            zf.writestr(name, data)
    return contents


def test_concurrent_extraction_is_atomic(tmp_path):
    archive = tmp_path / "clips.zip"
    contents = _make_zip(archive)
    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(3), ctx.Queue()
    procs = [ctx.Process(target=_extract_after_barrier, args=(str(archive), str(tmp_path / "c"), barrier, queue))
             for _ in range(3)]  # fmt: skip
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    targets = {queue.get(timeout=5) for _ in procs}
    assert len(targets) == 1
    target = Path(targets.pop())
    for name, data in contents.items():
        assert (target / name).read_bytes() == data
    leftovers = [p.name for p in target.parent.iterdir() if p.name.startswith(".tmp-")]
    assert leftovers == []


def test_interrupted_extraction_is_never_read_as_valid(tmp_path, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "c"))
    archive = tmp_path / "clips.zip"
    contents = _make_zip(archive, 5)
    target = extract_zip(archive, "bench")
    shutil.rmtree(target)
    # A killed extraction leaves only a temporary folder under a different name ...
    stale = target.parent / f".tmp-{target.name}-999-dead"
    (stale / "clips").mkdir(parents=True)
    (stale / "clips" / "000.mp4").write_bytes(b"half")
    # ... which is never taken for the real thing.
    again = extract_zip(archive, "bench")
    assert again == target and (again / "clips" / "000.mp4").read_bytes() == contents["clips/000.mp4"]


# ----------------------------------------------------------------------------- 5. parser fuzzing

_ANSWERISH = st.text(alphabet="AaBbYyEeSsNnOo <>/think*()[]{}_.:,!?\n|", max_size=120)
_MARKDOWN = st.builds(lambda a, b: f"{a}**{b}**", st.text(max_size=30), st.sampled_from(["A", "B", "Yes", "No"]))
_LONG = st.builds(lambda s, k: s * k, st.text(min_size=1, max_size=20), st.integers(50, 2000))
_THINKING = st.builds(lambda a, b: f"<think>{a}</think>{b}", st.text(max_size=60), _ANSWERISH)
_CONTAINERS = st.builds(
    lambda pre, open_, inner, close, post: f"{pre}{open_}{inner}{close}{post}",
    _ANSWERISH,
    st.sampled_from(
        ["<answer>", "<|begin_of_box|>", "\\boxed{", "\\boxed{\\text{", "**Answer:** ", "Final answer: ", ""]
    ),
    _ANSWERISH,
    st.sampled_from(["</answer>", "<|end_of_box|>", "}", "}}", "\n", ""]),
    _ANSWERISH,
)


@pytest.mark.parametrize("name", sorted(PARSERS))
@pytest.mark.parametrize("mode", ["robust", "official"])
@settings(max_examples=examples(ci=1_000, deep=10_000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(st.text(), _ANSWERISH, _MARKDOWN, _LONG, _THINKING, _CONTAINERS))
def test_parsers_never_raise(name, mode, text):
    parser = PARSERS[name]
    # the raw rule: Parser.parse catches exceptions (counted as parser errors), so it could never fail here
    label = parser.robust(text, compile_options(None)) if mode == "robust" else parser.official(text)
    assert label is None or label in parser.labels


# ----------------------------------------------------------------------------- 6. secrets


@pytest.mark.slow
def test_hf_token_never_written(lmms_eval, tmp_path):
    fake = "hf_FAKEtoken1234567890SECRETvalue"
    run = lmms_eval("timeblind_iacc", responses={"0": "Yes"}, env={"HF_TOKEN": fake, "HUGGING_FACE_HUB_TOKEN": fake})
    assert fake not in run.output
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert fake.encode() not in path.read_bytes(), path


def _build_after_barrier(pairs: list, cache: str, barrier, queue) -> None:
    from temporal_tasks import video

    barrier.wait()
    paths = video.build_paired_videos([(Path(a), Path(b)) for a, b in pairs], 7, Path(cache), progress=False)
    queue.put([str(p) for p in paths])


def test_two_processes_build_the_same_50_paired_videos(tmp_path):
    import decord

    from temporal_tasks.data.fixtures.clips import moving, resizing, write_video

    scenes = [moving("left_to_right"), moving("right_to_left"), moving("top_to_bottom"), resizing(True),
              resizing(False)]  # fmt: skip
    clips = [write_video(tmp_path / f"c{i}.mp4", scenes[i % 5], num_frames=8 + i) for i in range(10)]
    pairs = [(str(a), str(b)) for a in clips for b in clips if a != b][:50]
    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_build_after_barrier, args=(pairs, str(tmp_path / "cache"), barrier, queue))
             for _ in range(2)]  # fmt: skip
    for p in procs:
        p.start()
    results = [queue.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert results[0] == results[1] and len(set(results[0])) == 50
    for path in results[0]:
        assert len(decord.VideoReader(path)) == 7  # complete, decodable, exactly N frames
    built = list((tmp_path / "cache").rglob("*"))
    assert not [p for p in built if p.is_file() and ".tmp" in p.name]  # no torn temporary file left


@pytest.mark.slow
def test_archive_that_fails_to_extract_stops_the_run(lmms_eval, fixture_root, tmp_path):
    root = tmp_path / "data"
    shutil.copytree(fixture_root / "velociti", root / "velociti")
    archive = root / "velociti" / "velociti_videos.zip"
    archive.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])  # a download cut in half
    run = lmms_eval("velociti_strictvle", responses={}, data_dir=root, expect_ok=False, verbosity="INFO")
    assert run.returncode != 0
    assert "cannot extract" in run.output and "velociti_videos.zip" in run.output, run.output[-3000:]
    assert "Model Responding" not in run.output
