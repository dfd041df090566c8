"""``--repeats k``: the small TimeBlind fixture's answers in three repeats that differ, and the majority by hand."""

from __future__ import annotations

from collections import Counter

from temporal_tasks.benchmarks.timeblind import tasks as timeblind
from temporal_tasks.scoring.metrics import reset_tables

# Small TimeBlind fixture (4 instances x 4 trials, gold yes,no,no,yes / A,B,B,A): three repeats that differ.
# By hand, per repeat: I-Acc 2/4, 2/4, 1/4 (instance 0 right in r0 only, 1 in r1 and r2, 2 in r0 and r1,
# 3 never); trials 11/16, 11/16, 9/16; unreadable: question 3's third answer only.
SMALL = {
    "0": ["Yes", "Yes", "No"], "1": ["No", "Yes", "No"], "2": "no", "3": ["yes", "yes", ""],
    "4": "Yes", "5": ["Yes", "No", "No"], "6": "No", "7": "Yes",
    "8": "A", "9": "(B)", "10": "B", "11": ["A", "A", "B"],
    "12": "B", "13": "A", "14": "A", "15": "B",
}  # fmt: skip


K = 3


def three(answer: str | list[str]) -> list[str]:
    """``K`` answers of a question: the list given, or the one answer ``K`` times."""
    return list(answer) if isinstance(answer, list) else [answer] * K


def vote(labels: list) -> object:
    """The majority label by hand: the most common one, or None on a tie."""
    top = Counter(labels).most_common(2)
    return None if len(top) > 1 and top[0][1] == top[1][1] else top[0][0]


def small_timeblind_docs() -> list[dict]:
    """The small TimeBlind fixture's docs (the caller points the data layer at the fixtures: ``offline_env``), with
    no scoring table kept from before."""
    reset_tables()
    return timeblind.load_docs()
