"""What ``process_results`` hands each key (``scoring/payloads.py``): every field of the ``Payload`` type, both
readings, every repeat's reading, category keys, and a cut-off answer unreadable."""

from __future__ import annotations

import json
import typing

import pytest

from temporal_tasks.api import contracts
from temporal_tasks.api.spec import Metric, MetricList, PerCategory
from temporal_tasks.benchmarks.timeblind import tasks as timeblind
from temporal_tasks.scoring.payloads import NO_ANSWER, make_payload, results_for
from temporal_tasks.tools.rescore import reparse
from tests.helpers.payloads import (
    ab_doc,
    trial_doc,
    yes_no_doc,
)
from tests.helpers.repeats import small_timeblind_docs


def test_a_payload_has_every_field_the_payload_type_requires():
    doc: contracts.Doc = {
        "question_id": "q1", "group_id": "toy/1", "role": "q0", "group_size": 2, "prompt": "Yes?",
        "gold": "yes", "parser": "timeblind_yes_no", "videos": ["v.mp4"], "categories": ["motion"],
    }  # fmt: skip
    payload = make_payload(doc, "Yes")
    required = typing.get_type_hints(contracts.Payload)
    optional = contracts.Payload.__optional_keys__
    assert set(required) - optional <= set(payload)
    reading = set(typing.get_type_hints(contracts.Reading))
    assert reading - contracts.Reading.__optional_keys__ <= set(payload)
    repeated = make_payload(doc, ["Yes", "No"])
    assert [set(r) for r in repeated["repeats"]] == [reading - {"answer_missing"}] * 2
    assert contracts.Reading.__optional_keys__ == {"answer_missing"}  # only on a question with no answer at all
    missing = make_payload(doc, NO_ANSWER)
    assert set(missing) - set(payload) == {"answer_missing"} and missing["answer_missing"] is True
    assert (missing["answer"], missing["answer_empty"], missing["pred"], missing["correct"]) == (NO_ANSWER, True,
                                                                                              None, False)  # fmt: skip
    assert reparse(missing, "official")["answer_missing"] is True  # rescore reads the same from the samples file


@pytest.mark.parametrize("mode", ["robust", "official"])
def test_payload_keeps_both_readings(monkeypatch, mode):
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
    p = make_payload(ab_doc("g", "r", 1), "A man is waving")
    assert (p["pred_robust"], p["pred_official"]) == ("B", "A")
    assert p["pred"] == {"robust": "B", "official": "A"}[mode]
    assert p["correct"] == (mode == "robust")  # gold B
    assert p["parser_mode"] == mode
    # the compact options re-read the answer without the doc
    assert reparse(p, None) == p
    flipped = reparse(p, "official" if mode == "robust" else "robust")
    assert flipped["pred"] == {"robust": "A", "official": "B"}[mode]


@pytest.fixture
def tb_docs(offline_env) -> list[dict]:
    return small_timeblind_docs()


def test_payload_keeps_repeat_zero_on_top_and_every_reading(tb_docs):
    doc = tb_docs[0]  # gold yes
    one = timeblind.process_results(doc, ["Yes"])
    assert not any(k.endswith(("_consensus_accuracy", "_consistency_rate", "_repeat_sd")) for k in one)
    assert "repeats" not in one["instance_acc"]
    out = timeblind.process_results(doc, ["Yes", "", "No"])
    p = out["instance_acc"]
    assert p["answer"] == "Yes" and p["pred"] == "yes" and p["correct"] is True  # repeat 0 on top
    assert [r["pred"] for r in p["repeats"]] == ["yes", None, "no"]
    assert [r["correct"] for r in p["repeats"]] == [True, False, False]
    assert all("answer" not in r for r in p["repeats"])  # the texts stay lmms-eval's resps
    for key in ("instance_acc", "trial_acc", "instance_acc_yes_no"):
        assert {f"{key}_consensus_accuracy", f"{key}_consistency_rate", f"{key}_repeat_sd"} <= set(out)
    assert not any(k.startswith(("invalid_rate_", "truncated_rate_")) for k in out)


def test_results_for_adds_category_keys():
    payload = make_payload(trial_doc(0, 0, ["Cross-Event_Comparison", "Structural Event Logic"]), "yes")
    block = PerCategory(("instance_acc",), ("cross_event_comparison", "structural_event_logic", "speed"))
    ml = MetricList("f.yaml", values={"acc": Metric(), "instance_acc": Metric()}, diagnostics=(), per_category=(block,))
    keys = results_for(payload, ml, payload["categories"])
    expected = {"acc", "instance_acc", "instance_acc_cross_event_comparison", "instance_acc_structural_event_logic"}
    assert set(keys) == expected
    # a category the list has no key for feeds none
    assert set(results_for(payload, ml, ["Unknown tag"])) == {"acc", "instance_acc"}
    # no invalid_rate key: the first key holds the payload (less the answer) for the samples file, the others
    # share one object (one computation for a metric's keys)
    # the first key (no invalid_rate here) holds the payload, written without the answer; in the process it equals
    # the other keys' shared object, so every key's list is the same list of payloads
    assert keys["acc"] == payload and json.loads(json.dumps(keys["acc"])) == {
        k: v for k, v in payload.items() if k != "answer"
    }
    shared = keys["instance_acc_cross_event_comparison"]
    assert keys["instance_acc_structural_event_logic"] is shared and dict(shared) == payload
    assert "score" not in payload  # lmms-eval would compute a misleading per-question stderr from it


def test_cut_off_answer_is_unreadable_even_if_the_reasoning_says_yes_or_no():
    p = make_payload(yes_no_doc("g", "r0", 1), "<think>At first glance no, the cup stays. But wait")
    assert p["truncated"] is True and p["pred_robust"] is None and p["correct"] is False
    assert p["parser_errors"] == 0
