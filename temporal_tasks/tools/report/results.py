"""Reading lmms-eval results files into :class:`RunResults` objects (metric values with their CIs)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from temporal_tasks.base.log import warn_once
from temporal_tasks.tools.provenance import from_results
from temporal_tasks.tools.runs import runs_in_folders

CI_SUFFIXES = ("_ci_low", "_ci_high")
# lmms-eval adds "<metric>_stderr" (and "_stderr_clt", "_stderr_clustered", ...) next to every metric.
_STDERR = re.compile(r"_stderr(_[a-z0-9]+)*$")


@dataclass(frozen=True)
class Value:
    """A metric value (percent) with its optional 95% CI."""

    value: float
    ci_low: float | None = None
    ci_high: float | None = None

    def has_ci(self) -> bool:
        """Whether both CI bounds are present and finite."""
        return self.ci() is not None

    def ci(self) -> tuple[float, float] | None:
        """The CI bounds ``(low, high)`` when both are present and finite, else None."""
        if finite(self.ci_low) and finite(self.ci_high):
            return self.ci_low, self.ci_high
        return None


@dataclass
class RunResults:
    """One lmms-eval results file, read: its model, metric values and provenance (the files a run wrote, found on
    disk: :class:`temporal_tasks.tools.runs.Run`)."""

    path: Path
    label: str
    model: str
    model_args: str
    date: str
    limit: Any
    n_samples: dict[str, Any]
    results: dict[str, dict[str, Value]]  # task -> metric -> value
    provenance: dict[str, dict] = field(default_factory=dict)  # task -> provenance record (harness.provenance)

    @property
    def partial(self) -> bool:
        """True when the run used ``--limit`` or scored fewer samples than the task has."""
        if self.limit is not None:
            return True
        for counts in self.n_samples.values():
            if not isinstance(counts, dict):
                continue
            effective, original = counts.get("effective"), counts.get("original")
            if finite(effective) and finite(original) and effective < original:
                return True
        return False


def finite(x: Any) -> TypeGuard[float]:
    """Whether ``x`` is a real, finite number (not a bool)."""
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _to_float(raw: Any) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int | float):
        return float(raw)
    if raw is None:
        return math.nan
    try:
        return float(str(raw))
    except ValueError:
        return None


def parse_task_metrics(entry: dict[str, Any]) -> dict[str, Value]:
    """``{"m,none": v, "m_ci_low,none": lo, ...}`` of one lmms-eval task entry -> ``{m: Value}``.

    stderr keys are skipped (lmms-eval writes "N/A" for ours; our CIs come as ``_ci_low``/``_ci_high``).
    A filter other than ``none`` stays visible in the metric name as ``m [filter]``.
    """
    raw: dict[tuple[str, str], float] = {}
    for key, val in entry.items():
        if key == "alias" or not isinstance(key, str):
            continue
        name, _, filt = key.partition(",")
        if _STDERR.search(name):
            continue
        number = _to_float(val)
        if number is None:
            warn_once(f"report: non-numeric value {val!r} for {key!r} shown as NaN")
            number = math.nan
        raw[(name, filt or "none")] = number
    out: dict[str, Value] = {}
    for (name, filt), number in raw.items():
        if name.endswith(CI_SUFFIXES):
            base = name[: -len("_ci_low")] if name.endswith("_ci_low") else name[: -len("_ci_high")]
            if (base, filt) in raw:
                continue  # attached to its metric below
            # A CI bound without its metric is kept as a plain metric rather than dropped.
        low = raw.get((f"{name}_ci_low", filt))
        high = raw.get((f"{name}_ci_high", filt))
        shown = name if filt == "none" else f"{name} [{filt}]"
        out[shown] = Value(number, low, high)
    return out


def _last_part(name: str) -> str:
    return name.rstrip("/").split("/")[-1]


def _model_arg(model_args: str, key: str) -> str | None:
    for part in model_args.split(","):
        k, sep, v = part.partition("=")
        if sep and k.strip() == key and v.strip():
            return v.strip()
    return None


def model_label(data: dict[str, Any], path: Path) -> str:
    """Short model name of a results file: ``model_name``, else ``pretrained=``, else the model type or file name."""
    cfg = data.get("config") or {}
    model_args = str(cfg.get("model_args") or "")
    for candidate in (data.get("model_name"), _model_arg(model_args, "pretrained")):
        if isinstance(candidate, str) and candidate.strip():
            return _last_part(candidate.strip())
    model = cfg.get("model")
    if isinstance(model, str) and model.strip():
        return model.strip()
    return path.stem


def load_run(path: str | Path) -> RunResults:
    """Read one lmms-eval ``*_results.json``."""
    path = Path(path)
    try:
        # json accepts the NaN that lmms-eval writes for undefined metrics.
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not a JSON file ({exc})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise ValueError(f"{path}: no 'results' object; expected an lmms-eval *_results.json")
    results = {}
    for task, entry in data["results"].items():
        if isinstance(entry, dict):
            metrics = parse_task_metrics(entry)
            if metrics:  # group headers without aggregates carry only an alias
                results[task] = metrics
    cfg = data.get("config") or {}
    return RunResults(
        path=path,
        label=model_label(data, path),
        model=str(cfg.get("model") or ""),
        model_args=str(cfg.get("model_args") or ""),
        date=str(data.get("date") or ""),
        limit=cfg.get("limit"),
        n_samples=data.get("n-samples") or {},
        results=results,
        provenance=from_results(data),
    )


def find_results(inputs: Iterable[str | Path], run: str | None = None, notes: list[str] | None = None) -> list[Path]:
    """Results files from paths: a file is one run; a folder contributes one run per folder below it that
    holds results (its newest complete run, see :func:`temporal_tasks.tools.runs.runs_in_folders`), or the ``run``
    (``--run``) one. The choices made are appended to ``notes``."""
    found: list[Path] = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            runs, chosen = runs_in_folders([p], run)
            hits = [r.results for r in runs if r.results is not None]
            if not hits:
                raise FileNotFoundError(f"no *results.json under {p}")
            found.extend(sorted(hits))
            if notes is not None:
                notes.extend(chosen)
        elif p.is_file():
            found.append(p)
        else:
            raise FileNotFoundError(f"results file not found: {p}")
    return found


def disambiguate(runs: list[RunResults]) -> None:
    """Make the run labels unique, in place."""

    # Same model twice (e.g. two settings): add the run date, then the folder, then a counter.
    def dups() -> set[str]:
        labels = [r.label for r in runs]
        return {x for x in labels if labels.count(x) > 1}

    for extra in (lambda r: r.date or r.path.stem, lambda r: r.path.parent.name):
        clash = dups()
        for r in runs:
            if r.label in clash and extra(r):
                r.label = f"{r.label} ({extra(r)})"
    clash = dups()
    for label in clash:
        for i, r in enumerate([r for r in runs if r.label == label], start=1):
            r.label = f"{label} #{i}"
