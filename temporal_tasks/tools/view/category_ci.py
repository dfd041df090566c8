"""Per-category 95% CIs for the viewer's category bars: the run reports CIs for its headline keys only, so each
per-category group key gets the same group bootstrap from the run's samples (its group outcomes, as ``compare``
reads them, resampled by :func:`temporal_tasks.scoring.bootstrap.bootstrap_ci`)."""

from __future__ import annotations

from temporal_tasks.scoring.bootstrap import bootstrap_ci
from temporal_tasks.tools.compare import key_outcomes
from temporal_tasks.tools.timeorder import group_metrics


def category_cis(task: str, items: dict[str, list]) -> dict[str, tuple[float, float]]:
    """``{per-category key: (ci_low, ci_high)}`` of ``task`` from its payloads per key (as ``compare`` reads a
    samples file). A ``--repeats`` run gets none: its per-category values are means over the repeats, which one
    repeat's outcomes do not give."""
    headline = {key for key, _, _ in group_metrics(task)}
    out = {}
    for key, aggregate, outcomes in group_metrics(task, True):
        payloads = items.get(key) or []
        if key in headline or not payloads:
            continue
        if payloads[0].get("repeats"):
            return {}
        found = key_outcomes(task, key, "run", aggregate, outcomes, payloads)
        out[key] = bootstrap_ci(found.counts, found.strata)
    return out
