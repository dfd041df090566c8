"""TimeBlind: minimal video pairs x complementary questions (Acc, Q-Acc, V-Acc, I-Acc).

The spec below is all the rest of the package knows about TimeBlind; the loader and scoring rules are in
:mod:`.tasks`, the synthetic copies in :mod:`.fixture` and :mod:`.fixture_full`, the data check in
:mod:`.check`, the official-format export in :mod:`.export`.
"""

from temporal_tasks.benchmarks.spec import Benchmark, MetricList, PerCategory

NAME = "timeblind"
# tags.json categories (paper Table 3), fine then coarse, then the two question formats.
CATEGORIES = (
    "fine_grained_actions", "state_transition", "event", "speed", "force", "magnitude", "direction", "duration",
    "repetition", "event_attribute", "temporal_relation", "causal_contingency", "cross_event_comparison",
    "structural_event_logic", "yes_no", "multiple_choice",
)  # fmt: skip

# The I-Acc category keys, in the metric list's order: tags.json fine then coarse tags, then the formats.
METRIC_CATEGORIES = (
    "fine_grained_actions", "state_transition", "speed", "force", "magnitude", "direction", "duration",
    "repetition", "temporal_relation", "causal_contingency", "cross_event_comparison", "event", "event_attribute",
    "structural_event_logic", "yes_no", "multiple_choice",
)  # fmt: skip
FAMILIES = ("trial_acc", "question_acc", "video_acc", "instance_acc")

# The one task's metric list: its keys (the tasks module's process_results) and its YAML entries.
METRIC_LIST = MetricList(
    "_default_template_yaml",
    values=FAMILIES,
    ci=FAMILIES,
    per_category=(
        PerCategory(
            ("instance_acc",),
            METRIC_CATEGORIES,
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
)
