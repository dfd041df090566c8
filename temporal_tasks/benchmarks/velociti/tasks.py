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
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from temporal_tasks.benchmarks.velociti.loader import ALL_TESTS, CONTROL, NAME, TESTS, load_docs
from temporal_tasks.compat import loss_value
from temporal_tasks.log import warn_once
from temporal_tasks.parsing import (
    parser_mode,
)
from temporal_tasks.payloads import answers, make_payload, share, with_repeat_keys
from temporal_tasks.scoring import (
    GroupOutcomes,
    InvalidPolicy,
    Metric,
    MetricResult,
    group_outcomes,
    question_rate,
    score,
    stability_aggregations,
)
from temporal_tasks.task_docs import docs_dataset


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

STRICT_KEYS = (
    "strict_vle", "strict_vle_ci_low", "strict_vle_ci_high", "invalid_rate", "parse_disagreement", "truncated_rate",
    *(f"strict_vle_{t}" for t in ALL_TESTS),
)  # fmt: skip
PROB_KEYS = (
    "strict_vle", "classic_vle", "invalid_rate",
    "strict_vle_ci_low", "strict_vle_ci_high", "classic_vle_ci_low", "classic_vle_ci_high",
    *(f"strict_vle_{t}" for t in ALL_TESTS), *(f"classic_vle_{t}" for t in ALL_TESTS),
)  # fmt: skip
MC_METRICS = ("mc_a", "mc_b", "mc_bias", "mc_both")
MC_KEYS = (
    *MC_METRICS, "invalid_rate", "parse_disagreement", "truncated_rate", "mc_both_ci_low", "mc_both_ci_high",
    *(f"{m}_{t}" for m in MC_METRICS for t in ALL_TESTS),
)  # fmt: skip


def _keys_for(payload: dict, keys: Sequence[str]) -> dict[str, dict]:
    # A per-test key only receives that test's questions; headline keys receive all of them.
    test = payload["test"]
    kept = [k for k in keys if not any(k.endswith(f"_{t}") for t in ALL_TESTS) or k.endswith(f"_{test}")]
    return share(payload, with_repeat_keys(kept, payload))


def process_results(doc: dict, results: list) -> dict[str, dict]:
    """Generated Yes/No answer -> payload under the StrictVLE keys."""
    payload = make_payload(doc, answers(results))
    payload["test"] = doc["test_name"]
    return _keys_for(payload, STRICT_KEYS)


def process_results_mc(doc: dict, results: list) -> dict[str, dict]:
    """Generated A/B answer -> payload under the MC keys."""
    payload = make_payload(doc, answers(results))
    payload["test"] = doc["test_name"]
    return _keys_for(payload, MC_KEYS)


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
        "question_id": doc["question_id"],
        "group_id": doc["group_id"],
        "role": doc["role"],
        "group_size": int(doc["group_size"]),
        "categories": list(doc.get("categories") or []),
        "test": doc["test_name"],
        "gold": doc["gold"],
        "loss_yes": loss_yes,
        "loss_no": loss_no,
        "p_yes": e,
        "pred": pred,
        "correct": pred is not None and pred == doc["gold"],
    }
    return _keys_for(payload, PROB_KEYS)


# --------------------------------------------------------------------------- aggregation


def _policy() -> InvalidPolicy:
    # Official mode follows the closed-model scripts: a pair with an unreadable answer leaves the denominator.
    return "drop_group" if parser_mode() == "official" else "wrong"


def _metric(units: tuple, *, rule: str = "correct", invalid=_policy, per_test: bool = False) -> Metric:
    """A pair metric; the value is the unweighted mean over the 7 tests present (control excluded), as the
    paper's Avg, with rows resampled within each test for the CI; ``per_test``: one test's key (pooled)."""
    return Metric(
        units, invalid=invalid, rule=rule, score_field="p_yes", strata="test",
        exclude_strata=() if per_test else (CONTROL,), strata_order=TESTS, expect_strata=0 if per_test else len(TESTS),
        one_stratum=per_test,
    )  # fmt: skip


STRICT = (("pos", "neg"),)  # pos read Yes and neg read No (the golds)
METRICS = {
    "strict_vle": _metric(STRICT),
    "mc_a": _metric((("posA",),)),
    "mc_b": _metric((("posB",),)),
    "mc_both": _metric((("posA", "posB"),)),
    # An undefined probability counts as wrong in both modes: metrics.py always has a score, so there
    # is no official drop rule to follow. StrictVLE: e(C+) > 0.5 and e(C-) < 0.5 (the preds' golds);
    # ClassicVLE: e(C+) > e(C-).
    "prob_strict_vle": _metric(STRICT, invalid="wrong"),
    "prob_classic_vle": _metric(STRICT, rule="score_gt", invalid="wrong"),
}
LABELS = {
    "strict_vle": f"{NAME} strict_vle", "mc_a": f"{NAME} mc", "mc_b": f"{NAME} mc", "mc_both": f"{NAME} mc",
    "prob_strict_vle": f"{NAME} strict_vle (prob)", "prob_classic_vle": f"{NAME} strict_vle (prob)",
}  # fmt: skip
REPORTS = ("strict_vle", "mc_a", "prob_strict_vle")  # one warning about cut pairs per task


def _score(items: list, name: str, *, per_test: bool = False) -> MetricResult:
    metric = METRICS[name]
    if per_test:
        metric = replace(metric, exclude_strata=(), expect_strata=0, one_stratum=True)
    key = name.removeprefix("prob_")
    return score(items, metric, label=LABELS[name], key=key, report=name in REPORTS and not per_test)


