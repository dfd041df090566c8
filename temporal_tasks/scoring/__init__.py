"""The scoring core: per-question payloads in, group metrics with bootstrap CIs out, one path for every benchmark.

- :mod:`.payloads`: what ``process_results`` hands each metric key (both readings of an answer, ``--repeats``);
- :mod:`.table` (``_update``): a list of payloads as arrays, one row per question, its flags defined once;
- :mod:`.metrics` (``_reduce``): a declared :class:`~temporal_tasks.api.spec.Metric` over a table as
  per-group ``[right units, units]`` counts, then the value, its stability under ``--repeats`` and its CI;
- :mod:`.bootstrap`: the value and group-bootstrap CI of those counts (pure numpy), shared with ``compare``;
- :mod:`.aggregations`: each declared metric key's lmms-eval aggregation, resolved by name from the registry;
- :mod:`.metric_lists`: the task YAMLs' metric lists, generated from the same declarations.
"""
