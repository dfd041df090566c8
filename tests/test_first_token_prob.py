"""``first_token_prob``: VELOCITI's e(V,C) through the real lmms-eval CLI, against an independent forward pass.

The expected P(Yes)/(P(Yes)+P(No)) is computed here without the package: the caption from the parquet table,
the clip out of the zip, frames decoded with PyAV and picked by the formulas written below, the prompt through
the checkpoint's chat template, and one plain ``model(**inputs)`` forward pass.
"""

from __future__ import annotations

import math
import re
import statistics
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("decord")
pytest.importorskip("torchvision")

from temporal_tasks.benchmarks.velociti.loader import ENTAIL_PROMPT  # noqa: E402  (the paper's prompt, checked in test_velociti)
from tests.helpers.frames import all_frames, mid_second, uniform_nearest
from tests.helpers.tiny_qwen import build, build_llava_onevision  # noqa: E402


class Reference:
    """The expected e(V,C) of one question, from a plain transformers forward pass."""

    def __init__(self, ckpt: Path, data_root: Path, tmp: Path, frames: dict) -> None:
        import pandas as pd
        import torch
        from transformers import AutoModelForImageTextToText, AutoProcessor

        self.torch = torch
        self.processor = AutoProcessor.from_pretrained(ckpt)
        self.model = AutoModelForImageTextToText.from_pretrained(ckpt, dtype=torch.float32).eval()
        self.table = pd.read_parquet(next((data_root / "velociti").glob("*.parquet")))
        self.zip = zipfile.ZipFile(data_root / "velociti" / "velociti_videos.zip")
        self.tmp = tmp
        self.frames = frames
        tok = self.processor.tokenizer
        self.yes = tok.encode("Yes", add_special_tokens=False)
        self.no = tok.encode("No", add_special_tokens=False)
        assert len(self.yes) == len(self.no) == 1

    def caption(self, qid: str) -> str:
        row, role = qid.split("_")
        return str(self.table.iloc[int(row)][role])

    def clip(self, qid: str) -> tuple[np.ndarray, dict]:
        video_id = self.table.iloc[int(qid.split("_")[0])]["video_id"]
        path = self.tmp / f"{video_id}.mp4"
        if not path.exists():
            path.write_bytes(self.zip.read(f"velociti_videos/{video_id}.mp4"))
        frames = all_frames(path)
        if "fps" in self.frames:
            idx = mid_second(len(frames), 2, self.frames["fps"])  # fixture clips: 20 frames at 2 fps
        else:
            idx = uniform_nearest(len(frames), self.frames["max_frames"])
        # the timing a time-aware processor (Qwen2.5-VL) needs: sampled rate = len(idx) / total * 2 fps
        return frames[idx], {"total_num_frames": len(frames), "fps": 2.0, "frames_indices": idx}

    def p_yes(self, qid: str) -> float:
        prompt = ENTAIL_PROMPT.format(caption=self.caption(qid))
        messages = [{"role": "user", "content": [{"type": "video"}, {"type": "text", "text": prompt}]}]
        text = self.processor.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        frames, meta = self.clip(qid)
        inputs = self.processor(text=[text], videos=[frames], video_metadata=[meta], return_tensors="pt")
        with self.torch.no_grad():
            logits = self.model(**inputs).logits[0, -1].double()
        p = self.torch.softmax(logits, dim=-1)
        return float(p[self.yes[0]] / (p[self.yes[0]] + p[self.no[0]]))


def _check_against_reference(run, ref: Reference, passes: bool = True) -> list[float]:
    samples = run.samples["velociti_strictvle_prob"]
    assert len(samples) == 32
    # both continuations of a question share one forward pass
    if passes:
        assert re.search(r"64 continuation\(s\) scored with 32 forward pass\(es\)", run.output), run.output[-3000:]
    got = []
    for s in samples:
        pay = s["strict_vle"]
        qid = pay["question_id"]
        assert s["input"] == ENTAIL_PROMPT.format(caption=ref.caption(qid))
        p = pay["p_yes"]
        assert math.isfinite(p) and 0.0 < p < 1.0, (qid, p)
        got.append(p)
    # the first question of every test (several videos and captions) against the independent forward pass
    checked = [s for s in samples if s["strict_vle"]["question_id"].split("_")[0] in {"0", "3", "6", "9", "12", "15"}]
    assert len(checked) == 12
    for s in checked:
        qid = s["strict_vle"]["question_id"]
        assert s["strict_vle"]["p_yes"] == pytest.approx(ref.p_yes(qid), abs=2e-6), qid
    assert statistics.pstdev(got) > 1e-4  # the values vary with video and caption
    return got


