"""VELOCITI (Saravanan et al., CVPR 2025): StrictVLE, ClassicVLE and two-order multiple choice.

Layout (HF ``katha-ai-iiith/VELOCITI``): one annotation table (parquet, at the root or under
``data/``) with columns ``video_id, test_name, event, pos, neg, in_subset``, and
``velociti_videos.zip`` holding ``velociti_videos/{video_id}.mp4``. ``row`` is the 0-based
row number in the table's order; every question id derives from it.

Tasks:

- ``velociti_strictvle`` (+ ``_subset``): each row asks the entailment prompt twice (C+ and
  C-, ``{row}_pos`` / ``{row}_neg``); a row is right iff pos is Yes and neg is No.
- ``velociti_strictvle_prob``: the same two questions scored by P(Yes)/(P(Yes)+P(No)) from
  log-likelihoods, as the paper does for open models (StrictVLE and ClassicVLE).
- ``velociti_mc``: both captions as options, asked with C+ as A and again with C+ as B.

Averages (``strict_vle``, ``classic_vle``, ``mc_*``) are the unweighted mean of the 7 tests,
control excluded, as in the paper's "Avg" column.
"""

from __future__ import annotations

import math
from typing import Any

from temporal_tasks.benchmarks.velociti import MC_LIST, PROB_LIST, STRICT_LIST
from temporal_tasks.benchmarks.velociti.loader import NAME, load_docs
from temporal_tasks.harness.kit import (
    answers,
    docs_dataset,
    loss_value,
    make_payload,
    question_fields,
    results_for,
    warn_once,
)


def process_docs(dataset):  # noqa: ARG001 - lmms-eval hands us a placeholder split
    """``velociti_strictvle`` / ``velociti_strictvle_prob``: every row, C+ and C- questions."""
    return docs_dataset(lambda: load_docs(kind="entail"))


def process_docs_subset(dataset):  # noqa: ARG001
    """``velociti_strictvle_subset`` / ``velociti_strictvle_prob_subset``: the 150-per-test ``in_subset`` rows."""
    return docs_dataset(lambda: load_docs(kind="entail", subset=True))


def process_docs_mc(dataset):  # noqa: ARG001
    """``velociti_mc``: every row, asked with C+ as option A and as option B."""
    return docs_dataset(lambda: load_docs(kind="mc"))


def process_docs_mc_subset(dataset):  # noqa: ARG001
    """``velociti_mc_subset``: the ``in_subset`` rows, in both orders."""
    return docs_dataset(lambda: load_docs(kind="mc", subset=True))


# --------------------------------------------------------------------------- process_results


def process_results(doc: dict, results: list) -> dict[str, dict]:
    """Generated Yes/No answer -> payload under the StrictVLE keys."""
    payload = make_payload(doc, answers(results))
    payload["test"] = doc["test_name"]
    return results_for(payload, STRICT_LIST, [payload["test"]])


def process_results_mc(doc: dict, results: list) -> dict[str, dict]:
    """Generated A/B answer -> payload under the MC keys."""
    payload = make_payload(doc, answers(results))
    payload["test"] = doc["test_name"]
    return results_for(payload, MC_LIST, [payload["test"]])


def _loss(result: Any) -> float:
    """The loss of one choice's result; NaN if unreadable (lmms-eval's result form: :func:`compat.loss_value`)."""
    return loss_value(result)


def entailment_score(loss_yes: float, loss_no: float) -> float | None:
    """e(V,C) = P(Yes) / (P(Yes) + P(No)) from lmms-eval losses (loss = -log p; single-token continuations).

    Computed as ``sigmoid(loss_no - loss_yes)``: the same ratio, without overflow. ``None`` when
    undefined: a NaN loss, or both probabilities 0 (both losses infinite).
    """
    if math.isnan(loss_yes) or math.isnan(loss_no) or (math.isinf(loss_yes) and math.isinf(loss_no)):
        return None
    if loss_yes < 0 or loss_no < 0:
        # A loss is -log p >= 0; a negative value means the wrapper returned a log-probability
        # (or garbage), and reading it as a loss would swap Yes and No: refuse to score it.
        warn_once(f"{NAME}: the model returned negative loglikelihood losses; those questions are scored as invalid.")
        return None
    if math.isinf(loss_yes) or math.isinf(loss_no):
        return 0.0 if math.isinf(loss_yes) else 1.0
    d = loss_no - loss_yes  # = log P(Yes) - log P(No)
    if d >= 0:
        return 1.0 / (1.0 + math.exp(-d))
    z = math.exp(d)
    return z / (1.0 + z)


def process_results_prob(doc: dict, results: list) -> dict[str, dict]:
    """Losses of the continuations ``Yes`` and ``No`` (``doc_to_choice`` order) -> payload with ``p_yes``."""
    results = list(results or [])
    loss_yes = _loss(results[0]) if len(results) > 0 else math.nan
    loss_no = _loss(results[1]) if len(results) > 1 else math.nan
    e = entailment_score(loss_yes, loss_no)
    if e is None or e == 0.5:
        pred = None  # undefined or an exact tie: neither answer wins
    else:
        pred = "yes" if e > 0.5 else "no"
    payload = {
        **question_fields(doc),
        "test": doc["test_name"],
        "gold": doc["gold"],
        "loss_yes": loss_yes,
        "loss_no": loss_no,
        "p_yes": e,
        "pred": pred,
        "correct": pred is not None and pred == doc["gold"],
    }
    return results_for(payload, PROB_LIST, [payload["test"]])
