"""Every model sees every frame, in order: the frames an API model is sent, identified one by one.

lmms-eval's ``openai`` and ``async_openai`` chat models decode each video on the client and send its frames as
images, through ``ChatMessages.to_openai_messages``, whose encode cache repeats frames (``temporal_tasks.compat.
encode_cache``). Here every video of the TimeBlind and Vinoground fixtures is replaced by an 8-frame clip whose every
frame carries its clip and frame number (``tests/helpers/coded_clips.py``), and a loopback server decodes every
image it receives. Each request must carry: for a main task, the clip's frames, each once, in order (a Vinoground
paired video: clip A's in order, the black gap, clip B's in order); for a shuffled variant, the same frames, each
once, and not all in order; for a single-frame variant, one frame of the clip. With the repair switched off
(``TEMPORAL_TASKS_REPAIR_FRAMES=0``) the same runs send repeated frames: the test can fail.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.helpers.coded_clips import BLACK, Code, coded_copy, decode_data_url, read_code
from tests.helpers.openai_server import ChatRequest, OpenAIServer

pytest.importorskip("decord")  # qwen_vl_utils, which the openai models use to sample frames, needs it here

FRAMES = 8  # frames per coded clip, and the models' max_frames_num (every frame of a clip is sent)
MAIN = ("timeblind_iacc", "vinoground_group")
SHUFFLED = ("timeblind_iacc_shuffled", "vinoground_group_shuffled")
SINGLE = ("timeblind_iacc_single_frame", "vinoground_group_single_frame")
ENV = {"NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}


@pytest.fixture(scope="module")
def coded_root(fixture_root, tmp_path_factory):
    root = tmp_path_factory.mktemp("coded")
    coded_copy(fixture_root, root, ["timeblind", "vinoground"], frames=FRAMES)
    return root


def _answer(req: ChatRequest) -> str:
    return "A"


def _run(lmms_eval, coded_root, tasks, model="openai", env=None, out: list | None = None) -> list[list[Code]]:
    """Run ``tasks`` with ``model`` against the loopback server: the codes of each request's images, one request
    per question (the run itself appended to ``out``)."""
    # async_openai names its frame count nframes
    extra = f"max_frames_num={FRAMES},num_concurrent=4" if model == "openai" else f"nframes={FRAMES},num_cpus=4"
    with OpenAIServer(_answer, max_requests=1500, lifetime_s=900) as server:
        run = lmms_eval(
            ",".join(tasks),
            model=model,
            model_args=f"model_version=gpt-test,base_url={server.base_url},api_key=sk-test,max_retries=1,{extra}",
            env={**ENV, **(env or {})},
            data_dir=coded_root,
            timeout=900,
        )
        requests = list(server.requests)
    if out is not None:
        out.append(run)
    assert not server.errors and server.refused == 0
    assert len(requests) == sum(len(run.samples[t]) for t in tasks) > 0
    return [[read_code(decode_data_url(url)) for url in req.images] for req in requests]


def _runs(codes: list[Code]) -> list[list[Code]]:
    """The request's frames cut at black frames: one list per clip shown."""
    parts: list[list[Code]] = [[]]
    for code in codes:
        if code.black:
            parts.append([])
        else:
            parts[-1].append(code)
    return [p for p in parts if p]


def _in_order(codes: list[Code]) -> bool:
    """Each clip's frames distinct and in increasing order, one clip per part, black only between parts."""
    parts = _runs(codes)
    return all(len({c.clip for c in p}) == 1 and all(a.frame < b.frame for a, b in zip(p, p[1:], strict=False))
               for p in parts)  # fmt: skip


def _repeated(codes: list[Code]) -> bool:
    seen = Counter(c for c in codes if not c.black)
    return any(n > 1 for n in seen.values())


def _check_main(requests: list[list[Code]]) -> None:
    for codes in requests:
        assert len(codes) == FRAMES, codes
        assert not _repeated(codes) and _in_order(codes), codes
        parts = _runs(codes)
        if len(parts) == 1:  # a clip: all its frames, first to last
            assert [c.frame for c in parts[0]] == list(range(FRAMES)), codes
        else:  # a paired video: clip A, the black gap, clip B (3 + 2 + 3 for N = 8)
            assert [len(p) for p in parts] == [3, 3] and codes[3:5] == [BLACK, BLACK], codes
            assert parts[0][0].clip != parts[1][0].clip, codes


