"""Full-size rehearsal: every benchmark at its real size through the real lmms-eval CLI (replay model).

The expected numbers are computed here from the raw files and the replayed answers alone, by an
independent transcription of each official scoring rule (no loader, no temporal_tasks scoring).
"""

from __future__ import annotations

import json
import random
import time
from collections import defaultdict
from pathlib import Path

import pytest

from temporal_tasks.data.fixtures import write_fixtures
from tests.helpers.benchmarks.timeblind import official_get_scores
from tests.helpers.benchmarks.vinoground import official_get_score_all

TESTS7 = ("agent_random", "agent_bind", "coref", "action_adv", "action_manner", "action_bind", "chrono")


@pytest.fixture(scope="module")
def full_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("full")
    start = time.perf_counter()
    write_fixtures(root, full=True)
    print(f"[full-size] fixtures written in {time.perf_counter() - start:.1f} s")
    return root


def _answer(rng: random.Random, gold: str, wrong: str, invalid: str | None = "") -> str:
    """Mostly right, some wrong, a few unreadable (when ``invalid`` is given)."""
    roll = rng.random()
    if invalid is not None and roll < 0.05:
        return invalid
    return gold if roll < 0.75 else wrong


def _close(got: dict, expected: dict) -> None:
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-9), key


def _timed(lmms_eval, label: str, *args, **kwargs):
    start = time.perf_counter()
    run = lmms_eval(*args, **kwargs)
    print(f"[full-size] {label}: {time.perf_counter() - start:.1f} s")
    for task in run.raw_samples:
        _check_samples(run, task)
    return run


def _view(folder: Path, label: str) -> None:
    """``temporal-tasks view`` of the run: at most 1.5 times the samples files it reads (issue 30)."""
    from temporal_tasks.tools.view import write_view

    start = time.perf_counter()
    path, data = write_view([folder], folder.parent / "view.html")
    size = path.stat().st_size
    ratio = size / data["samples_bytes"]
    took = time.perf_counter() - start
    print(f"[full-size] view of {label}: {size / 1e6:.1f} MB, {ratio:.2f}x the samples, written in {took:.1f} s")
    assert ratio <= 1.5, (label, ratio)


SAMPLES_LIMIT = 2500  # bytes per question, plus two copies of the answer (README "Samples files")


def _check_samples(run, task: str) -> None:
    """The samples file is lean (per question <= 2.5 KB plus two copies of the answer) and rescores every metric."""
    from temporal_tasks.tools.rescore import rescore_task
    from temporal_tasks.tools.samples import answer_of

    lines = run.raw_samples[task]
    size = sum(len(json.dumps(line, ensure_ascii=False).encode()) + 1 for line in lines)  # as lmms-eval writes
    answers = sum(len(answer_of(line).encode()) for line in lines)
    per_question = (size - 2 * answers) / len(lines)
    print(f"[full-size] {task}: {size / len(lines):.0f} bytes per question ({per_question:.0f} less 2 answers)")
    assert per_question <= SAMPLES_LIMIT, task
    rescored = rescore_task(task, lines)
    expected = run.metrics(task)
    assert set(rescored) == set(expected), task
    for key, value in expected.items():
        assert rescored[key] == pytest.approx(value, abs=1e-9, nan_ok=True), (task, key)


def test_timeblind_full_size(lmms_eval, full_root):
    rows = [json.loads(x) for x in (full_root / "timeblind" / "data.jsonl").read_text().splitlines()]
    assert len(rows) == 2400
    rng = random.Random(1)
    answers, labels = {}, {}
    for r in rows:
        gold = ("yes", "no", "no", "yes")[r["index"] % 4]
        spoken = {"yes": ("Yes", "No"), "no": ("No", "Yes")}[gold]
        if r["type"] == "multiple_choice":
            spoken = {"Yes": "A", "No": "B"}[spoken[0]], {"Yes": "A", "No": "B"}[spoken[1]]
        text = _answer(rng, *spoken)
        answers[str(r["index"])] = text
        labels[r["index"]] = {"Yes": 1, "A": 1, "No": 0, "B": 0}.get(text, -1)
    run = _timed(lmms_eval, "timeblind_iacc", "timeblind_iacc", responses=answers, data_dir=full_root)
    _close(run.metrics("timeblind_iacc"), official_get_scores(labels))