@pytest.mark.slow
@pytest.mark.parametrize(
    ("version", "frames", "batch"),
    [("2", {"max_frames": 8}, 1), ("2", {"fps": 1}, 3), ("2.5", {"fps": 1}, 2)],
    ids=["qwen2-max_frames8-batch1", "qwen2-fps1-batch3", "qwen2.5-fps1-batch2"],
)
def test_qwen_p_yes_is_the_first_token_ratio(lmms_eval, fixture_root, tmp_path, version, frames, batch):
    ckpt = build(tmp_path / f"tiny-qwen{version}-vl", version)
    setting = ",".join(f"{k}={v}" for k, v in frames.items())
    run = lmms_eval(
        "velociti_strictvle_prob",
        model="first_token_prob",
        model_args=f"pretrained={ckpt},device=cpu,{setting}",
        args=["--batch_size", str(batch)],
    )
    _check_against_reference(run, Reference(ckpt, fixture_root, tmp_path, frames))
    got = run.metrics("velociti_strictvle_prob")
    assert 0.0 <= got["strict_vle"] <= 100.0 and got["invalid_rate"] == 0.0


@pytest.mark.slow
def test_two_processes_each_score_their_shard(lmms_eval, fixture_root, tmp_path):
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ckpt = build(tmp_path / "tiny-qwen2-vl", "2")
    run = lmms_eval(
        "velociti_strictvle_prob",
        model="first_token_prob",
        model_args=f"pretrained={ckpt},device=cpu,max_frames=8",
        launcher=["-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", str(port)],
        args=["--batch_size", "2"],
    )
    assert "(rank 0/2)" in run.output and "(rank 1/2)" in run.output
    # each rank ran its own 16 questions (32 continuations), none twice
    assert len(re.findall(r"32 continuation\(s\) scored with 16 forward pass\(es\)", run.output)) == 2
    _check_against_reference(run, Reference(ckpt, fixture_root, tmp_path, {"max_frames": 8}), passes=False)


@pytest.mark.slow
def test_llava_onevision_p_yes_is_the_first_token_ratio(lmms_eval, fixture_root, tmp_path):
    ckpt = build_llava_onevision(tmp_path / "tiny-llava-ov")
    run = lmms_eval(
        "velociti_strictvle_prob",
        model="first_token_prob",
        model_args=f"pretrained={ckpt},device=cpu,max_frames=4",
        args=["--batch_size", "2"],
    )
    _check_against_reference(run, Reference(ckpt, fixture_root, tmp_path, {"max_frames": 4}))


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


def test_fps_indices_follow_the_official_mid_second_sampler():
    from temporal_tasks.video import fps_indices

    # the spec's example: a 10 s clip at 24 fps -> frames 12, 36, ..., 228
    assert fps_indices(240, 24.0, 1.0).tolist() == list(range(12, 240, 24))
    assert fps_indices(20, 2.0, 1.0).tolist() == mid_second(20, 2, 1.0) == list(range(1, 20, 2))
    assert fps_indices(300, 29.97, 1.0).tolist() == [int((i + 0.5) * 30) for i in range(10)]  # rate rounded
    assert fps_indices(5, 10.0, 1.0).tolist() == [2]  # shorter than one interval: the middle frame


def test_read_frames_reports_the_timing_of_the_sampled_frames(tmp_path):
    from temporal_tasks.data.fixtures.clips import write_video
    from temporal_tasks.video import read_frames_with_metadata

    path = write_video(tmp_path / "c.mp4", lambda t: np.full((64, 64, 3), int(255 * t), np.uint8), 20, 2)
    frames, meta = read_frames_with_metadata(path, fps=1)
    assert frames.shape == (10, 64, 64, 3)
    assert meta["frames_indices"] == list(range(1, 20, 2)) and meta["total_num_frames"] == 20
    assert meta["fps"] == pytest.approx(2.0) and meta["duration"] == pytest.approx(10.0)
    assert np.array_equal(frames, all_frames(path)[meta["frames_indices"]])
    frames, meta = read_frames_with_metadata(path, num_frames=8)
    assert meta["frames_indices"] == uniform_nearest(20, 8) and len(frames) == 8


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


def test_entry_point_registers_both_models():
    from lmms_eval.models import get_model

    from temporal_tasks.harness.first_token_prob import FirstTokenProb
    from temporal_tasks.harness.replay import TemporalReplay

    assert get_model("first_token_prob") is FirstTokenProb
    assert get_model("temporal_replay") is TemporalReplay
