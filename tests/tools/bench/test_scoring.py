"""The inputs of ``temporal-tasks bench``'s scoring rows (``tools/bench/scoring.py``): the hand-built payloads and
docs, their sizes and shapes (the timings themselves are ``bench``'s, never a unit test's)."""

from __future__ import annotations

from collections import Counter

from temporal_tasks.benchmarks.timeblind import ROLES
from temporal_tasks.tools.bench.scoring import repeat_payloads, short_docs, timeblind_payloads


def test_timeblind_payloads_are_whole_instances_in_role_order():
    per_doc = timeblind_payloads(8)
    assert len(per_doc) == 8
    payloads = [d["instance_acc"] for d in per_doc]
    assert [p["group_id"] for p in payloads] == ["timeblind/0"] * 4 + ["timeblind/1"] * 4
    assert [p["role"] for p in payloads[:4]] == list(ROLES)
    assert [p["gold"] for p in payloads[:4]] == ["yes", "no", "no", "yes"]
    for p in payloads:
        assert p["correct"] == (p["pred"] == p["gold"]) and p["pred"] in ("yes", "no")
    assert payloads[4]["categories"] == ["speed", "yes_no"]  # instance 1: the second tag


def test_timeblind_payloads_are_about_seventy_percent_right_and_the_same_each_time():
    right = sum(d["instance_acc"]["correct"] for d in timeblind_payloads(2000)) / 2000
    assert 0.65 < right < 0.75
    assert timeblind_payloads(40) == timeblind_payloads(40)  # seeded


def test_short_docs_spread_questions_evenly_over_videos():
    docs = short_docs(3, 7)
    assert len(docs) == 7
    sizes = Counter(d["group_id"] for d in docs)
    assert sorted(sizes.values(), reverse=True) == [3, 2, 2]  # the larger group first
    assert all(d["group_size"] == sizes[d["group_id"]] for d in docs)
    assert {d["gold"] for d in docs} == {"A", "B"} and len({d["question_id"] for d in docs}) == 7
    assert docs[0]["source"] == "ActivityNet" and docs[3]["source"] == "Charades"  # one source per video, in turn
    assert short_docs(1, 0) == []


def test_repeat_payloads_hold_k_answers_each():
    docs = short_docs(4, 10)
    one, three = repeat_payloads(docs, 1), repeat_payloads(docs, 3)
    assert len(one) == len(three) == 10
    assert "repeats" not in one[0]["mba"]
    assert all(len(d["mba"]["repeats"]) == 3 for d in three)
    assert [d["mba"]["question_id"] for d in three] == [d["question_id"] for d in docs]
