"""The language-only controls through EleutherAI lm-evaluation-harness's own CLI: its dummy model and a tiny causal
LM, scored by the same core."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import temporal_tasks
from temporal_tasks.scoring.aggregations import functions
from temporal_tasks.scoring.payloads import make_payload

pytest.importorskip("lm_eval")

timeblind_agg = SimpleNamespace(**functions("timeblind"))


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
