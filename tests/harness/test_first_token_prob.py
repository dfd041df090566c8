"""The ``first_token_prob`` model (``harness/first_token_prob.py``) in process, on a tiny random Qwen2-VL: one forward
pass per question, the checkpoint's repetition penalty, greedy generation, and its errors."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("decord")
pytest.importorskip("torchvision")

from tests.helpers.tiny_qwen import build  # noqa: E402

# ----------------------------------------------------------------------------- in-process (fast)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from temporal_tasks.harness.first_token_prob import FirstTokenProb

    ckpt = build(tmp_path_factory.mktemp("ckpt") / "tiny-qwen2-vl", "2")
    return FirstTokenProb(pretrained=str(ckpt), device="cpu", max_frames=4)


class _Req:
    def __init__(self, *args) -> None:
        self.args = args


def _clip(tmp_path: Path) -> str:
    from temporal_tasks.data.fixtures.clips import write_video

    return str(write_video(tmp_path / "clip.mp4", lambda t: np.full((64, 64, 3), int(255 * t), np.uint8), 8, 4))


def test_loglikelihood_reuses_one_forward_pass_per_question(tiny_model, tmp_path, monkeypatch):
    video = _clip(tmp_path)
    docs = [{"v": [video]}, {"v": [video]}]
    tiny_model.task_dict = {"t": {"test": docs}}
    calls = []
    real = tiny_model.first_token_log_probs
    monkeypatch.setattr(tiny_model, "first_token_log_probs", lambda c, v: calls.append(len(c)) or real(c, v))
    visual = lambda doc: doc["v"]  # noqa: E731
    reqs = [_Req(ctx, cont, visual, i, "t", "test") for i, ctx in enumerate(["Is it red?", "Is it blue?"])
            for cont in ("Yes", "No")]  # fmt: skip
    out = tiny_model.loglikelihood(reqs)
    assert calls == [1, 1]  # batch_size 1: one pass per question, not per continuation
    assert all(math.isfinite(loss) and loss > 0 for loss, _ in out)
    lp = real(["Is it red?"], [[video]])[0]
    yes, no = tiny_model.token_id("Yes"), tiny_model.token_id("No")
    assert out[0][0] == pytest.approx(-float(lp[yes]), abs=1e-6)
    assert out[1][0] == pytest.approx(-float(lp[no]), abs=1e-6)
    assert out[0][1] == (int(lp.argmax()) == yes)


def test_multi_token_continuation_is_a_clear_error(tiny_model):
    with pytest.raises(SystemExit, match=r"continuation 'Yes please' is \d+ tokens .*single-token"):
        tiny_model.token_id("Yes please")


def test_processed_scores_apply_the_checkpoints_repetition_penalty(tiny_model, tmp_path, monkeypatch):
    """The official e(V,C) reads generate(...).scores: after repetition_penalty on every prompt token."""
    import torch

    video = _clip(tmp_path)
    prompt = "Just answer with either Yes or No. "
    inputs = tiny_model._inputs([prompt], [[video]])
    with torch.no_grad():
        raw = tiny_model.model(**inputs).logits[0, -1].double()
    monkeypatch.setattr(tiny_model.model.generation_config, "repetition_penalty", 3.0)
    expected = raw.clone()
    seen = torch.unique(inputs["input_ids"][0])
    expected[seen] = torch.where(raw[seen] > 0, raw[seen] / 3.0, raw[seen] * 3.0)
    got = tiny_model.first_token_log_probs([prompt], [[video]])[0]
    assert torch.allclose(got.double(), torch.log_softmax(expected, -1), atol=1e-5)
    monkeypatch.setattr(tiny_model, "scores", "raw")
    got_raw = tiny_model.first_token_log_probs([prompt], [[video]])[0]
    assert torch.allclose(got_raw.double(), torch.log_softmax(raw, -1), atol=1e-5)
    assert not torch.allclose(got_raw, got, atol=1e-3)


def test_generate_until_is_greedy_and_cut_at_until(tiny_model, tmp_path):
    import torch

    video = _clip(tmp_path)
    tiny_model.task_dict = {"t": {"test": [{"v": [video]}]}}
    req = _Req("Is it red?", {"max_new_tokens": 5, "until": ["\n\n"]}, lambda d: d["v"], 0, "t", "test")
    (text,) = tiny_model.generate_until([req])
    inputs = tiny_model._inputs(["Is it red?"], [[video]])
    with torch.no_grad():
        seq = tiny_model.model.generate(**inputs, max_new_tokens=5, do_sample=False)
    full = tiny_model.tokenizer.decode(seq[0, inputs["input_ids"].shape[1] :], skip_special_tokens=True)
    assert text == full.split("\n\n")[0]


def test_unknown_model_args_stop_with_the_known_ones():
    from temporal_tasks.harness.first_token_prob import FirstTokenProb

    with pytest.raises(SystemExit, match=r"unknown model_args \['max_frames_num'\].*max_frames, fps"):
        FirstTokenProb(pretrained="x", max_frames_num=8)
    with pytest.raises(SystemExit, match="scores='logits'"):
        FirstTokenProb(pretrained="x", scores="logits")
