"""What the viewer shows of one run's task: headline values, categories, diagnostics, provenance and every group.

The samples are read exactly as ``rescore`` reads them (:func:`~temporal_tasks.tools.samples.scorable_lines`, each
answer re-read in the run's reading with :func:`~temporal_tasks.tools.rescore.reparse` through ``task_items``),
and a group's
outcome is the one the task's headline metric counts: its aggregation's group outcomes (the same code its CI and
``compare`` use). Everything is plain JSON-ready data; :mod:`temporal_tasks.tools.view.page` turns it into HTML.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from temporal_tasks.answers.answer_text import explicit_answer
from temporal_tasks.api.registry import of_task
from temporal_tasks.tools.compare import comparable_metrics
from temporal_tasks.tools.report.layout import benchmark_of, category_of, metric_label
from temporal_tasks.tools.report.results import RunResults
from temporal_tasks.tools.rescore import task_items
from temporal_tasks.tools.samples import line_payload, scorable_lines
from temporal_tasks.tools.view.charts import category_charts
from temporal_tasks.tools.view.shapes import group_shape, member_flags

DIAGNOSTICS = ("invalid_rate", "truncated_rate", "parse_disagreement")
# The end of a reasoning block in a raw answer (as answers.answer_text reads it): what follows is the answer.
_THINK_END = re.compile(r"</think(?:ing)?>|◁/think▷", re.I)


def number(x: Any) -> float | None:
    """``x`` as a JSON-safe float (NaN and missing become None)."""
    try:
        value = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(value) or math.isinf(value) else value


def category_key(category: object) -> str:
    """A payload's category as the metric keys spell it (``Event Attribute`` -> ``event_attribute``), so the
    category filter and ``#category=`` links use the names of the per-category keys."""
    return re.sub(r"[^0-9a-z]+", "_", str(category).lower()).strip("_")


def read_span(answer: str, cut_off: bool) -> tuple[int, list[int] | None]:
    """``(k, h)``: the answer's reasoning is ``answer[:k]`` (folded in the page); ``h`` is the ``[start, end)`` of
    the part the robust reading read (the explicit answer container), or None when it read the whole rest."""
    if cut_off:
        return len(answer), None  # cut off while thinking: all of it is reasoning, nothing was read
    k = 0
    for m in _THINK_END.finditer(answer):
        k = m.end()
    inner = explicit_answer(answer[k:])
    if inner:
        start = answer.rfind(inner, k)
        if start >= 0:
            return k, [start, start + len(inner)]
    return k, None


def primary_metric(task: str, items: dict[str, list]) -> tuple[str | None, Any]:
    """The metric whose group outcomes decide a group's outcome in the viewer, and its outcomes function.

    The benchmark's ``primary`` then ``headline`` order (as ``summary`` picks the headline number), among the
    metrics ``compare`` can test; None when the task has none (then a group fails when any member is wrong).
    """
    spec = benchmark_of(task)
    metrics = {key: fn for key, _agg, fn in comparable_metrics(task) if items.get(key)}
    order = (*spec.primary, *spec.headline) if spec else ()
    for key in (*order, *metrics):
        if key in metrics:
            return key, metrics[key]
    return None, None


def _headline(task: str, values: dict) -> list[list]:
    spec = benchmark_of(task)
    order = (*spec.primary, *spec.headline) if spec else tuple(sorted(values))
    rows = []
    for key in dict.fromkeys(order):
        if key in values and key not in DIAGNOSTICS:
            v = values[key]
            rows.append([key, metric_label(key), number(v.value), number(v.ci_low), number(v.ci_high)])
    return rows


def _categories(task: str, values: dict, cis: dict[str, tuple[float, float]]) -> dict[str, list[list]]:
    spec = benchmark_of(task)
    families: dict[str, list[list]] = {}
    if spec is None:
        return families
    for key, v in values.items():
        found = category_of(spec, key)
        if found is not None and not found[1].endswith(("ci_low", "ci_high")):
            family, category = found
            low, high = (v.ci_low, v.ci_high) if v.has_ci() else cis.get(key, (None, None))
            families.setdefault(family, []).append([category, number(v.value), number(low), number(high)])
    for family, rows in families.items():
        wanted = list(spec.categories)
        rows.sort(key=lambda r: (wanted.index(r[0]) if r[0] in wanted else len(wanted), r[0]))
        families[family] = rows
    return families


