"""VELOCITI's failure shapes (``benchmarks/velociti/view.py``): StrictVLE's two captions, MC's two orders."""

from __future__ import annotations

from temporal_tasks.benchmarks.velociti.view import shape


def _m(role: str, pred: str | None) -> dict:
    return {"role": role, "pred": pred}


def test_strictvle_shapes():
    assert shape([_m("pos", "yes"), _m("neg", "yes")]) == "Yes to both captions"
    assert shape([_m("pos", "no"), _m("neg", "no")]) == "No to both captions"
    assert shape([_m("neg", "yes"), _m("pos", "no")]) == "both captions flipped"  # member order does not matter
    assert shape([_m("pos", None), _m("neg", None)]) == "None to both captions"


def test_mc_shapes():
    assert shape([_m("posA", "B"), _m("posB", "B")]) == "same letter (B) in both orders"
    assert shape([_m("posA", "B"), _m("posB", "A")]) == "wrong in both orders"


def test_other_groups_are_left_to_the_generic_shapes():
    assert shape([]) is None
    assert shape([_m("pos", "yes")]) is None  # half a StrictVLE pair
    assert shape([_m("posA", "A"), _m("neg", "no")]) is None
