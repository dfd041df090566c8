"""``first_token_prob``: VELOCITI's e(V,C) through the real lmms-eval CLI, against an independent forward pass.

The expected P(Yes)/(P(Yes)+P(No)) is computed here without the package: the caption from the parquet table,
the clip out of the zip, frames decoded with PyAV and picked by the formulas in ``tests/helpers/frames.py``, the
prompt through the checkpoint's chat template, and one plain ``model(**inputs)`` forward pass.
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

# the paper's prompt, checked in tests/benchmarks/velociti
from temporal_tasks.benchmarks.velociti.loader import ENTAIL_PROMPT  # noqa: E402
from tests.helpers.frames import all_frames, mid_second, uniform_nearest  # noqa: E402
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


def test_llava_onevision_p_yes_is_the_first_token_ratio(lmms_eval, fixture_root, tmp_path):
    ckpt = build_llava_onevision(tmp_path / "tiny-llava-ov")
    run = lmms_eval(
        "velociti_strictvle_prob",
        model="first_token_prob",
        model_args=f"pretrained={ckpt},device=cpu,max_frames=4",
        args=["--batch_size", "2"],
    )
    _check_against_reference(run, Reference(ckpt, fixture_root, tmp_path, {"max_frames": 4}))
