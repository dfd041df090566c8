"""TemporalBench: binary QA (BA, multiple binary accuracy) and captioning.

The spec below is all the rest of the package knows about TemporalBench, its metrics declared once; the loader is in
:mod:`.loader` and :mod:`.tasks`, the synthetic copies in :mod:`.fixture` and :mod:`.fixture_full`, the data check in
:mod:`.check`, the official-format export in :mod:`.export`.
"""

from temporal_tasks.api import Benchmark, Custom, Metric, MetricList, PerCategory

NAME = "temporalbench"
# The categories, declared here only (as metric keys spell them: slugs), in the metric lists' and the report's
# order: the source datasets (the official print order), then the negative-caption categories of the short QA.
SOURCES = ("activitynet", "charades", "coin", "egoexo4d", "movie_description", "oops", "finegym")
CAPTION_CATEGORIES = (
    "action_order", "action_frequency", "action_type", "motion_magnitude", "motion_direction_orientation",
    "action_effector", "event_order", "others",
)  # fmt: skip
CATEGORIES = (*SOURCES, *CAPTION_CATEGORIES)
QA = ("binary_acc", "mba")

# The QA tasks' metric list: their keys (the tasks module's process_results) and their YAML entries.
BY_SOURCE = PerCategory(
    QA, SOURCES, "per source dataset (the `dataset` / `source_dataset` field); MBA groups by video", "category"
)
# A key of one category receives whole videos (so that a --limit-cut video is left out, as everywhere else), and
# only the category's questions are its units.
BY_CATEGORY = PerCategory(
    QA,
    CAPTION_CATEGORIES,
    "per category (short QA only; the long QA has none): MBA of a video's questions of that category",
    "category",
    within="category",
)
QA_LIST = MetricList(
    "_default_template_yaml",
    # BA: every binary question of the complete videos; MBA (the official get_qa_acc.py): a video's questions
    # all right. get_qa_acc.py counts only the questions its file has a line for (official reading).
    values={
        "binary_acc": Metric("each", official_missing="not_counted"),
        "mba": Metric("all", official_missing="not_counted"),
    },
    ci=QA,
    per_category=(BY_SOURCE, BY_CATEGORY),
    comment="BA, MBA, unreadable answers, 95% CIs (videos bootstrapped)",
)
METRIC_LISTS = (
    QA_LIST,
    # Captions have no groups to be stable over, and no parser (no invalid or disagreeing readings).
    MetricList(
        "temporalbench_caption_sim.yaml",
        values={"caption_sim": Custom(".tasks:caption_sim")},
        diagnostics=("truncated_rate",),
        stability=False,
    ),
)

SPEC = Benchmark(
    name=NAME,
    title="TemporalBench",
    package=__name__,
    hf_repo="microsoft/TemporalBench",
    paper="Cai et al.: TemporalBench, evaluating fine-grained temporal dynamics understanding",
    families=("mba", "binary_acc"),
    categories=CATEGORIES,
    tasks=("temporalbench_short_mba", "temporalbench_long_mba", "temporalbench_mba", "temporalbench_caption_sim"),
    metric_labels={"mba": "MBA", "binary_acc": "BA", "caption_sim": "caption similarity"},
    shortcut_main="temporalbench_short_mba",
    published={
        ("temporalbench short QA", "questions"): 9867,
        ("temporalbench short QA", "videos"): 2179,
        ("temporalbench long QA", "questions"): 5485,
        ("temporalbench captions", "captions"): 1891,
    },  # fmt: skip
    check=".check:parts",
    export=".export:export",
    view=".view:shape",
    importer=".importer:read",
    fixture=".fixture:write",
    fixture_full=".fixture_full:write",
    demo_tasks=("temporalbench_short_mba", "temporalbench_long_mba"),
    references="references.json",
    metric_lists=METRIC_LISTS,
)