def test_main_tasks_send_every_frame_once_in_order(lmms_eval, coded_root, tmp_path, capsys):
    runs: list = []
    requests = _run(lmms_eval, coded_root, MAIN, out=runs)
    _check_main(requests)
    assert any(len(_runs(codes)) == 2 for codes in requests)  # Vinoground's paired videos were among them
    # the run says what it found and did, once, and its provenance records it
    (run,) = runs
    assert run.output.count("lmms-eval's encode cache repeated a video frame") == 1, run.output[-3000:]
    for task in MAIN:
        record = run.results["configs"][task]["metadata"]["provenance"]
        assert record["encode_cache"] == {"defect": True, "repaired": True}
    _older_runs_are_marked(run.out / "results", tmp_path, capsys)


def _older_runs_are_marked(repaired: Path, tmp_path: Path, capsys) -> None:
    """A run of the same model written before the repair (no ``encode_cache`` in its provenance) is marked by
    summary, report and view, and compare refuses it beside the repaired run without --force."""
    from temporal_tasks import cli
    from temporal_tasks.base.errors import DataError
    from temporal_tasks.tools.compare import compare_runs
    from temporal_tasks.tools.view.build import view_data

    older = tmp_path / "older"
    shutil.copytree(repaired, older)
    (results_file,) = older.rglob("*_results.json")
    data = json.loads(results_file.read_text())
    for cfg in data["configs"].values():
        cfg["metadata"]["provenance"].pop("encode_cache")
    results_file.write_text(json.dumps(data))

    mark = "may have been sent repeated frames"
    assert cli.main(["summary", str(older)]) == 0
    assert capsys.readouterr().out.count(mark) == len(MAIN)
    assert cli.main(["summary", str(repaired)]) == 0
    shown = capsys.readouterr().out
    assert mark not in shown and "frames repaired" in shown
    assert cli.main(["report", str(older), "--out", str(tmp_path / "report")]) == 0
    assert mark in (tmp_path / "report" / "report.md").read_text()
    lines = [r["provenance_line"] for t in view_data([older])["tasks"] for r in t["runs"] if r]
    assert lines and all(mark in line for line in lines)

    with pytest.raises(DataError, match="frames sent: frames may have repeated"):
        compare_runs(older, repaired)
    rows, notes = compare_runs(older, repaired, force=True)
    assert rows and all(r.diff == 0 for r in rows) and any("--force" in n for n in notes)


def test_shuffled_variants_send_the_same_frames_out_of_order(lmms_eval, coded_root):
    requests = _run(lmms_eval, coded_root, SHUFFLED)
    for codes in requests:
        # the main task's frames (each clip's, each once), in a seeded order within each clip
        assert len(codes) == FRAMES and not _repeated(codes), codes
        parts = _runs(codes)
        assert all(len({c.clip for c in p}) == 1 for p in parts), codes
        if len(parts) == 1:
            assert sorted(c.frame for c in parts[0]) == list(range(FRAMES)), codes
        else:
            assert [len(p) for p in parts] == [3, 3] and codes[3:5] == [BLACK, BLACK], codes
    whole_clips = [codes for codes in requests if len(_runs(codes)) == 1]
    paired = [codes for codes in requests if len(_runs(codes)) == 2]
    assert whole_clips and paired and not any(_in_order(codes) for codes in whole_clips)


def test_single_frame_variants_send_one_frame_of_the_clip(lmms_eval, coded_root):
    requests = _run(lmms_eval, coded_root, SINGLE)
    for codes in requests:
        if len(codes) == 1:  # one clip: one frame of it, as an image
            assert not codes[0].black and 0 <= codes[0].frame < FRAMES, codes
        else:  # a Vinoground video question: the paired layout, one frame of each clip held, the black gap between
            assert len(codes) == FRAMES and codes[3:5] == [BLACK, BLACK], codes
            assert len(set(codes[:3])) == 1 and len(set(codes[5:])) == 1 and codes[0].clip != codes[5].clip, codes
    assert {len(codes) for codes in requests} == {1, FRAMES}


def test_async_openai_sends_every_frame_once_in_order(lmms_eval, coded_root):
    _check_main(_run(lmms_eval, coded_root, ["timeblind_iacc"], model="async_openai"))


def test_without_the_repair_frames_repeat(lmms_eval, coded_root):
    """The repair switched off: lmms-eval's own encode cache repeats frames (so the tests above can fail)."""
    requests = _run(lmms_eval, coded_root, ["timeblind_iacc"], env={"TEMPORAL_TASKS_REPAIR_FRAMES": "0"})
    bad = [codes for codes in requests if _repeated(codes) or not _in_order(codes)]
    assert bad, "no request repeated a frame: lmms-eval fixed its encode cache; turn the repair's probe test over"
