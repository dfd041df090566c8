"""lmms-eval results files written by hand, as lmms-eval lays them out, for the report, summary and viewer tests."""

from __future__ import annotations

import json
from pathlib import Path


def lmms_eval_entry(values: dict[str, float]) -> dict:
    """lmms-eval's entry layout: ``<m>,none`` plus the "N/A" stderr keys it adds next to each metric."""
    out: dict = {}
    for key, value in values.items():
        out[f"{key},none"] = value
        if not key.endswith(("_ci_low", "_ci_high")):
            out[f"{key}_stderr,none"] = "N/A"
            out[f"{key}_stderr_clt,none"] = "N/A"
    return out


def write_results(
    path: Path,
    results: dict[str, dict[str, float]],
    *,
    model: str = "qwen2_vl",
    model_args: str = "",
    model_name: str = "",
    limit: float | None = None,
    n_samples: dict | None = None,
    date: str = "20261122_101010",
) -> Path:
    """A results file at ``path``: ``{task: {metric: value}}`` as lmms-eval writes them, with its run's config."""
    data = {
        "results": {task: {"alias": task, **lmms_eval_entry(vals)} for task, vals in results.items()},
        "group_subtasks": {task: [] for task in results},
        "config": {"model": model, "model_args": model_args, "limit": limit, "batch_size": 1},
        "model_name": model_name,
        "date": date,
        "n-samples": n_samples or {task: {"original": 600, "effective": 600} for task in results},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    # allow_nan: lmms-eval writes NaN for undefined metrics, and so do we here.
    path.write_text(json.dumps(data, indent=1, allow_nan=True), encoding="utf-8")
    return path
