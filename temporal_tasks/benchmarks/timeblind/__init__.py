"""TimeBlind: minimal video pairs x complementary questions (Acc, Q-Acc, V-Acc, I-Acc).

The spec below is all the rest of the package knows about TimeBlind, its metrics declared once; the loader is in
:mod:`.tasks`, the synthetic copies in :mod:`.fixture` and :mod:`.fixture_full`, the data check in
:mod:`.check`, the official-format export in :mod:`.export`.
"""

from temporal_tasks.api import Benchmark, Metric, MetricList, PerCategory

NAME = "timeblind"
# The categories, declared here only, in the metric list's and the report's order: the tags of the official
# tags.json (paper Table 3, as metric keys spell them: slugs), 11 fine-grained then 3 coarse, then the two question
# formats (every question has one).
TAGS = (
    "fine_grained_actions", "state_transition", "speed", "force", "magnitude", "direction", "duration",
    "repetition", "temporal_relation", "causal_contingency", "cross_event_comparison", "event", "event_attribute",
    "structural_event_logic",
)  # fmt: skip
FORMATS = ("yes_no", "multiple_choice")
CATEGORIES = (*TAGS, *FORMATS)
FAMILIES = ("trial_acc", "question_acc", "video_acc", "instance_acc")
# A trial's place in its instance: question 0 or 1 on video 0 or 1 (gold yes, no, no, yes).
ROLES = ("q0_v0", "q0_v1", "q1_v0", "q1_v1")

# The one task's metric list: Acc over trials, Q-Acc a question right on both videos, V-Acc both questions right
# on a video, I-Acc all four trials right. In the official reading, an instance with a trial missing from the
# answer file is all wrong, and one with none answered is not counted (utils.py build_answers, 644fdf4).
METRIC_LIST = MetricList(
    "_default_template_yaml",
    values={
        "trial_acc": Metric("each", official_missing="void_group"),
        "question_acc": Metric((("q0_v0", "q0_v1"), ("q1_v0", "q1_v1")), official_missing="void_group"),
        "video_acc": Metric((("q0_v0", "q1_v0"), ("q0_v1", "q1_v1")), official_missing="void_group"),
        "instance_acc": Metric((ROLES,), official_missing="void_group"),
    },
    ci=FAMILIES,
    per_category=(
        PerCategory(
            ("instance_acc",),
            CATEGORIES,
            comment="I-Acc per tags.json category (paper Table 3), when tags.json is present; per format always.",
        ),
    ),
    comment="Acc, Q-Acc, V-Acc, I-Acc (headline), unreadable answers, and 95% CIs (instances bootstrapped).",
)
METRIC_LISTS = (METRIC_LIST,)

SPEC = Benchmark(
    name=NAME,
    title="TimeBlind",
    package=__name__,
    hf_repo="BaiqiL/TimeBlind",
    paper="Li, Zhao, Zhang, Mitra, Nyandwi, Bertasius: TimeBlind, a spatio-temporal compositionality benchmark",
    families=("instance_acc", "question_acc", "video_acc", "trial_acc"),
    categories=CATEGORIES,
    tasks=("timeblind_iacc",),
    metric_labels={"instance_acc": "I-Acc", "question_acc": "Q-Acc", "video_acc": "V-Acc", "trial_acc": "Acc"},
    shortcut_main="timeblind_iacc",
    published={("timeblind", "rows"): 2400, ("timeblind", "instances"): 600},
    check=".check:parts",
    export=".export:export",
    view=".view:shape",
    importer=".importer:read",
    fixture=".fixture:write",
    fixture_full=".fixture_full:write",
    demo_tasks=("timeblind_iacc",),
    references="references.json",
    parsers=".parsers",
    metric_lists=METRIC_LISTS,
    roles=ROLES,
)
