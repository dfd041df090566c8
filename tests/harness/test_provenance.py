"""The provenance record's fingerprints (``harness/provenance.py``): cheap and sensitive."""

from __future__ import annotations

from temporal_tasks.harness import provenance


def test_fingerprints_are_cheap_and_sensitive(tmp_path):
    a, b = tmp_path / "a.mp4", tmp_path / "b.mp4"
    a.write_bytes(b"x" * 10)
    b.write_bytes(b"y" * 20)
    fp = provenance.videos_fingerprint([str(a), str(b)])
    assert fp == provenance.videos_fingerprint([str(b), str(a)])  # order-free
    a.write_bytes(b"z" * 10)  # same name and size: stat only, so the same fingerprint (by design: cheap)
    assert provenance.videos_fingerprint([str(a), str(b)]) == fp
    a.write_bytes(b"z" * 11)
    assert provenance.videos_fingerprint([str(a), str(b)]) != fp
    docs = [{"question_id": "1", "prompt": "p", "gold": "A"}]
    assert provenance.annotations_fingerprint(docs) != provenance.annotations_fingerprint([{**docs[0], "gold": "B"}])
