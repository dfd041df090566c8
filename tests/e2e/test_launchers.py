"""The launchers users start several processes with, through the real CLI: each gives the one-process numbers.
(``torch.distributed.run``: tests/e2e/test_reliability.py.)"""

from __future__ import annotations

from temporal_tasks.cli import write_demo_responses
from temporal_tasks.data.fixtures import demo_tasks, writers
from tests.helpers.launch import comparable, free_port


def test_accelerate_launch_two_processes(lmms_eval, offline_env, tmp_path):
    """``accelerate launch --num_processes 2 -m lmms_eval``, the README's several-GPU command, on CPU: accelerate turns
    it into a multi-GPU launch where it sees several GPUs; on a machine without any, ``--multi_gpu`` asks for that same
    launch (torchrun's processes, gloo), where ``--cpu`` would start a single process."""
    responses = write_demo_responses(tmp_path / "answers.jsonl", list(writers()), seed=5)
    tasks = ",".join(demo_tasks())
    one = lmms_eval(tasks, responses=responses)
    port = str(free_port())
    launcher = ["-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1",
                "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", port]  # fmt: skip
    # The user's own accelerate config (~/.cache/huggingface/accelerate) is not this test's.
    two = lmms_eval(tasks, responses=responses, launcher=launcher, env={"HF_HOME": str(tmp_path / "hf_home")})
    assert "Running on rank 1" in two.output
    for task in demo_tasks():
        assert comparable(one.metrics(task)) == comparable(two.metrics(task)), task
        assert len(one.samples[task]) == len(two.samples[task]), task