def test_vinoground_full_size(lmms_eval, full_root):
    root = full_root / "vinoground"
    gold = {kind: {q["idx"]: q["GT"] for q in json.loads((root / f"vinoground_{kind}score.json").read_text())}
            for kind in ("text", "video")}  # fmt: skip
    rng = random.Random(2)
    answers = {}
    for kind, items in gold.items():
        for idx, gt in items.items():
            answers[f"{idx}_{kind}"] = _answer(rng, gt, "B" if gt == "A" else "A")  # about 5% empty
    assert len({int(idx.split("_")[0]) for idx in gold["text"]}) == 500

    run = _timed(lmms_eval, "vinoground_group_official", "vinoground_group_official", responses=answers,
                 data_dir=full_root, env={"TEMPORAL_TASKS_PARSER": "official"})  # fmt: skip
    # the official reading is get_score_all.py's control flow (an empty text answer it reaches skips the rest of
    # its pair), every key
    _close(run.metrics("vinoground_group_official"), official_get_score_all(root, answers))


def _ba_mba(rows: list[dict], answers: dict[str, str]) -> dict[str, float]:
    """Official get_qa_acc.py: BA over questions; MBA over videos whose questions are all right."""
    by_video = defaultdict(list)
    for r in rows:
        by_video[r["video_name"]].append(answers[r["idx"]][:1].lower() == r["GT"].lower())
    n = sum(len(v) for v in by_video.values())
    return {
        "binary_acc": 100.0 * sum(sum(v) for v in by_video.values()) / n,
        "mba": 100.0 * sum(all(v) for v in by_video.values()) / len(by_video),
    }


def test_temporalbench_full_size(lmms_eval, full_root, tmp_path):
    root = full_root / "temporalbench"
    rng = random.Random(3)
    answers, expected = {}, {}
    for part in ("short", "long"):
        rows = json.loads((root / f"temporalbench_{part}_qa.json").read_text())
        for r in rows:
            answers[r["idx"]] = _answer(rng, r["GT"], "B" if r["GT"] == "A" else "A", invalid=None)
        expected[part] = _ba_mba(rows, answers)
    assert len(answers) == 9867 + 5485
    run = _timed(lmms_eval, "temporalbench_short_mba + long_mba", "temporalbench_short_mba,temporalbench_long_mba",
                 responses=answers, data_dir=full_root)  # fmt: skip
    _close(run.metrics("temporalbench_short_mba"), expected["short"])
    _close(run.metrics("temporalbench_long_mba"), expected["long"])
    _view(tmp_path / "run1" / "results", "temporalbench_short_mba + long_mba")


def test_velociti_full_size(lmms_eval, full_root):
    import pandas as pd

    table = pd.read_parquet(full_root / "velociti" / "test-data.parquet")
    assert len(table) == 8792
    rng = random.Random(4)
    answers, right = {}, defaultdict(list)
    for row, test in enumerate(table["test_name"]):
        pos, neg = _answer(rng, "Yes", "No", invalid=None), _answer(rng, "No", "Yes", invalid=None)
        answers[f"{row}_pos"], answers[f"{row}_neg"] = pos, neg
        right[test].append(pos == "Yes" and neg == "No")  # StrictVLE: C+ entailed and C- not
    per_test = {t: 100.0 * sum(v) / len(v) for t, v in right.items()}
    run = _timed(lmms_eval, "velociti_strictvle", "velociti_strictvle", responses=answers, data_dir=full_root)
    got = run.metrics("velociti_strictvle")
    _close(
        got, {"strict_vle": sum(per_test[t] for t in TESTS7) / 7, **{f"strict_vle_{t}": v for t, v in per_test.items()}}
    )


def test_check_data_on_the_full_copy_matches_every_published_count(full_root, tmp_path):
    import os
    import subprocess
    import sys

    env = dict(os.environ, TEMPORAL_TASKS_DATA_DIR=str(full_root), TEMPORAL_TASKS_CACHE_DIR=str(tmp_path / "cache"))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "temporal_tasks", "check-data"], env=env, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    print(f"[full-size] check-data: {time.perf_counter() - start:.1f} s")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "differs" not in proc.stdout and "every present benchmark is ready" in proc.stdout
    for what, count in (("rows", "2,400"), ("pairs", "500"), ("questions", "9,867"), ("captions", "1,891")):
        assert any(ln.split()[:3] == [what, count, count] for ln in proc.stdout.splitlines()), what


