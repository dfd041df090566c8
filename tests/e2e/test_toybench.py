"""Proof of "one benchmark, one place": a fifth benchmark added from test files and one YAML folder only.

``tests/helpers/toybench/`` holds a package ``toybench`` (spec, loader, metrics, fixture, check), its
entry-point metadata (``toybench-0.1.dist-info``) and its YAML folder (``tasks/``). With that folder on
``PYTHONPATH`` (as ``pip install`` of such a package would do) every command sees the benchmark through
the registry: ``temporal-tasks tasks``, ``check-data``, lmms-eval itself (no ``--include_path``), with
its ``_blind`` and ``_single_frame`` variants (shared shortcut code only), ``summary``, ``report`` and
``rescore``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.helpers.paths import TOY

# 4 videos x 2 questions; gold: q0 yes, q1 no. Robust reading: pairs 0 and 1 right (1 through its answer
# container), pair 2 wrong, pair 3 holds one unreadable answer -> pair_acc 50, invalid 1/8.
# Official (first character Y/N): pair 1's "<think>..." is unreadable too -> pair_acc 25, invalid 2/8.
ANSWERS = {
    "0_q0": "Yes", "0_q1": "No",
    "1_q0": "<think>The square goes right.</think><answer>Yes</answer>", "1_q1": "No.",
    "2_q0": "Yes", "2_q1": "Yes",
    "3_q0": "maybe", "3_q1": "No",
}  # fmt: skip

ROBUST = {"pair_acc": 50.0, "pair_acc_motion": 50.0, "invalid_rate": 12.5, "truncated_rate": 0.0}

OFFICIAL = {"pair_acc": 25.0, "pair_acc_motion": 25.0, "invalid_rate": 25.0}


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    # As if the toy's package were installed: its folder (package + dist-info) on the path.
    env["PYTHONPATH"] = os.pathsep.join([str(TOY), *filter(None, [env.get("PYTHONPATH")])])
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    env.pop("TEMPORAL_TASKS_PARSER", None)
    env.update(extra or {})
    return env


def _cli(*args: str, env: dict[str, str], expect: int = 0) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "temporal_tasks", *args], env=env, capture_output=True, text=True, timeout=600
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == expect, f"temporal-tasks {' '.join(args)} exited {proc.returncode}:\n{out[-4000:]}"
    return out


def test_toy_benchmark_through_every_command(tmp_path):
    data, cache, out = tmp_path / "data", tmp_path / "cache", tmp_path / "out"
    env = _env({"TEMPORAL_TASKS_DATA_DIR": str(data), "TEMPORAL_TASKS_CACHE_DIR": str(cache)})

    # the registry: listed, its fixture written by the generic command, its data checked
    listed = _cli("tasks", env=env)
    assert "toybench_pair" in listed and "toybench_pair_blind" in listed
    _cli("fixtures", "--out", str(data), env=env)
    assert (data / "toybench" / "questions.jsonl").is_file()
    checked = _cli("check-data", "--benchmark", "toybench", env=env)
    assert "ToyBench: ok" in checked and "questions" in checked, checked

    # lmms-eval sees the tasks without --include_path; exact values through the real CLI
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps({"question_id": q, "response": a}) + "\n" for q, a in ANSWERS.items()))
    tasks = "toybench_pair,toybench_pair_blind,toybench_pair_single_frame"
    cmd = [sys.executable, "-m", "lmms_eval", "--model", "temporal_replay", "--model_args", f"responses={responses}",
           "--tasks", tasks, "--batch_size", "1", "--output_path", str(out), "--log_samples",
           "--verbosity", "DEBUG"]  # fmt: skip
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    results_file = next(out.rglob("*_results.json"))
    results = json.loads(results_file.read_text())["results"]
    for task in ("toybench_pair", "toybench_pair_blind", "toybench_pair_single_frame"):
        got = {k.split(",")[0]: v for k, v in results[task].items() if k.endswith(",none")}
        for key, value in ROBUST.items():
            assert got[key] == pytest.approx(value), (task, key, got)
        assert got["pair_acc_ci_low"] <= 50.0 <= got["pair_acc_ci_high"]
    configs = json.loads(results_file.read_text())["configs"]
    assert "blind_visual" in str(configs["toybench_pair_blind"]["doc_to_visual"])
    assert "blind_visual" not in str(configs["toybench_pair"]["doc_to_visual"])

    # summary and report read it through the spec
    summary = _cli("summary", str(out), env=env)
    assert "toybench_pair_blind" in summary and "pair accuracy | 50.0" in summary, summary  # the spec's label
    _cli("report", str(out), "--out", str(tmp_path / "report"), env=env)
    report = (tmp_path / "report" / "report.md").read_text()
    assert "ToyBench" in report and "pair_acc" in report

    # rescore in the official reading, from the samples alone
    _cli("rescore", str(out), "--parser", "official", "--out", str(tmp_path / "rescored"), env=env)
    rescored = json.loads(next((tmp_path / "rescored").rglob("*.json")).read_text())["results"]["toybench_pair"]
    got = {k.split(",")[0]: v for k, v in rescored.items() if k.endswith(",none")}
    for key, value in OFFICIAL.items():
        assert got[key] == pytest.approx(value), (key, got)

    # the viewer, with the generic failure shapes (the toy declares no view hook): pairs 2 and 3 failed
    _cli("view", str(out), "--out", str(tmp_path / "view.html"), env=env)
    html = (tmp_path / "view.html").read_text(encoding="utf-8")
    data = json.loads(html.split('<script type="application/json" id="view-data">', 1)[1].split("</script>", 1)[0])
    (toy,) = (t for t in data["tasks"] if t["task"] == "toybench_pair")
    assert toy["runs"][0]["shapes"] == {"same answer to every question": 1, "unreadable answer": 1}
    failed = [g["id"] for g in toy["groups"] if g["r"][0]["o"] == "failed"]
    assert failed == ["toybench/2", "toybench/3"] and toy["runs"][0]["counts"]["failed"] == 2
