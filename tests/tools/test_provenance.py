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
