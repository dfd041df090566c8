"""API models: lmms-eval's own ``--model openai`` against a loopback OpenAI-compatible server, on every generate task.

The server (``tests/helpers/openai_server.py``) answers each request by a fixed rule on its text. The test checks what
the API model sends (frames as images, ``max_frames_num`` of them, the doc's prompt and nothing of our
environment), that each question got the answer the rule gives for its prompt, and that the metrics are those
of the same answers scored through the replay model (and, for VELOCITI StrictVLE, by hand).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import math
from collections import Counter

import pytest

from tests.helpers.openai_server import ChatRequest, OpenAIServer
from tests.helpers.task_names import MAIN_TASKS

pytest.importorskip("decord")  # qwen_vl_utils, which the openai model uses to sample frames, needs it here

TASKS = MAIN_TASKS
FRAMES = 8
# Valid for some questions and not for others: Yes/No questions, A/B choices, and an unreadable reply.
ANSWERS = ("Yes", "No", "A", "B", "I cannot tell.")


def rule(text: str) -> str:
    """The server's answer: a fixed function of the prompt text."""
    return ANSWERS[int(hashlib.sha256(text.encode()).hexdigest(), 16) % len(ANSWERS)]


def _answer(req: ChatRequest) -> str:
    return rule(req.text)


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-9)


def _hand_strict_vle(samples: list[dict]) -> float:
    """VELOCITI StrictVLE (robust parser) from the answers: row right iff pos says Yes and neg says No."""
    by_row: dict[str, dict[str, str]] = {}
    test_of: dict[str, str] = {}
    for s in samples:
        pay = s["strict_vle"]
        row, role = pay["question_id"].split("_")
        by_row.setdefault(row, {})[role] = s["filtered_resps"]
        test_of[row] = pay["categories"][0]
    per_test: dict[str, list[bool]] = {}
    for row, ans in by_row.items():
        per_test.setdefault(test_of[row], []).append(ans["pos"] == "Yes" and ans["neg"] == "No")
    tests = [t for t in per_test if t != "control"]
    assert len(tests) == 7
    return sum(100.0 * sum(per_test[t]) / len(per_test[t]) for t in tests) / len(tests)


def test_openai_model_on_every_generate_task(lmms_eval, fixture_root, cache_root, tmp_path):
    from PIL import Image

    with OpenAIServer(_answer, max_requests=2000, lifetime_s=900) as server:
        run = lmms_eval(
            ",".join(TASKS),
            model="openai",
            model_args=f"model_version=gpt-test,base_url={server.base_url},api_key=sk-test-key,"
            f"max_frames_num={FRAMES},max_retries=1,num_concurrent=4",
            env={"NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"},
            timeout=900,
        )
        requests = list(server.requests)
    assert not server.errors and server.refused == 0
    assert "(chat)" in run.results["config"]["model_backend"]

    n_samples = sum(len(run.samples[t]) for t in TASKS)
    assert len(requests) == n_samples > 0  # one request per question, no retries
    for req in requests:
        # visual content: FRAMES frames of the doc's one video, each a PNG data URL; nothing else
        assert len(req.images) == FRAMES and not req.other_parts, (len(req.images), req.text[:80])
        for url in req.images[:2]:
            head, data = url.split(",", 1)
            assert head == "data:image/png;base64"
            Image.open(io.BytesIO(base64.b64decode(data))).verify()
        assert req.headers.get("authorization") == "Bearer sk-test-key"
        assert req.body["model"] == "gpt-test" and req.body["temperature"] == 0
        # nothing of our environment reaches the prompt: no env names, data or cache paths
        raw = req.raw.decode()
        for leak in ("TEMPORAL_TASKS", str(fixture_root), str(cache_root), "sk-test-key"):
            assert leak not in raw, leak

    # the prompts sent are exactly the questions' prompts, and each question got the rule's answer for its prompt
    inputs = Counter(s["input"] for t in TASKS for s in run.samples[t])
    assert Counter(req.text for req in requests) == inputs
    replay_lines = []
    for task in TASKS:
        for s in run.samples[task]:
            payload = next(v for v in s.values() if isinstance(v, dict) and "question_id" in v)
            assert s["filtered_resps"] == rule(s["input"]) == payload["answer"], (task, payload["question_id"])
            replay_lines.append({"task": task, "question_id": payload["question_id"], "response": rule(s["input"])})
    answered = Counter(line["response"] for line in replay_lines)
    assert len(answered) >= 4, answered  # the rule gives a mix of right, wrong and unreadable answers

    # metrics: the same answers through the replay model, and StrictVLE by hand
    responses = tmp_path / "api_answers.jsonl"
    responses.write_text("".join(json.dumps(line) + "\n" for line in replay_lines))
    replay = lmms_eval(",".join(TASKS), responses=responses)
    for task in TASKS:
        got, want = run.metrics(task), replay.metrics(task)
        assert set(got) == set(want)
        bad = {k: (got[k], want[k]) for k in got if not _same(got[k], want[k])}
        assert not bad, (task, bad)
    assert run.metrics("velociti_strictvle")["strict_vle"] == pytest.approx(
        _hand_strict_vle(run.samples["velociti_strictvle"])
    )


