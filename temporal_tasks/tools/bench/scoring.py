"""The scoring rows of ``temporal-tasks bench``: aggregation time at the sizes people run, and under ``--repeats``.

* ``aggregate_100k_seconds``: every TimeBlind metric (CIs and categories included) over 100,000 payloads; the
  same over 1,000,000 (``aggregate_1m_seconds``, with its peak memory) for information.
* ``aggregate_temporalbench_short_seconds``: every metric key of a full-size TemporalBench short run (9,867
  questions on 2,179 videos, CIs read); ``aggregate_repeats_5_vs_1``: the same run whose questions hold 5 answers
  each (``--repeats 5``) / with one answer each.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np

from temporal_tasks.answers.options import option
from temporal_tasks.benchmarks.temporalbench import tasks as temporalbench
from temporal_tasks.benchmarks.temporalbench.fixture_full import OFFICIAL_CATEGORIES, OFFICIAL_SOURCES
from temporal_tasks.benchmarks.temporalbench.loader import PARSER
from temporal_tasks.benchmarks.timeblind import METRIC_LIST, ROLES
from temporal_tasks.scoring.metrics import reset_tables
from temporal_tasks.scoring.payloads import results_for
from temporal_tasks.tools.rescore import task_metrics

REPEATS = 5
# The published TemporalBench short QA size (benchmarks/temporalbench/fixture_full.py).
SHORT_VIDEOS, SHORT_QUESTIONS = 2179, 9867


def timeblind_payloads(n: int) -> list[dict]:
    """``n`` TimeBlind-shaped ``process_results`` outputs (70% right), built by hand: parsing is not timed."""
    rng = np.random.default_rng(1)
    right = rng.random(n) < 0.7
    gold = ("yes", "no", "no", "yes")
    tags = ("direction", "speed", "event", "state_transition")
    per_doc = []
    for i in range(n):
        g, r = divmod(i, 4)
        pred = gold[r] if right[i] else ("no" if gold[r] == "yes" else "yes")
        categories = [tags[g % 4], "yes_no"]
        payload = {
            "question_id": str(i), "group_id": f"timeblind/{g}", "role": ROLES[r], "group_size": 4,
            "categories": categories, "answer": pred, "gold": gold[r], "parser": "timeblind_yes_no",
            "parser_mode": "robust", "option_keys": [], "pred": pred, "pred_robust": pred, "pred_official": pred,
            "correct": pred == gold[r],
        }  # fmt: skip
        per_doc.append(results_for(payload, METRIC_LIST, categories))
    return per_doc


def aggregate_all(task: str, per_doc: list[dict]) -> float:
    """Seconds to run every aggregation of ``task`` over lmms-eval's per-key lists of ``per_doc``."""
    metrics = task_metrics(task)
    items = {key: [d[key] for d in per_doc if key in d] for key, _fn, _h in metrics}  # lmms-eval's per-key lists
    start = time.perf_counter()
    for key, fn, _h in metrics:
        if items[key]:
            fn(items[key])
    return time.perf_counter() - start


def bench_aggregate(n: int, rounds: int = 3) -> dict:
    """Every TimeBlind metric over ``n`` and ``n/10`` payloads, and the peak memory at ``n``.

    After a small warm-up (first calls: lazy imports, the parser-mode notice), both sizes are timed in turn
    ``rounds`` times, each time on payloads made afresh (not timed) and with no table kept, and each time is the
    median: one timing moves by 10-15% with where the objects land in memory.
    """
    aggregate_all("timeblind_iacc", timeblind_payloads(400))
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for size, out in zip((n // 10, n), times, strict=True):
            reset_tables()  # freeing the last pass's payloads is not timed
            per_doc = timeblind_payloads(size)
            out.append(aggregate_all("timeblind_iacc", per_doc))
            del per_doc
    reset_tables()
    per_doc_again = timeblind_payloads(n)  # fresh objects: no memo from the timed pass
    tracemalloc.start()
    aggregate_all("timeblind_iacc", per_doc_again)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    reset_tables()
    small, big = (float(np.median(t)) for t in times)
    return {"aggregate_1m_seconds": big, "aggregate_100k_seconds": small, "aggregate_1m_vs_100k": big / small,
            "aggregate_1m_peak_mb": peak / 2**20, "aggregate_payloads": n}  # fmt: skip


def short_docs(videos: int = SHORT_VIDEOS, questions: int = SHORT_QUESTIONS) -> list[dict]:
    """TemporalBench short-QA docs as the loader makes them (sources, categories, one group per video), no files."""
    base, extra = divmod(questions, videos)
    docs = []
    for v in range(videos):
        size = base + (v < extra)
        source = OFFICIAL_SOURCES[v % len(OFFICIAL_SOURCES)]
        name = f"short_video/{source}/clip{v:05d}.mp4"
        cats = [OFFICIAL_CATEGORIES[(v + k) % len(OFFICIAL_CATEGORIES)] for k in range(size)]
        for k in range(size):
            docs.append({
                "question_id": f"{name}_{k}", "group_id": name, "role": f"{name}_{k}", "group_size": size,
                "prompt": "", "gold": "AB"[(v + k) % 2], "parser": PARSER, "options": [option("A"), option("B")],
                "videos": [], "categories": [source, cats[k]], "source": source, "category": cats[k],
                "video_categories": sorted(set(cats)), "part": "short_qa",
            })  # fmt: skip
    return docs


def repeat_payloads(docs: list[dict], k: int, seed: int = 2) -> list[dict]:
    """``process_results`` of every doc with ``k`` answers each (80% right, 5% unreadable, repeats differ)."""
    rng = np.random.default_rng(seed)
    draw = rng.random((len(docs), k))
    out = []
    for doc, row in zip(docs, draw, strict=True):
        wrong = "B" if doc["gold"] == "A" else "A"
        answers = [doc["gold"] if x < 0.8 else ("" if x > 0.95 else wrong) for x in row]
        out.append(temporalbench.process_results(doc, answers if k > 1 else answers[:1]))
    return out


def bench_repeats(k: int = REPEATS, questions: int = SHORT_QUESTIONS, rounds: int = 5) -> dict:
    """Every metric of a TemporalBench short run (full size by default) with ``k`` answers per question / with one.

    Both payload sets are built before timing (parsing is not timed); each aggregation starts a fresh pass. The
    two are timed in turn ``rounds`` times and each time is the median (one aggregation takes tens of
    milliseconds, where a single timing varies by 10-20%).
    """
    docs = short_docs(max(1, round(questions * SHORT_VIDEOS / SHORT_QUESTIONS)), questions)
    one, many = repeat_payloads(docs, 1), repeat_payloads(docs, k)
    for warm in (one[:40], many[:40]):  # first calls: lazy imports, the parser-mode notice; not timed
        reset_tables()
        aggregate_all("temporalbench_short_mba", warm)
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for payloads, timings in zip((one, many), times, strict=True):
            reset_tables()
            timings.append(aggregate_all("temporalbench_short_mba", payloads))
    reset_tables()
    single, repeated = (float(np.median(t)) for t in times)
    out = {"aggregate_repeats_questions": len(docs), "aggregate_repeats_1_seconds": single,
           f"aggregate_repeats_{k}_seconds": repeated, f"aggregate_repeats_{k}_vs_1": repeated / single}  # fmt: skip
    if questions == SHORT_QUESTIONS:  # the published size: the one-answer run is the full-size task's aggregation
        out["aggregate_temporalbench_short_seconds"] = single
    return out
