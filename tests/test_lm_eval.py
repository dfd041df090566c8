"""The language-only controls under EleutherAI lm-evaluation-harness (``tasks_lm_eval/``)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import temporal_tasks
from temporal_tasks import cli
from temporal_tasks.api.registry import registered
from temporal_tasks.benchmarks.timeblind import tasks as timeblind
from temporal_tasks.harness import lm_eval_tasks
from temporal_tasks.harness.doc_hooks import doc_to_text
from temporal_tasks.harness.task_configs import our_tasks, task_config
from temporal_tasks.scoring.aggregations import functions
from temporal_tasks.scoring.payloads import make_payload

timeblind_agg = SimpleNamespace(**functions("timeblind"))

pytest.importorskip("lm_eval")


def test_yamls_are_generated_from_the_lmms_eval_configs():
    folder = Path(temporal_tasks.lm_eval_tasks_dir())
    assert {p.stem for p in folder.glob("*.yaml")} == set(lm_eval_tasks.BLIND_TASKS)
    for task, shim in lm_eval_tasks.BLIND_TASKS.items():
        text = (folder / f"{task}.yaml").read_text(encoding="utf-8")
        assert text == lm_eval_tasks.render_yaml(task), (
            f"{task}.yaml is stale: python -m temporal_tasks.harness.lm_eval_tasks"
        )
        # same metric keys as the lmms-eval task of the same name
        keys = [line.split("metric: ", 1)[1].split(",", 1)[0] for line in text.splitlines() if "{metric: " in line]
        assert keys == [m["metric"] for m in task_config(task)["metric_list"]]
        assert (folder / f"{shim}.py").read_text(encoding="utf-8") == lm_eval_tasks.render_shim(shim), "stale shim"
        namespace = _shim(shim)
        missing = [
            f for f in re.findall(rf"!function {shim}\.(\w+)", text) if not callable(getattr(namespace, f, None))
        ]
        assert not missing, f"{task}.yaml names functions its shim lacks: {missing}"
    # one per benchmark spec declaring a blind variant
    assert lm_eval_tasks.BLIND_TASKS == {s.blind: n for n, s in registered().items() if s.blind}
    assert len(lm_eval_tasks.BLIND_TASKS) == 4
    # lm-eval's folder is not under the lmms-eval task tree (lmms-eval would index it)
    assert Path(temporal_tasks.tasks_dir()) not in folder.parents
    assert not set(lm_eval_tasks.BLIND_TASKS) - set(our_tasks())


def _shim(name: str):
    # the shim's namespace, as lm-eval's import_function builds it (a module executed from the file)
    import importlib.util

    path = Path(temporal_tasks.lm_eval_tasks_dir()) / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shim_reexports_the_package_functions():
    module = _shim("timeblind")
    assert module.timeblind__instance_acc is timeblind_agg.instance_acc
    assert module.process_results is timeblind.process_results
    assert module.timeblind_iacc_blind_dataset is lm_eval_tasks.timeblind_iacc_blind_dataset


def test_blind_docs_have_no_video_and_the_lmms_eval_prompt(offline_env):
    docs = lm_eval_tasks.blind_docs("vinoground_text_blind")
    assert docs and all(d["videos"] == [] for d in docs)
    post = task_config("vinoground_text_blind")["lmms_eval_specific_kwargs"]["default"]["post_prompt"]
    assert all(d["lm_eval_text"] == d["prompt"] + post for d in docs)
    tb = lm_eval_tasks.blind_docs("timeblind_iacc_blind")
    assert [d["question_id"] for d in tb] == [d["question_id"] for d in timeblind.load_docs()]
    assert all(d["lm_eval_text"] == doc_to_text(d) and not d["videos"] for d in tb)
    ds = lm_eval_tasks.timeblind_iacc_blind_dataset(version=1.0)
    assert list(ds) == ["test"] and len(ds["test"]) == len(tb)


def test_cli_tasks_dir_harness(capsys):
    assert cli.main(["tasks-dir", "--harness", "lm-eval"]) == 0
    assert capsys.readouterr().out.strip() == temporal_tasks.lm_eval_tasks_dir()
    assert cli.main(["tasks-dir", "--harness", "lmms-eval"]) == 0
    assert capsys.readouterr().out.strip() == temporal_tasks.tasks_dir()


def _lm_eval(tmp_path: Path, fixture_root: Path, cache_root: Path, tasks: str, *args: str) -> tuple[dict, dict]:
    """Run ``python -m lm_eval`` offline on the fixtures; returns (results JSON, {task: samples})."""
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "lm_eval", *args, "--include_path", temporal_tasks.lm_eval_tasks_dir(),
           "--tasks", tasks, "--output_path", str(out), "--log_samples"]  # fmt: skip
    env = dict(os.environ, TEMPORAL_TASKS_DATA_DIR=str(fixture_root), TEMPORAL_TASKS_CACHE_DIR=str(cache_root),
               HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")  # fmt: skip
    env.pop("TEMPORAL_TASKS_PARSER", None)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    found = sorted(out.rglob("results_*.json"))
    assert proc.returncode == 0 and found, proc.stdout[-3000:] + proc.stderr[-6000:]
    samples = {}
    for f in out.rglob("samples_*.jsonl"):
        task = f.stem[len("samples_") :].rsplit("_", 1)[0]
        samples[task] = [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
    return json.loads(found[-1].read_text()), samples


def _metrics(results: dict, task: str) -> dict[str, float]:
    raw = results["results"][task]
    return {k.split(",")[0]: v for k, v in raw.items() if k.endswith(",none") and "stderr" not in k}


@pytest.mark.slow
def test_lm_eval_dummy_reports_instance_acc(tmp_path, fixture_root, cache_root):
    results, samples = _lm_eval(tmp_path, fixture_root, cache_root, "timeblind_iacc_blind", "--model", "dummy")
    got = _metrics(results, "timeblind_iacc_blind")
    # the dummy model answers "lol": nothing parses, every instance is wrong
    assert got["instance_acc"] == 0.0 and got["invalid_rate"] == 100.0
    assert {"trial_acc", "question_acc", "video_acc", "instance_acc_ci_low"} <= set(got)
    assert len(samples["timeblind_iacc_blind"]) == 16


def _tiny_lm(out: Path) -> Path:
    """A randomly initialised 2-layer Qwen2 causal LM with a BPE tokenizer trained on a few sentences."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from tests.helpers.tiny_qwen import _tokenizer

    tok = _tokenizer()
    eos, pad = tok.convert_tokens_to_ids("<|im_end|>"), tok.convert_tokens_to_ids("<|endoftext|>")
    config = Qwen2Config(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                         bos_token_id=pad, eos_token_id=eos, pad_token_id=pad, tie_word_embeddings=True)  # fmt: skip
    import torch

    torch.manual_seed(0)
    Qwen2ForCausalLM(config).save_pretrained(out)
    tok.save_pretrained(out)
    return out


@pytest.mark.slow
def test_lm_eval_tiny_causal_lm_scored_by_the_same_core(tmp_path, fixture_root, cache_root):
    model = _tiny_lm(tmp_path / "tiny")
    results, samples = _lm_eval(
        tmp_path, fixture_root, cache_root, "timeblind_iacc_blind",
        "--model", "hf", "--model_args", f"pretrained={model},dtype=float32", "--device", "cpu", "--batch_size", "4",
    )  # fmt: skip
    got = _metrics(results, "timeblind_iacc_blind")
    rows = sorted(samples["timeblind_iacc_blind"], key=lambda s: s["doc_id"])
    assert len(rows) == 16
    # rescore the raw generations with the shared core, independently of lm-eval's bookkeeping
    payloads = [make_payload(s["doc"], s["filtered_resps"][0]) for s in rows]
    for key in ("trial_acc", "question_acc", "video_acc", "instance_acc", "invalid_rate"):
        assert got[key] == pytest.approx(getattr(timeblind_agg, key)(payloads), nan_ok=True), key
    # the prompt the model saw is the lmms-eval prompt, with no video
    assert all(s["arguments"]["gen_args_0"]["arg_0"] == s["doc"]["prompt"] for s in rows)