def test_openai_server_is_bounded_and_records():
    """The helper itself: loopback, records bodies, refuses past its limit, stops by itself."""
    import time
    import urllib.error
    import urllib.request

    body = {"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}

    def post(url: str) -> dict:
        req = urllib.request.Request(
            f"{url}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=5) as resp:
            return json.loads(resp.read())

    server = OpenAIServer(lambda r: r.text.upper(), max_requests=1, lifetime_s=1.0).start()
    url = server.base_url
    assert url.startswith("http://127.0.0.1:")
    assert post(url)["choices"][0]["message"]["content"] == "HI"
    with pytest.raises(urllib.error.HTTPError) as err:
        post(url)
    assert err.value.code == 503 and server.refused == 1
    assert [r.text for r in server.requests] == ["hi"]
    time.sleep(1.5)  # past its lifetime: the port is closed
    with pytest.raises(urllib.error.URLError):
        post(url)


def test_openai_frame_sampling_facts(tmp_path):
    """What lmms-eval 0.7.3's openai model does with ``max_frames_num`` (qwen_vl_utils ``fetch_video``):
    the count is rounded to an even number, frames are upscaled PNGs, and a video with fewer frames than
    asked is an error that ends the run (decord refuses, the torchvision fallback is gone in 0.29)."""
    import numpy as np
    from lmms_eval.protocol import ChatMessages

    from temporal_tasks.data.fixtures.clips import write_video

    def frames(path, k: int) -> int:
        msgs = ChatMessages(messages=[{"role": "user", "content": [{"type": "video", "url": str(path)}]}])
        return len(msgs.to_openai_messages(video_kwargs={"nframes": k})[0]["content"])

    gray = lambda t: np.full((64, 64, 3), int(255 * t), np.uint8)  # noqa: E731
    clip16 = write_video(tmp_path / "f16.mp4", gray, 16, 8)
    assert [frames(clip16, k) for k in (7, 8, 9, 10, 16, 17)] == [8, 8, 8, 10, 16, 16]
    short = write_video(tmp_path / "f4.mp4", gray, 4, 4)
    with pytest.raises(Exception):  # noqa: B017 - AttributeError from the torchvision fallback in 0.7.3
        frames(short, FRAMES)


def test_failed_api_requests_are_scored_wrong_and_reported(lmms_eval, tmp_path):
    """lmms-eval turns a request that fails every retry into the answer text '[LMMS_EVAL_REQUEST_FAILED …]':
    it must be scored exactly as an unreadable answer, and the run must warn about it."""
    failing: list[str] = []

    def flaky(req: ChatRequest) -> str:
        if not failing:
            failing.append(req.text)  # every question with the first prompt seen fails
        if req.text == failing[0]:
            raise RuntimeError("simulated outage")
        return rule(req.text)

    with OpenAIServer(flaky, max_requests=200, lifetime_s=600) as server:
        run = lmms_eval(
            "timeblind_iacc",
            model="openai",
            model_args=f"model_version=gpt-test,base_url={server.base_url},api_key=sk-test,max_frames_num=4,"
            "max_retries=1,retry_backoff_s=0,num_concurrent=2",
            env={"NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"},
        )
    samples = run.samples["timeblind_iacc"]
    failed = [s for s in samples if s["input"] == failing[0]]
    assert 0 < len(failed) < len(samples)
    for s in failed:
        assert s["filtered_resps"].startswith("[LMMS_EVAL_REQUEST_FAILED after 1 retries]")
        assert s["trial_acc"]["pred"] is None and not s["trial_acc"]["correct"]
    assert "got [LMMS_EVAL_REQUEST_FAILED after 1 retries] from lmms-eval instead of an answer" in run.output
    # the same as an empty answer for every failed question
    answers = {s["trial_acc"]["question_id"]: ("" if s in failed else rule(s["input"])) for s in samples}
    replay = lmms_eval("timeblind_iacc", responses=answers)
    got, want = run.metrics("timeblind_iacc"), replay.metrics("timeblind_iacc")
    assert all(_same(got[k], want[k]) for k in want), (got, want)
    assert got["invalid_rate"] >= 100.0 * len(failed) / len(samples)