def strict_vle(items: list) -> float:
    """StrictVLE (pos Yes and neg No), mean of the 7 tests' percentages, control excluded."""
    return _score(items, "strict_vle").value


def strict_vle_test(items: list) -> float:
    """StrictVLE of the questions given (one test's key receives only that test)."""
    return _score(items, "strict_vle", per_test=True).value


def invalid_rate(items: list) -> float:
    """Percent of scored questions whose answer could not be read (or whose score is undefined)."""
    return question_rate(items, "invalid", NAME)


def strict_vle_ci_low(items: list) -> float:
    """StrictVLE average: 95% CI low (bootstrap over rows within tests)."""
    return _score(items, "strict_vle").ci_low


def strict_vle_ci_high(items: list) -> float:
    """StrictVLE average: 95% CI high."""
    return _score(items, "strict_vle").ci_high


# -- probability-based (log-likelihood) --


def prob_strict_vle(items: list) -> float:
    """StrictVLE from e(V,C): e(C+) > 0.5 and e(C-) < 0.5, mean of the 7 tests."""
    return _score(items, "prob_strict_vle").value


def prob_classic_vle(items: list) -> float:
    """ClassicVLE from e(V,C): e(C+) > e(C-), mean of the 7 tests."""
    return _score(items, "prob_classic_vle").value


def prob_strict_vle_test(items: list) -> float:
    """Probability StrictVLE of one test's pairs."""
    return _score(items, "prob_strict_vle", per_test=True).value


def prob_classic_vle_test(items: list) -> float:
    """Probability ClassicVLE of one test's pairs."""
    return _score(items, "prob_classic_vle", per_test=True).value


def prob_invalid_rate(items: list) -> float:
    """Percent of questions whose e(V,C) is undefined or exactly 0.5 (neither Yes nor No wins)."""
    return question_rate(items, "invalid", NAME)


def prob_strict_vle_ci_low(items: list) -> float:
    """Probability StrictVLE average: 95% CI low."""
    return _score(items, "prob_strict_vle").ci_low


def prob_strict_vle_ci_high(items: list) -> float:
    """Probability StrictVLE average: 95% CI high."""
    return _score(items, "prob_strict_vle").ci_high


def prob_classic_vle_ci_low(items: list) -> float:
    """ClassicVLE average: 95% CI low."""
    return _score(items, "prob_classic_vle").ci_low


def prob_classic_vle_ci_high(items: list) -> float:
    """ClassicVLE average: 95% CI high."""
    return _score(items, "prob_classic_vle").ci_high


# -- multiple choice --


def mc_a(items: list) -> float:
    """MC accuracy with C+ as option A, mean of the 7 tests."""
    return _score(items, "mc_a").value


def mc_b(items: list) -> float:
    """MC accuracy with C+ as option B, mean of the 7 tests."""
    return _score(items, "mc_b").value


def mc_bias(items: list) -> float:
    """Order bias B - A of the averages (= the mean of the per-test biases; about 0 for an order-blind model)."""
    return mc_b(items) - mc_a(items)


def mc_both(items: list) -> float:
    """Rows right in both orders, mean of the 7 tests."""
    return _score(items, "mc_both").value


def mc_a_test(items: list) -> float:
    """MC A accuracy of one test."""
    return _score(items, "mc_a", per_test=True).value


def mc_b_test(items: list) -> float:
    """MC B accuracy of one test."""
    return _score(items, "mc_b", per_test=True).value


def mc_bias_test(items: list) -> float:
    """MC bias (B - A) of one test."""
    return mc_b_test(items) - mc_a_test(items)


def mc_both_test(items: list) -> float:
    """MC both-orders accuracy of one test."""
    return _score(items, "mc_both", per_test=True).value


def mc_both_ci_low(items: list) -> float:
    """MC both-orders average: 95% CI low."""
    return _score(items, "mc_both").ci_low


def mc_both_ci_high(items: list) -> float:
    """MC both-orders average: 95% CI high."""
    return _score(items, "mc_both").ci_high


def _outcomes(name: str, per_test: bool) -> Callable[[list], GroupOutcomes]:
    def outcomes(items: list) -> GroupOutcomes:
        metric = METRICS[name]
        if per_test:
            metric = replace(metric, exclude_strata=(), expect_strata=0, one_stratum=True)
        return group_outcomes(items, metric, label=LABELS[name])

    return outcomes


# The metrics as functions over rows (``temporal-tasks compare``), keyed by aggregation name: the very
# Metric specs of the values and CIs. The per-test keys hold one test's rows. mc_bias (a difference of two
# averages) has none.
GROUP_OUTCOMES: dict[str, Callable[[list], GroupOutcomes]] = {
    **{name: _outcomes(name, False) for name in METRICS},
    **{f"{name}_test": _outcomes(name, True) for name in METRICS},
}


# --repeats k (k > 1): <metric>_consensus_accuracy, _consistency_rate, _repeat_sd of every generate-task group metric.
_GROUP_METRICS = ("strict_vle", "strict_vle_test", "mc_a", "mc_b", "mc_both", "mc_a_test", "mc_b_test", "mc_both_test")
# Named one by one in the generated ``aggregations`` module the YAML references.
AGGREGATIONS = stability_aggregations(globals(), _GROUP_METRICS)
