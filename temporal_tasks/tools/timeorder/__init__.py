"""How much of a score needs time: a main task against its shortcut variants, and a task against its frame count.

**Time order** (``temporal-tasks timeorder``). Per benchmark with shortcut analyses, the main task (e.g.
``timeblind_iacc``) is paired with each variant the runs hold (``_blind``, ``_single_frame``, ``_shuffled``): the
same questions with another visual input. Each row is ``compare``'s row for the two tasks, on the headline key
they share (the first of the spec's ``primary`` then ``headline`` keys both report): ``main - control`` over the
groups both scored, a paired group bootstrap 95% CI and the paired sign-flip permutation p-value, computed by
:func:`temporal_tasks.tools.compare.compare_outcomes` from the outcomes ``compare`` reads
(:func:`temporal_tasks.tools.compare.key_outcomes`). Beside it: the relative gain ``(A_main - A_c) / A_c`` (TOMATO's
tau for the shuffled control, kappa for the single frame) with a paired bootstrap CI, and the flip table (groups
right in both, in main only, in the control only, in neither; a group is right when every unit of it is).

Every group all four tasks scored gets one label, the first that holds: answerable blind (right in the blind
variant), answerable from one frame, answerable without the order (right when shuffled), needs the order (right in
main only), never right. The labels use the first key all four tasks report (Vinoground: ``text_score``, as its
blind variant ``vinoground_text_blind`` asks the text-score questions only).

The two tasks must differ in their visual input only: their provenance records are compared as ``compare`` does
(:func:`temporal_tasks.tools.compare.check_comparable`), less the fields a variant changes by design (``shortcut``;
for the blind variant, which sees no frame, also ``frames.n`` and ``paired_layout``; for a blind variant with
questions of its own, the data fingerprints), and the model must be the same.

**Frame count.** Runs of one task and model that differ only in N (``frames.n`` of their provenance, never a
folder name) give the score against N with its group-bootstrap CI, and the paired difference between successive N.
"""

from __future__ import annotations

from temporal_tasks.tools.timeorder.frames import FramePoint, FrameSeries, frame_series
from temporal_tasks.tools.timeorder.outcomes import (
    LABELS,
    RATIO_NAMES,
    SHORTCUT_VARIANTS,
    VARIANT_NAMES,
    flip_table,
    group_metrics,
    key_order,
    label_groups,
    outcomes_of,
    paired_ratio,
    right_groups,
    shared_key,
)
from temporal_tasks.tools.timeorder.pairs import ControlRow, TimeOrder, time_order
from temporal_tasks.tools.timeorder.runs import TaskRun, collect, model_of, repeat_items

__all__ = [
    "LABELS", "RATIO_NAMES", "SHORTCUT_VARIANTS", "VARIANT_NAMES", "ControlRow", "FramePoint", "FrameSeries", "TaskRun",
    "TimeOrder", "collect", "flip_table", "frame_series", "group_metrics", "key_order", "label_groups", "model_of",
    "outcomes_of", "paired_ratio", "repeat_items", "right_groups", "shared_key", "time_order",
]  # fmt: skip
