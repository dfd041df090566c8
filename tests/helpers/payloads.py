"""Hand-made docs, payloads and answers, and a toy spec, that the spec, scoring and tool tests share."""

from __future__ import annotations

from temporal_tasks.answers.options import option
from temporal_tasks.api.spec import Benchmark, Metric, MetricList
from temporal_tasks.scoring.metrics import (
    reset_tables,
    score,
)
from temporal_tasks.scoring.payloads import make_payload


def toy_spec(*lists: MetricList, roles=("pos", "neg")) -> Benchmark:
    """A spec of a benchmark ``toy`` holding ``lists`` (its roles ``pos`` and ``neg`` by default)."""
    return Benchmark(name="toy", title="Toy", package="toy", metric_lists=lists, roles=roles)


def unit_accuracy(payloads, units, invalid="wrong") -> float:
    """The core's value of a unit metric over ``payloads`` (no table kept from before: no cache is involved)."""
    reset_tables()
    return score(payloads, Metric(units, invalid=invalid), label="test", key="m").value


# TimeBlind-style groups of four trials (two questions on two videos), gold yes, no, no, yes
TRIAL_ROLES = ("q0_v0", "q0_v1", "q1_v0", "q1_v1")
TRIAL_GOLD = ("yes", "no", "no", "yes")


def trial_doc(group: int, role: int, categories=()) -> dict:
    """The doc of trial ``role`` (0-3) of group ``group``."""
    return {
        "question_id": str(4 * group + role),
        "group_id": f"g{group}",
        "role": TRIAL_ROLES[role],
        "group_size": 4,
        "gold": TRIAL_GOLD[role],
        "parser": "timeblind_yes_no",
        "categories": list(categories),
    }


def trial_payloads(answers: dict[int, str | None]) -> list[dict]:
    """The payloads of ``{question number: answer}`` (question ``i`` is trial ``i % 4`` of group ``i // 4``)."""
    return [make_payload(trial_doc(i // 4, i % 4), a) for i, a in answers.items()]


# Three groups. g0 all right; g1 trial q0_v1 wrong; g2 q1_v1 empty (invalid) and q1_v0 wrong.
TRIAL_ANSWERS = {
    0: "Yes", 1: "No", 2: "no", 3: "yes",
    4: "Yes", 5: "Yes", 6: "No", 7: "Yes",
    8: "yes", 9: "no", 10: "yes", 11: "",
}  # fmt: skip


# Vinoground-style text questions: options A and B with their captions
TEXT_OPTIONS = [option("A", "a woman talks to a man"), option("B", "a man is waving")]


def ab_doc(group: str, role: str, size: int, gold: str = "B") -> dict:
    """An A/B question ``role`` of a group of ``size`` (options :data:`TEXT_OPTIONS`)."""
    return {
        "question_id": f"{group}_{role}",
        "group_id": group,
        "role": role,
        "group_size": size,
        "gold": gold,
        "parser": "first_char_ab",
        "options": TEXT_OPTIONS,
        "categories": [],
    }


YN = [option("yes", "Yes"), option("no", "No")]


def yes_no_doc(group: str, role: str, size: int, gold: str = "no") -> dict:
    """A yes/no question ``role`` of a group of ``size``."""
    return {
        "question_id": f"{group}_{role}", "group_id": group, "role": role, "group_size": size, "gold": gold,
        "parser": "timeblind_yes_no", "options": YN, "categories": [],
    }  # fmt: skip


# Answers of thinking models: cut off inside their reasoning (max_new_tokens), or a reasoning block then an answer
CUT_OFF = "<think>The cup moves slowly at first. Let me check frames 4 to 6; the hand"
CUT_KIMI = "\u25c1think\u25b7Is it fast? Yes, it"
THOUGHT_THEN_ANSWER = "<think>The square starts on the left and ends on the right.</think><answer>{}</answer>"
CUT_OFF_SQUARE = "<think>Let me look at the first video frame by frame. The square"


# The main generate tasks (each reports parse_disagreement and truncated_rate)
GENERATE_TASKS = {
    "timeblind_iacc", "vinoground_group", "vinoground_group_official", "vinoground_text", "vinoground_video",
    "vinoground_text_blind", "temporalbench_short_mba", "temporalbench_long_mba", "velociti_strictvle",
    "velociti_strictvle_subset", "velociti_mc", "velociti_mc_subset",
}  # fmt: skip
