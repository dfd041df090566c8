"""Never lose a GPU run, through the real CLI: two processes give the numbers of one, every limit and offset runs,
bad inputs stop before any model call with one clear error, secrets are never written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from temporal_tasks.cli import write_demo_responses
from temporal_tasks.data.fixtures import demo_tasks, writers
from tests.helpers.launch import comparable, free_port

# ----------------------------------------------------------------------------- 1. several processes


def test_two_processes_give_identical_metrics(lmms_eval, offline_env, tmp_path):
    responses = write_demo_responses(tmp_path / "answers.jsonl", list(writers()), seed=11)
    tasks = ",".join(demo_tasks())
    one = lmms_eval(tasks, responses=responses)
    launcher = ["-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", str(free_port())]
    two = lmms_eval(tasks, responses=responses, launcher=launcher)
    assert "Running on rank 1" in two.output
    for task in demo_tasks():
        assert comparable(one.metrics(task)) == comparable(two.metrics(task)), task
        assert len(one.samples[task]) == len(two.samples[task])
    # Rescoring the logged samples reproduces every metric of every task, without the model.
    from temporal_tasks.tools.rescore import rescore

    for run in ("run1", "run2"):  # run2: payloads gathered from two ranks (pickled), lean lines
        rescored = rescore([tmp_path / run / "results"])["results"]
        for task in demo_tasks():
            again = {k.split(",")[0]: v for k, v in rescored[task].items() if k.endswith(",none")}
            assert comparable(again) == comparable(one.metrics(task)), (run, task)


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
    # tolerated by default, as by the official scorer (tests/benchmarks/timeblind); a stop only when strict
    "gold inconsistent with roles, TEMPORAL_TASKS_STRICT=1": (
        lambda r: _rewrite_rows(r / "timeblind/data.jsonl", _swap_answers),
        r"disagrees with the positional gold .*index 0 \(yes_no, trial q0_v0\): answer 'no'",
    ),
    "duplicate question ids": (
        lambda r: _rewrite_rows(r / "timeblind/data.jsonl", lambda rows: [*rows, rows[2]]),
        r"duplicate question ids \['2'\]",
    ),
}


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


def test_malformed_replay_file_names_the_line(lmms_eval, tmp_path):
    bad = tmp_path / "answers.jsonl"
    bad.write_text('{"question_id": "0", "response": "Yes"}\n{"question_id": "1", "response": \n')
    run = lmms_eval("timeblind_iacc", responses=bad, expect_ok=False, verbosity="INFO")
    assert run.returncode != 0 and f"{bad}:2: not valid JSON" in run.output


# ----------------------------------------------------------------------------- 6. secrets


def test_hf_token_never_written(lmms_eval, tmp_path):
    fake = "hf_FAKEtoken1234567890SECRETvalue"
    run = lmms_eval("timeblind_iacc", responses={"0": "Yes"}, env={"HF_TOKEN": fake, "HUGGING_FACE_HUB_TOKEN": fake})
    assert fake not in run.output
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert fake.encode() not in path.read_bytes(), path


def test_archive_that_fails_to_extract_stops_the_run(lmms_eval, fixture_root, tmp_path):
    root = tmp_path / "data"
    shutil.copytree(fixture_root / "velociti", root / "velociti")
    archive = root / "velociti" / "velociti_videos.zip"
    archive.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])  # a download cut in half
    run = lmms_eval("velociti_strictvle", responses={}, data_dir=root, expect_ok=False, verbosity="INFO")
    assert run.returncode != 0
    assert "cannot extract" in run.output and "velociti_videos.zip" in run.output, run.output[-3000:]
    assert "Model Responding" not in run.output
