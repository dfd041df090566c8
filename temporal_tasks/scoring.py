"""The scoring core shared by every benchmark.

A *payload* is the per-question dict our ``process_results`` returns (see
:func:`temporal_tasks.harness.make_payload`). It carries ``question_id``, ``group_id``,
``role``, ``group_size``, the raw ``answer``, the ``gold`` label, the parsed ``pred``
(``None`` = unreadable) and ``correct``.

Aggregations receive payloads in any order (lmms-eval gathers ranks in rank order), so
everything here groups by ``group_id``/``role`` and never by position. A group with members
that were never evaluated (``--limit``/``--offset`` cut it) is left out of every denominator,
and one warning gives the count. All metrics are percentages in 0-100; a metric with nothing
to score is NaN, never a made-up 0.
"""

from __future__ import annotations

import math
import operator
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from temporal_tasks.log import warn_once

Payload = Mapping[str, Any]
Units = Sequence[Sequence[str]] | Literal["each", "all"]
InvalidPolicy = Literal["wrong", "drop"]


@dataclass
class Groups:
    """Payloads grouped by ``group_id`` then ``role``; only complete groups are kept."""

    complete: dict[str, dict[str, Payload]] = field(default_factory=dict)
    left_out: int = 0
    duplicates: int = 0

    def payloads(self) -> Iterable[Payload]:
        """Every payload of every complete group."""
        for members in self.complete.values():
            yield from members.values()


def collect_groups(items: Iterable[Payload], *, label: str = "", report: bool = False) -> Groups:
    """Group payloads; drop incomplete groups (counted, and warned about once if ``report``)."""
    by_group: dict[str, dict[str, Payload]] = {}
    sizes: dict[str, int] = {}
    duplicates = 0
    for p in items:
        gid = p["group_id"]
        members = by_group.get(gid)
        if members is None:
            members = by_group[gid] = {}
            sizes[gid] = int(p["group_size"])
        role = p["role"]
        seen = members.get(role)
        if seen is not None:
            if seen["question_id"] != p["question_id"]:
                raise ValueError(
                    f"{label or 'scoring'}: questions {seen['question_id']!r} and {p['question_id']!r} both claim "
                    f"role {role!r} of group {gid!r}; the annotation file has a duplicate - fix it and rerun."
                )
            duplicates += 1  # the same question twice (e.g. a replayed shard); keep the first
            continue
        members[role] = p
    groups = Groups(duplicates=duplicates)
    for gid, members in by_group.items():
        if len(members) == sizes[gid]:
            groups.complete[gid] = members
        else:
            groups.left_out += 1
    if report and (groups.left_out or duplicates):
        msg = (
            f"{label}: scored {len(groups.complete)} complete groups; left out {groups.left_out} incomplete "
            f"group(s) whose other questions were not evaluated (--limit/--offset)"
        )
        if duplicates:
            msg += f"; ignored {duplicates} repeated answer(s) to the same question"
        warn_once(msg)
    return groups


def _unit_roles(units: Units, members: Mapping[str, Payload]) -> Iterable[Sequence[str]]:
    if units == "each":
        return [(r,) for r in members]
    if units == "all":
        return [tuple(members)]
    return units


def unit_accuracy(groups: Groups, units: Units, *, invalid: InvalidPolicy = "wrong") -> float:
    """Percent of units (role tuples within a group) whose members are all correct.

    ``units`` is a list of role tuples (e.g. ``[("q0_v0", "q0_v1"), ("q1_v0", "q1_v1")]``),
    ``"each"`` (every question on its own) or ``"all"`` (the whole group). With
    ``invalid="drop"`` a unit with an unreadable answer leaves the denominator (the rule of
    some official scorers); with ``"wrong"`` it counts as wrong.
    """
    correct = total = 0
    for members in groups.complete.values():
        for unit in _unit_roles(units, members):
            picked = [members[r] for r in unit]
            if invalid == "drop" and any(p["pred"] is None for p in picked):
                continue
            total += 1
            if all(p["correct"] for p in picked):
                correct += 1
    return percent(correct, total)


def invalid_rate(groups: Groups) -> float:
    """Percent of scored questions whose answer could not be parsed."""
    n = bad = 0
    for p in groups.payloads():
        n += 1
        if p["pred"] is None:
            bad += 1
    return percent(bad, n)


