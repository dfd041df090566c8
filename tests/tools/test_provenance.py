"""Reading provenance back (``tools/provenance.py``): a record described, found in results, and compared."""

from __future__ import annotations

from temporal_tasks.tools import provenance as read_back
from temporal_tasks.tools.provenance import differences


def test_compare_names_an_imported_run():
    run = {"reading": "official", "frames": {"n": 32}, "data": {}, "cut": {}}
    imported = dict(run, frames={"n": None}, imported={"files": [{"name": "predictions.json", "sha256": "ab" * 32}]})
    assert differences(run, imported) == [
        f"answers: lmms-eval run != imported from predictions.json (sha256 {'ab' * 6})",
        "frames.n: 32 != unknown (imported)",
    ]
    assert differences(imported, imported) == []  # two imported runs of different models compare as usual


def test_describe_and_from_results():
    rec = {
        "version": 1, "temporal_tasks": "0.1.0", "task": "t", "reading": "official",
        "frames": {"n": 16, "source": "TEMPORAL_TASKS_NUM_FRAMES", "applies_to": "paired videos"},
        "paired_layout": {"frames_per_clip": 7, "black_frames": 2},
        "data": {"kind": "hub", "repo": "HanSolo9682/Vinoground", "revision": "a" * 40, "questions": 2000,
                 "videos": 1000, "annotations_sha256": "b" * 64, "videos_sha256": "c" * 64},
        "shortcut": None, "cut": {"limit": 8, "offset": 0},
    }  # fmt: skip
    line = read_back.describe(rec)
    for part in ("reading official", "N=16 (TEMPORAL_TASKS_NUM_FRAMES", "paired 7+2+7", "HanSolo9682/Vinoground@aaaa",
                 "limit=8"):  # fmt: skip
        assert part in line
    results = {"configs": {"t": {"metadata": {"version": 1.0, "provenance": rec}}, "u": {"metadata": {}}}}
    assert read_back.from_results(results) == {"t": rec}
    assert read_back.differences(rec, {**rec, "reading": "robust"}) == ['reading: "official" != "robust"']


CHAT_OPENAI = "lmms_eval.models.chat.openai.OpenAICompatible (chat)"


def _config(backend: str, model_args: str = "model_version=gpt-4o,max_frames_num=8") -> dict:
    return {"model": "openai", "model_args": model_args, "model_backend": backend}


def test_frames_sent_from_the_adapter_and_the_encode_cache_record():
    old: dict = {"reading": "robust"}  # written before the repair existed
    repaired = {"reading": "robust", "encode_cache": {"defect": True, "repaired": True}}
    off = {"reading": "robust", "encode_cache": {"defect": True, "repaired": False}}
    fixed = {"reading": "robust", "encode_cache": {"defect": False, "repaired": False}}
    cases = [
        (old, _config(CHAT_OPENAI), "may repeat"),
        (old, _config("lmms_eval.models.chat.async_openai.AsyncOpenAIChat (chat)"), "may repeat"),
        (old, _config("lmms_eval.models.chat.vllm.VLLM (chat)"), "may repeat"),
        (old, _config(CHAT_OPENAI, "model_version=m,pass_video_url=True"), "intact"),  # the server decodes the video
        (old, _config("lmms_eval.models.simple.openai.OpenAICompatible (simple)"), "intact"),  # encodes uncached
        (old, _config("lmms_eval.models.simple.qwen2_5_vl.Qwen2_5_VL (simple)"), "intact"),  # tensors, no encoding
        (old, {"model": "vllm", "model_args": ""}, "may repeat"),  # no model_backend: the model's name
        (repaired, _config(CHAT_OPENAI), "repaired"),
        (off, _config(CHAT_OPENAI), "may repeat"),
        (fixed, _config(CHAT_OPENAI), "intact"),
        (off, _config("lmms_eval.models.simple.qwen2_5_vl.Qwen2_5_VL (simple)"), "intact"),
    ]
    for record, config, want in cases:
        assert read_back.frames_sent(record, config) == want, (record, config)


def test_a_run_that_may_have_repeated_frames_is_marked_and_not_comparable():
    base = {"reading": "robust", "frames": {"n": 8}, "data": {}, "cut": {}}
    old = {**base}
    new = {**base, "encode_cache": {"defect": True, "repaired": True}}
    (old_read,) = read_back.from_results({"config": _config(CHAT_OPENAI), "configs": {"t": {"metadata": {
        "provenance": old}}}}).values()  # fmt: skip
    (new_read,) = read_back.from_results({"config": _config(CHAT_OPENAI), "configs": {"t": {"metadata": {
        "provenance": new}}}}).values()  # fmt: skip
    assert old_read["frames_sent"] == "may repeat" and new_read["frames_sent"] == "repaired"
    assert "may have been sent repeated frames" in read_back.describe(old_read)
    assert "frames repaired" in read_back.describe(new_read)
    assert differences(old_read, new_read) == [
        "frames sent: frames may have repeated (lmms-eval encode cache, unrepaired) != every frame sent once"
    ]
    assert differences(old_read, old_read) == [] and differences(new_read, {**new_read, "frames_sent": "intact"}) == []
    # a local model's run: nothing to mark, comparable with a repaired API run
    (local,) = read_back.from_results({"config": _config("lmms_eval.models.simple.qwen2_5_vl.Qwen2_5_VL (simple)"),
                                       "configs": {"t": {"metadata": {"provenance": old}}}}).values()  # fmt: skip
    assert local["frames_sent"] == "intact" and "repeated" not in read_back.describe(local)
    assert differences(local, new_read) == []