# Thinking-model answers (issue 20): each states its answer in an explicit container, in the styles of GLM-4.1V-
# Thinking, Qwen3-VL-Thinking, Kimi-VL-Thinking and o3/GPT-5, with reasoning and explanations that name the other
# option; a few are runtime errors or thinking cut off by max_new_tokens (no stated answer).
_THINK_STYLES = (
    "<think>Let me compare the two clips. {other_said} seemed possible at first.</think><answer>"
    "<|begin_of_box|>{said}<|end_of_box|></answer>",
    "<think>Checking the order of events.</think>\n<answer>{said}</answer>",
    "Looking at it again, the answer would be <|begin_of_box|>{said}<|end_of_box|> (the other reading, {other_said}, "
    "does not hold).",
    "The motion is clear in frames 3-5, so this matches <|begin_of_box|>{said}<|end_of_box|>. If it were the other "
    "way round, it would be {other_said}, but it is not.",
    "After reviewing the video, the answer is \\boxed{{{said}}}.",
    "Final Answer: \\boxed{{\\text{{{said}}}}}",
    "**Answer:** {said}\n\nThe alternative, {other_said}, would need the opposite order of events.",
    "Final answer: {said}\nA careful look rules out {other_said}.",
    "The first motion is faster than the second.\n</think>\n\n{said}",
    "\u25c1think\u25b7The two clips differ in speed; {other_said} is tempting.\u25c1/think\u25b7{said}",
    "<think>Option by option: {other_said} vs {said}.</think>\n\n**Final Answer:** {said}",
)
_NO_ANSWER = (
    "<think>The hand moves towards the cup. Is the motion fast? Let me look again at frames 3 to 5; the",
    "[LMMS_EVAL_REQUEST_FAILED after 5 retries]",
    "",
)


def test_timeblind_full_size_thinking_model(lmms_eval, full_root, tmp_path):
    rows = [json.loads(x) for x in (full_root / "timeblind" / "data.jsonl").read_text().splitlines()]
    rng = random.Random(20)
    answers, careful, stated = {}, {}, set()
    for r in rows:
        gold = ("yes", "no", "no", "yes")[r["index"] % 4]
        right = rng.random() < 0.7
        value = (gold == "yes") == right  # True: the model says yes / A
        if r["type"] == "multiple_choice":
            said, other = ("A", "B") if value else ("B", "A")
            said, other = (f"Option {said}", f"Option {other}") if rng.random() < 0.3 else (said, other)
        else:
            said, other = ("Yes", "No") if value else ("No", "Yes")
        if rng.random() < 0.02:
            answers[str(r["index"])] = rng.choice(_NO_ANSWER)
            careful[r["index"]] = -1
            continue
        answers[str(r["index"])] = rng.choice(_THINK_STYLES).format(said=said, other_said=other)
        careful[r["index"]] = int(value)
        stated.add(r["index"])
    run = _timed(lmms_eval, "timeblind_iacc (thinking)", "timeblind_iacc", responses=answers, data_dir=full_root)
    samples = {int(s["instance_acc"]["question_id"]): s["instance_acc"] for s in run.samples["timeblind_iacc"]}
    read = {i: {"yes": 1, "A": 1, "no": 0, "B": 0}.get(samples[i]["pred_robust"], -1) for i in samples}
    agree = sum(read[i] == careful[i] for i in stated) / len(stated)
    print(f"[full-size] thinking answers: {len(stated)} stated, robust agrees on {100 * agree:.2f}%")
    assert agree >= 0.995
    got = run.metrics("timeblind_iacc")
    for key, value in official_get_scores(careful).items():
        assert abs(got[key] - value) <= 0.5, (key, got[key], value)
    cut = sum(1 for i in careful if answers[str(i)].startswith("<think>") and "</think>" not in answers[str(i)])
    assert got["truncated_rate"] == pytest.approx(100 * cut / len(rows))
    _view(tmp_path / "run1" / "results", "timeblind_iacc (thinking)")