def percent(numerator: int, denominator: int) -> float:
    """``100 * numerator / denominator``, or NaN when there is nothing to score."""
    return 100.0 * numerator / denominator if denominator else math.nan


def slug(name: str) -> str:
    """Metric-key form of a category name: lowercase, non-alphanumerics to ``_``."""
    out = []
    prev_us = False
    for ch in name.strip().lower():
        if ch.isascii() and ch.isalnum():
            out.append(ch)
            prev_us = False
        elif not prev_us:
            out.append("_")
            prev_us = True
    return "".join(out).strip("_")


# --------------------------------------------------------------------------- confidence intervals

BOOTSTRAP_ITERS = 1000
BOOTSTRAP_SEED = 20261122


def unit_counts(groups: Groups, units: Units, *, invalid: InvalidPolicy = "wrong") -> tuple[list[str], np.ndarray]:
    """Per complete group (sorted by id): ``(ids, counts)`` with ``counts[:, 0]`` right units, ``[:, 1]`` units."""
    ids = sorted(groups.complete)
    counts = np.zeros((len(ids), 2), dtype=np.int64)
    for row, gid in enumerate(ids):
        members = groups.complete[gid]
        for unit in _unit_roles(units, members):
            picked = [members[r] for r in unit]
            if invalid == "drop" and any(p["pred"] is None for p in picked):
                continue
            counts[row, 1] += 1
            if all(p["correct"] for p in picked):
                counts[row, 0] += 1
    return ids, counts