def results_part(task: str, results: RunResults | None, cis: dict[str, tuple[float, float]] | None = None) -> dict:
    """Headline values with their CIs, category values with CIs (the run's, else ``cis``: per-category key, the
    group-bootstrap CI from the samples) and their SVG charts, diagnostics, provenance."""
    values = results.results.get(task, {}) if results is not None else {}
    cats = _categories(task, values, cis or {})
    return {
        "headline": _headline(task, values),
        "diagnostics": [[k, metric_label(k), number(values[k].value)] for k in DIAGNOSTICS if k in values],
        "categories": cats,
        "charts": category_charts(cats),
        "provenance": results.provenance.get(task) if results is not None else None,
        "results_file": str(results.path) if results is not None else None,
    }


def _member(payload: dict, line: dict, prompts: dict[str, int]) -> dict:
    answer = str(payload.get("answer", ""))
    cut = bool(payload.get("truncated"))
    k, h = read_span(answer, cut)
    prompt = line.get("input")
    prompt = prompt if isinstance(prompt, str) else ""
    repeats = payload.get("repeats")
    return {
        "q": str(payload["question_id"]),
        "r": str(payload.get("role", "")),
        "p": prompts.setdefault(prompt, len(prompts)),
        "g": payload.get("gold"),
        "a": answer,
        "k": k,
        "h": h,
        "rb": payload.get("pred_robust"),
        "of": payload.get("pred_official"),
        "ok": bool(payload.get("correct")),
        "fl": member_flags(payload),
        "rp": [rep.get("pred") for rep in repeats] if repeats else None,
    }


def task_groups(task: str, file: Path, prompts: dict[str, int]) -> dict:
    """Every group of ``task`` in one samples file: outcome, failure shape, flags and members (in file order).

    ``prompts`` collects the distinct prompt texts (members hold an index into it: the same question is asked
    of several videos). Returns ``{"metric", "reading", "predict_only", "groups", "questions"}``.
    """
    lines, _record, predict_only = scorable_lines(task, file)
    items, mode = task_items(task, lines)
    fresh: dict[str, dict] = {}
    for payloads in items.values():
        for p in payloads:
            fresh.setdefault(str(p["question_id"]), p)
    metric, outcomes = primary_metric(task, items)
    scored: dict[str, bool] = {}
    if metric is not None:  # its outcomes function comes with it
        got = outcomes(items[metric])  # in the reading the payloads carry
        scored = {str(g): int(c[0]) == int(c[1]) for g, c in zip(got.ids, got.counts.tolist(), strict=True)}
    spec = of_task(task)
    shaper = spec.hook("view") if spec is not None and spec.view else None
    members: dict[str, list[tuple[dict, dict]]] = {}
    sizes: dict[str, int] = {}
    for line in lines:
        payload = line_payload(line)
        if payload is None:
            continue
        p = fresh.get(str(payload["question_id"]), payload)
        gid = str(p.get("group_id", p["question_id"]))
        members.setdefault(gid, []).append((p, line))
        sizes.setdefault(gid, int(p.get("group_size", 1)))
    groups = []
    for gid, pairs in members.items():
        payloads = [p for p, _line in pairs]
        if outcomes is not None:
            outcome = "unscored" if gid not in scored else ("right" if scored[gid] else "failed")
        elif len(payloads) < sizes[gid] or not any("correct" in p for p in payloads):
            outcome = "unscored"  # incomplete, or answers with no right or wrong (free-text similarity)
        else:
            outcome = "right" if all(p.get("correct") for p in payloads) else "failed"
        ms = [_member(p, line, prompts) for p, line in pairs]
        flags = sorted({f for m in ms for f in m["fl"]})
        cats = sorted({category_key(c) for p in payloads for c in p.get("categories") or ()})
        shape = group_shape(payloads, shaper) if outcome == "failed" else ""
        groups.append({"id": gid, "c": cats, "o": outcome, "s": shape, "f": flags, "m": ms})
    return {
        "metric": metric,
        "metric_label": metric_label(metric) if metric else "every answer right",
        "reading": mode or "robust",
        "predict_only": predict_only,
        "groups": groups,
        "questions": len(fresh),
    }
