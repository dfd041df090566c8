"""Both readings in every payload, the shared ``parse_disagreement`` aggregation, and its wiring in every task."""

from __future__ import annotations

import math
import random
from types import SimpleNamespace

import pytest

from temporal_tasks.cli import our_tasks
from temporal_tasks.scoring.aggregations import functions, parse_disagreement
from temporal_tasks.scoring.payloads import make_payload
from temporal_tasks.tools.rescore import reparse, task_config
from tests.helpers.payloads import GENERATE_TASKS, ab_doc

# Group g1 (4 questions), by hand:       robust  official  differ
ANSWERS_G1 = {
    "r0": "A man is waving",  # B       A         yes (caption echo)
    "r1": "B",  #                          B       B         no
    "r2": "(A)",  #                        A       None      yes
    "r3": "",  #                           None    None      no (both unreadable)
}
# Group g2 (2 questions): "Both" -> robust None, official B (differ); "b" -> B, B (same).
ANSWERS_G2 = {"r0": "Both", "r1": "b"}
# Group g3 is cut (1 of its 2 questions evaluated) and its answer differs: it must not count.
ANSWERS_G3 = {"r0": "Answer: B"}


def _payloads() -> list[dict]:
    items = [make_payload(ab_doc("g1", r, 4), a) for r, a in ANSWERS_G1.items()]
    items += [make_payload(ab_doc("g2", r, 2), a) for r, a in ANSWERS_G2.items()]
    items += [make_payload(ab_doc("g3", r, 2), a) for r, a in ANSWERS_G3.items()]
    return items


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


@pytest.mark.parametrize("mode", ["robust", "official"])
def test_parse_disagreement_hand_computed_any_order(monkeypatch, mode):
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
    items = _payloads()
    # complete groups g1 + g2: 6 answers, 3 differ (g1 r0, g1 r2, g2 r0); g3 is cut
    expected = 100 * 3 / 6
    for seed in range(5):
        random.Random(seed).shuffle(items)
        assert parse_disagreement(items) == pytest.approx(expected)


def test_parse_disagreement_edge_cases():
    assert math.isnan(parse_disagreement([]))
    empty = [make_payload(ab_doc("e", r, 2), "") for r in ("r0", "r1")]
    assert parse_disagreement(empty) == 0.0  # unreadable in both modes is agreement
    cut = [make_payload(ab_doc("c", "r0", 2), "Answer: B")]
    assert math.isnan(parse_disagreement(cut))  # nothing complete to score
    # payloads of an older run lack the readings: reparse adds them (and no option text: caption echoes stay A/None)
    old = {
        k: v for k, v in make_payload(ab_doc("o", "r0", 1), "(A)").items() if k not in ("pred_robust", "option_keys")
    }
    old.pop("pred_official")
    assert math.isnan(parse_disagreement([old]))
    assert parse_disagreement([reparse(old, None)]) == 100.0


def test_every_generate_task_reports_parse_disagreement():
    generate = {t for t in our_tasks() if task_config(t).get("output_type") == "generate_until"}
    # the 12 main generate tasks and their shortcut variants (which include the main task's YAML)
    assert GENERATE_TASKS <= generate
    for task in sorted(generate - {"temporalbench_caption_sim"}):
        metrics = task_config(task)["metric_list"]
        names = [m["metric"] for m in metrics]
        at = names.index("parse_disagreement")
        assert names[at - 1] == "invalid_rate", task
        bench = task.split("_")[0]
        want = f"temporal_tasks.scoring.aggregations.{bench}__parse_disagreement"
        assert metrics[at]["aggregation"] == ("!function", want), task
        assert metrics[at]["higher_is_better"] is False, task


def test_every_loader_passes_the_options_it_shows(offline_env):
    from temporal_tasks.answers.parsing import get_parser
    from temporal_tasks.benchmarks.temporalbench import loader as temporalbench_loader
    from temporal_tasks.benchmarks.timeblind import tasks as timeblind
    from temporal_tasks.benchmarks.velociti import tasks as velociti
    from temporal_tasks.benchmarks.vinoground import tasks as vinoground
    from temporal_tasks.harness.task_docs import docs_dataset

    docs = {
        "timeblind": timeblind.load_docs(),
        "vinoground": vinoground.load_docs(variant="group"),
        "temporalbench": temporalbench_loader.load_docs(),
        "velociti": velociti.load_docs(kind="all"),
    }
    for bench, ds in docs.items():
        for d in ds:
            labels = [o["label"] for o in d["options"]]
            assert labels == list(get_parser(d["parser"]).labels), (bench, d["question_id"])
            assert all(o["text"] and isinstance(o["names"], list) for o in d["options"]), (bench, d["question_id"])
            if d["parser"] not in ("timeblind_yes_no", "velociti_yes_no"):
                # every option text is what the prompt shows
                assert all(" ".join(o["text"].split()) in " ".join(d["prompt"].split()) for o in d["options"]), d
        docs_dataset(lambda ds=ds: ds)  # a consistent schema for datasets.Dataset.from_list
    video = [d for d in docs["vinoground"] if d["kind"] == "video"]
    assert video and all("second segment" in d["options"][1]["names"] for d in video)


def test_parse_disagreement_shares_the_table_of_other_keys():
    # 300 groups of 4; the other keys of the task share one table.
    # In group g, question r differs iff (g + r) % 3 == 0: answer "(A)" (robust A, official None), else "A".
    from temporal_tasks.scoring.metrics import question_rate
    from temporal_tasks.scoring.table import INVALID

    items = []
    for g in range(300):
        for r in range(4):
            answer = "(A)" if (g + r) % 3 == 0 else "A"
            items.append(make_payload(ab_doc(f"g{g}", f"r{r}", 4, gold="A"), answer))
    expected_all = 100 * sum((g + r) % 3 == 0 for g in range(300) for r in range(4)) / 1200
    question_rate([dict(p, correct=not p["correct"]) for p in items], INVALID)  # unrelated work first
    timeblind_agg = SimpleNamespace(**functions("timeblind"))
    timeblind_agg.trial_acc(list(items))  # builds the shared table, as the headline key does
    assert parse_disagreement(list(items)) == pytest.approx(expected_all)
    # a category-style subset of whole groups (made from the shared table's columns)
    subset = [p for p in items if int(p["group_id"][1:]) % 5 == 0]
    expected_sub = 100 * sum((g + r) % 3 == 0 for g in range(0, 300, 5) for r in range(4)) / len(subset)
    assert parse_disagreement(subset) == pytest.approx(expected_sub)
    # a replayed answer to the same question counts once; a cut group counts not at all
    noisy = [*items, items[0], make_payload(ab_doc("cut", "r0", 4), "(A)")]
    random.Random(7).shuffle(noisy)
    assert parse_disagreement(noisy) == pytest.approx(expected_all)