def _outcome_classes(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ``(right, units)`` rows (sorted) and how many groups have each; a 1-D count, not a 2-D sort."""
    base = int(counts[:, 1].max()) + 1
    codes = counts[:, 0] * base + counts[:, 1]
    if codes.max() < 1_000_000:
        weight = np.bincount(codes)
        uniq = np.flatnonzero(weight)
        weight = weight[uniq]
    else:
        uniq, weight = np.unique(codes, return_counts=True)
    return np.stack([uniq // base, uniq % base], axis=1), weight


def bootstrap_ci(
    counts: np.ndarray,
    strata: Sequence[str] | None = None,
    *,
    iters: int = BOOTSTRAP_ITERS,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap CI, resampling *groups*, of ``100 * sum(right) / sum(units)``.

    With ``strata`` (one label per group) groups are resampled within each stratum and the
    statistic is the mean of the per-stratum percentages (e.g. VELOCITI's mean over tests).

    Resampling G groups with replacement only matters through how many draws land on each
    distinct ``(right, units)`` pair, which is multinomial: drawing those counts directly gives
    the same distribution in O(distinct pairs) per resample instead of O(G). Seeded, and
    independent of payload order (classes are sorted).
    """
    counts = np.asarray(counts, dtype=np.int64).reshape(-1, 2)
    if len(counts) == 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    labels = np.asarray(strata) if strata is not None else np.zeros(len(counts), dtype=np.int64)
    per_stratum = []
    for stratum in sorted(set(labels.tolist())):
        classes, weight = _outcome_classes(counts[labels == stratum])
        draws = rng.multinomial(int(weight.sum()), weight / weight.sum(), size=iters)  # (iters, K)
        num = draws @ classes[:, 0]
        den = draws @ classes[:, 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            per_stratum.append(np.where(den > 0, 100.0 * num / np.maximum(den, 1), np.nan))
    with np.errstate(invalid="ignore"):
        stats = np.nanmean(np.vstack(per_stratum), axis=0) if len(per_stratum) > 1 else per_stratum[0]
    stats = stats[~np.isnan(stats)]
    if stats.size == 0:
        return math.nan, math.nan
    tail = 100.0 * (1.0 - level) / 2.0
    low, high = np.percentile(stats, [tail, 100.0 - tail])
    return float(low), float(high)


@dataclass(frozen=True)
class MetricResult:
    """A metric value with its bootstrap CI."""

    value: float
    ci_low: float
    ci_high: float


_memo_lock = threading.Lock()
_memo: dict[tuple, tuple[list, MetricResult]] = {}


def _fingerprint(items: Sequence[Any]) -> tuple:
    # lmms-eval gives each metric key its own list, but in one process the lists hold the same
    # payload objects, so identities let the value, CI-low and CI-high keys share one computation.
    # A sample of identities keys the cache; a hit is then confirmed object by object (_same).
    n = len(items)
    if not n:
        return (0,)
    step = max(1, n // 64)
    return (n, *(id(items[i]) for i in range(0, n, step)), id(items[-1]))


def _same(a: Sequence[Any], b: Sequence[Any]) -> bool:
    # List equality runs in C and short-cuts on identity, so identical payload lists compare in
    # milliseconds; payloads that are different objects but equal dicts give the same metric anyway.
    if len(a) != len(b):
        return False
    return a == b if isinstance(a, list) and isinstance(b, list) else list(a) == list(b)


def memo_metric(key: str, items: Sequence[Any], compute: Callable[[], MetricResult]) -> MetricResult:
    """Compute ``compute()`` once per (metric key, payload list); correctness never depends on a hit."""
    fp = (key, *_fingerprint(items))
    with _memo_lock:
        hit = _memo.get(fp)
    if hit is not None and _same(hit[0], items):
        return hit[1]
    result = compute()
    with _memo_lock:
        if len(_memo) > 256:
            _memo.clear()
        _memo[fp] = (list(items), result)
    return result


# --------------------------------------------------------------------------- vectorised path

_table_lock = threading.Lock()
_tables: dict[tuple, tuple[list, PayloadTable]] = {}
# Tables of recent large payload lists, by payload identity: a category key's subset finds its rows in one of
# them. Several, because one task's keys can hold two lists of the same questions (lean samples: the primary
# key's own copies and the shared objects of the other keys, see harness.share).
_row_indexes: list[dict[str, Any]] = []
_MAX_ROW_INDEXES = 2


def _factorize(values: list) -> tuple[np.ndarray, list]:
    # pandas hashes a million strings in ~50 ms (lmms-eval has it imported already); a dict loop is 10x slower.
    import pandas as pd

    codes, uniques = pd.factorize(pd.Series(values, dtype=object), sort=False)
    return np.asarray(codes, dtype=np.int64), list(uniques)


@dataclass
class PayloadTable:
    """Payloads as arrays: one row per distinct (group, role), kept in first-seen order.

    Built once per payload list and shared by every metric key over the same payloads, so
    aggregating a million payloads costs one pass over the dicts plus numpy work.
    """

    group: np.ndarray  # group code per row
    role: np.ndarray  # role code per row
    correct: np.ndarray
    invalid: np.ndarray
    group_size: np.ndarray  # expected members, per group code
    group_names: np.ndarray
    role_names: np.ndarray
    duplicates: int = 0
    source: np.ndarray | None = field(default=None, repr=False)  # row -> index in the payload list it came from
    _matrices: tuple | None = field(default=None, repr=False)

    @classmethod
    def build(cls, items: Sequence[Payload], label: str) -> PayloadTable:
        n = len(items)
        group_codes, group_names = _factorize(list(map(operator.itemgetter("group_id"), items)))
        role_codes, role_names = _factorize(list(map(operator.itemgetter("role"), items)))
        correct = np.fromiter(map(bool, map(operator.itemgetter("correct"), items)), bool, n)
        preds = np.empty(n, dtype=object)
        preds[:] = list(map(operator.itemgetter("pred"), items))
        invalid = np.equal(preds, None)
        sizes = np.fromiter(map(int, map(operator.itemgetter("group_size"), items)), np.int64, n)
        key = group_codes * max(1, len(role_names)) + role_codes
        import pandas as pd

        repeated = pd.Series(key).duplicated().to_numpy()  # hashing, no sort
        first = np.flatnonzero(~repeated)
        duplicates = n - len(first)
        if duplicates:
            cls._check_duplicates(items, key, first, label)
        keep = first
        group_size = np.zeros(len(group_names), dtype=np.int64)
        group_size[group_codes[::-1]] = sizes[::-1]  # first payload's size wins, as in collect_groups
        return cls(
            group_codes[keep], role_codes[keep], correct[keep], invalid[keep], group_size,
            np.asarray(group_names, dtype=object), np.asarray(role_names, dtype=object), duplicates, keep,
        )  # fmt: skip

    @staticmethod
    def _check_duplicates(items: Sequence[Payload], key: np.ndarray, first: np.ndarray, label: str) -> None:
        owner = dict(zip(key[first].tolist(), first.tolist(), strict=True))
        for i, k in enumerate(key.tolist()):
            j = owner[k]
            if i != j and items[i]["question_id"] != items[j]["question_id"]:
                raise ValueError(
                    f"{label or 'scoring'}: questions {items[j]['question_id']!r} and {items[i]['question_id']!r} "
                    f"both claim role {items[i]['role']!r} of group {items[i]['group_id']!r}; the annotation file "
                    "has a duplicate - fix it and rerun."
                )

    def subset(self, rows: np.ndarray) -> PayloadTable:
        """The table restricted to ``rows`` (e.g. one category's questions)."""
        return PayloadTable(self.group[rows], self.role[rows], self.correct[rows], self.invalid[rows],
                            self.group_size, self.group_names, self.role_names)  # fmt: skip

    def matrices(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(present, correct, invalid, complete, group codes)``: role matrices of the groups seen (memoised).

        Group order does not matter downstream: metrics are sums and the bootstrap only sees the
        multiset of per-group outcomes.
        """
        if self._matrices is None:
            counts = np.bincount(self.group, minlength=len(self.group_names))
            seen = np.flatnonzero(counts)
            where = np.full(len(self.group_names), -1, dtype=np.int64)
            where[seen] = np.arange(len(seen))
            rows = where[self.group]
            shape = (len(seen), len(self.role_names))
            present = np.zeros(shape, bool)
            present[rows, self.role] = True
            correct = np.zeros(shape, bool)
            correct[rows, self.role] = self.correct
            invalid = np.zeros(shape, bool)
            invalid[rows, self.role] = self.invalid
            complete = present.sum(axis=1) == self.group_size[seen]
            self._matrices = (present, correct, invalid, complete, seen)
        return self._matrices


def _twins(items: Sequence[Payload]) -> Sequence[Payload]:
    # A payload with a ``twin`` (harness.PrimaryPayload) stands for that object: one table serves every key.
    if not items or getattr(items[0], "twin", None) is None:
        return items
    try:
        return [p.twin for p in items]
    except AttributeError:
        return items


def payload_table(items: Sequence[Payload], label: str = "") -> PayloadTable:
    """The (memoised) table of ``items``; a list drawn from an already-built table reuses its rows."""
    items = _twins(items)
    fp = _fingerprint(items)
    with _table_lock:
        hit = _tables.get(fp)
        parents = list(_row_indexes)
    if hit is not None and _same(hit[0], items):
        return hit[1]
    table = None
    ids = np.fromiter(map(id, items), np.uint64, len(items)) if parents and items else None
    for parent in parents if ids is not None else ():
        # Category keys hold a subset of the headline payload objects: find their rows by identity.
        pos = np.searchsorted(parent["sorted_ids"], ids)
        pos = np.minimum(pos, len(parent["sorted_ids"]) - 1)
        if (parent["sorted_ids"][pos] == ids).all():
            rows = parent["order"][pos]
            if len(rows) == 0 or np.bincount(rows).max() <= 1:
                table = parent["table"].subset(rows)
                table.source = np.arange(len(items))  # one row per payload, in the payloads' order
                break
    if table is None:
        table = PayloadTable.build(items, label)
        if table.duplicates == 0 and len(items) >= 1000:
            ids = np.fromiter(map(id, items), np.uint64, len(items))
            order = np.argsort(ids, kind="stable")
            # Keeping `items` alive keeps these identities valid while the index exists.
            with _table_lock:
                _row_indexes.insert(0, dict(table=table, sorted_ids=ids[order], order=order, items=list(items)))
                del _row_indexes[_MAX_ROW_INDEXES:]
    with _table_lock:
        if len(_tables) > 64:
            _tables.clear()
        _tables[fp] = (list(items), table)
    return table


def _warn_left_out(label: str, complete: np.ndarray, duplicates: int) -> None:
    left_out = int((~complete).sum())
    if left_out or duplicates:
        msg = (
            f"{label}: scored {int(complete.sum())} complete groups; left out {left_out} incomplete "
            f"group(s) whose other questions were not evaluated (--limit/--offset)"
        )
        if duplicates:
            msg += f"; ignored {duplicates} repeated answer(s) to the same question"
        warn_once(msg)


def table_counts(
    table: PayloadTable, units: Units, *, invalid: InvalidPolicy = "wrong"
) -> tuple[np.ndarray, np.ndarray]:
    """``(counts, complete)``: per complete group ``[right units, units]``, as :func:`unit_counts`."""
    present, correct, bad, complete, _codes = table.matrices()
    present, correct, bad = present[complete], correct[complete], bad[complete]
    if units == "each":
        right = (correct & present).sum(axis=1)
        total = present.sum(axis=1) - (bad.sum(axis=1) if invalid == "drop" else 0)
    elif units == "all":
        right = (correct | ~present).all(axis=1).astype(np.int64)
        total = np.ones(len(present), dtype=np.int64)
        if invalid == "drop":
            dropped = bad.any(axis=1)
            right, total = right * ~dropped, total * ~dropped
    else:
        code = {name: i for i, name in enumerate(table.role_names.tolist())}
        right = np.zeros(len(present), dtype=np.int64)
        total = np.zeros(len(present), dtype=np.int64)
        for unit in units:
            cols = [code.get(r) for r in unit]
            if any(c is None for c in cols):
                continue  # a role no evaluated question has: no group can hold this unit
            applies = present[:, cols].all(axis=1)
            if invalid == "drop":
                applies &= ~bad[:, cols].any(axis=1)
            total += applies
            right += applies & correct[:, cols].all(axis=1)
    return np.stack([right, total], axis=1).astype(np.int64), complete


def unit_metric(
    items: Sequence[Payload],
    units: Units,
    *,
    label: str,
    key: str,
    invalid: InvalidPolicy = "wrong",
    report: bool = False,
) -> MetricResult:
    """A unit-accuracy metric with its group-bootstrap CI (memoised per payload list)."""

    def compute() -> MetricResult:
        if not items:
            return MetricResult(math.nan, math.nan, math.nan)
        table = payload_table(items, label)
        counts, complete = table_counts(table, units, invalid=invalid)
        if report:
            _warn_left_out(label, complete, table.duplicates)
        value = percent(int(counts[:, 0].sum()), int(counts[:, 1].sum()))
        low, high = bootstrap_ci(counts)
        return MetricResult(value, low, high)

    return memo_metric(f"{label}:{key}:{invalid}", items, compute)


@dataclass(frozen=True)
class GroupOutcomes:
    """A metric as a function over groups: per group ``[right units, units]`` and, optionally, its stratum.

    The value is ``100 * sum(right) / sum(units)``, or with ``strata`` the mean over strata of that
    percentage (VELOCITI's mean over tests). :func:`bootstrap_ci` resamples these groups; ``compare``
    resamples them paired between two runs.
    """

    ids: list[str]
    counts: np.ndarray
    strata: list[str] | None = None

    def value(self) -> float:
        """The metric value these outcomes give."""
        return stratified_percent(self.counts, self.strata)


def stratified_percent(counts: np.ndarray, strata: Sequence[str] | None = None) -> float:
    """``100 * sum(right) / sum(units)``; with ``strata``, the mean over strata with units of that percentage."""
    counts = np.asarray(counts, dtype=np.int64).reshape(-1, 2)
    if strata is None:
        return percent(int(counts[:, 0].sum()), int(counts[:, 1].sum()))
    labels = np.asarray(strata)
    values = [
        percent(int(counts[labels == s, 0].sum()), int(counts[labels == s, 1].sum())) for s in sorted(set(strata))
    ]
    values = [v for v in values if not math.isnan(v)]
    return sum(values) / len(values) if values else math.nan


def unit_outcomes(
    items: Sequence[Payload], units: Units, *, invalid: InvalidPolicy = "wrong", label: str = ""
) -> GroupOutcomes:
    """The per-group outcomes behind :func:`unit_metric` (complete groups only), with their group ids."""
    if not items:
        return GroupOutcomes([], np.zeros((0, 2), dtype=np.int64))
    table = payload_table(items, label)
    counts, complete = table_counts(table, units, invalid=invalid)
    seen = table.matrices()[4]
    return GroupOutcomes([str(g) for g in table.group_names[seen[complete]].tolist()], counts)


def outcome_functions(
    label: str,
    metrics: Mapping[str, Units],
    *,
    invalid: InvalidPolicy | Callable[[], InvalidPolicy] = "wrong",
) -> dict[str, Callable[[list], GroupOutcomes]]:
    """``{aggregation name: items -> GroupOutcomes}`` for the aggregations :func:`make_aggregators` builds."""
    out: dict[str, Callable[[list], GroupOutcomes]] = {}
    for name, units in metrics.items():

        def outcomes(items: list, _units: Units = units) -> GroupOutcomes:
            policy = invalid() if callable(invalid) else invalid
            return unit_outcomes(items, _units, invalid=policy, label=label)

        out[name] = out[f"{name}_category"] = outcomes
    return out


def table_invalid_rate(items: Sequence[Payload], label: str = "") -> float:
    """Percent of scored questions (complete groups) whose answer could not be parsed; vectorised."""
    if not items:
        return math.nan
    present, _correct, bad, complete, _codes = payload_table(items, label).matrices()
    return percent(int(bad[complete].sum()), int(present[complete].sum()))


_MISSING = object()


def table_disagreement(items: Sequence[Payload], label: str = "") -> float:
    """Percent of scored questions (complete groups) whose robust and official readings differ; vectorised.

    Payloads without both readings (``pred_robust``, ``pred_official``) are not counted.
    """
    if not items:
        return math.nan
    table = payload_table(items, label)
    _present, _correct, _bad, complete, seen = table.matrices()
    where = np.full(len(table.group_names), -1, dtype=np.int64)
    where[seen] = np.arange(len(seen))
    source = table.source if table.source is not None else np.arange(len(items))
    readings = []
    for key in ("pred_robust", "pred_official"):
        values = np.empty(len(items), dtype=object)
        values[:] = list(map(operator.methodcaller("get", key, _MISSING), items))
        readings.append(values[source])
    robust, official = readings
    counted = complete[where[table.group]] & (robust != _MISSING) & (official != _MISSING)
    return percent(int((counted & (robust != official)).sum()), int(counted.sum()))


def make_aggregators(
    label: str,
    metrics: Mapping[str, Units],
    *,
    headline: str,
    invalid: InvalidPolicy | Callable[[], InvalidPolicy] = "wrong",
) -> dict[str, Callable[[list], float]]:
    """lmms-eval aggregation functions ``<m>``, ``<m>_ci_low``, ``<m>_ci_high``, ``<m>_category`` per unit metric.

    ``headline`` is the metric whose aggregation warns about incomplete groups (once).
    ``invalid`` may be a callable so a benchmark can pick the policy from the parser mode.
    """
    out: dict[str, Callable[[list], float]] = {}
    for name, units in metrics.items():

        def result(items: list, _name: str = name, _units: Units = units) -> MetricResult:
            policy = invalid() if callable(invalid) else invalid
            return unit_metric(items, _units, label=label, key=_name, invalid=policy, report=_name == headline)

        def value(items: list, _r=result) -> float:
            return _r(items).value

        def ci_low(items: list, _r=result) -> float:
            return _r(items).ci_low

        def ci_high(items: list, _r=result) -> float:
            return _r(items).ci_high

        def per_category(items: list, _name: str = name, _units: Units = units) -> float:
            # Same metric on one category's payloads; silent, the headline already warned once.
            policy = invalid() if callable(invalid) else invalid
            return unit_metric(items, _units, label=label, key=_name, invalid=policy).value

        variants = (
            ("", value, "value"),
            ("_ci_low", ci_low, "95% CI low"),
            ("_ci_high", ci_high, "95% CI high"),
            ("_category", per_category, "value on one category's questions (for <metric>_<category> keys)"),
        )
        for suffix, fn, what in variants:
            fn.__name__ = f"{name}{suffix}"
            fn.__qualname__ = fn.__name__
            fn.__doc__ = f"{label} {name}: {what} (percent; groups bootstrapped for the CI)."
            out[fn.__name__] = fn
    return out
