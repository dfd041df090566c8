"""VELOCITI: video-language entailment (StrictVLE, ClassicVLE) and multiple choice.

The spec below is all the rest of the package knows about VELOCITI; the loader and scoring rules are in
:mod:`.tasks`, the synthetic copies in :mod:`.fixture` and :mod:`.fixture_full`, the data check in
:mod:`.check`, the official-format export in :mod:`.export`.
"""

from temporal_tasks.benchmarks.spec import Benchmark, MetricList, PerCategory

NAME = "velociti"
# The 8 tests, in the paper's order.
TESTS = ("control", "agent_random", "agent_bind", "coref", "action_adv", "action_manner", "action_bind", "chrono")

PER_TEST = "per test, the 8 tests including control"
# The metric lists of the three task kinds: their keys (the tasks module's process_results) and YAML entries.
STRICT_LIST = MetricList(
    "_default_template_yaml",
    values=("strict_vle",),
    ci=("strict_vle",),
    per_category=(PerCategory(("strict_vle",), TESTS, "{family}_test", PER_TEST),),
)
MC_LIST = MetricList(
    "_mc_template_yaml",
    values=("mc_a", "mc_b", "mc_bias", "mc_both"),
    ci=("mc_both",),
    per_category=(PerCategory(("mc_a", "mc_b", "mc_bias", "mc_both"), TESTS, "{family}_test", PER_TEST),),
    lower_is_better=("mc_bias",),
)
# Log-likelihood scores: deterministic, so no --repeats keys; no text answer to read.
PROB_LIST = MetricList(
    "_prob_template_yaml",
    values=("strict_vle", "classic_vle"),
    ci=("strict_vle", "classic_vle"),
    diagnostics=("invalid_rate",),
    per_category=(PerCategory(("strict_vle", "classic_vle"), TESTS, "{family}_test", PER_TEST),),
    prefix="prob_",
    stability=False,
)
METRIC_LISTS = (STRICT_LIST, MC_LIST, PROB_LIST)

SPEC = Benchmark(
    name=NAME,
    title="VELOCITI",
    package=__name__,
    hf_repo="katha-ai-iiith/VELOCITI",
    paper="Saravanan et al.: VELOCITI, video-language compositional reasoning with strict entailment",
    families=("strict_vle", "classic_vle", "mc_both", "mc_a", "mc_b", "mc_bias"),
    categories=TESTS,
    tasks=(
        "velociti_strictvle_prob",
        "velociti_strictvle",
        "velociti_mc",
        "velociti_strictvle_prob_subset",
        "velociti_strictvle_subset",
        "velociti_mc_subset",
    ),  # fmt: skip
    metric_labels={
        "strict_vle": "StrictVLE",
        "classic_vle": "ClassicVLE",
        "mc_both": "MC A∧B",
        "mc_a": "MC A",
        "mc_b": "MC B",
        "mc_bias": "MC bias (B−A)",
    },  # fmt: skip
    shortcut_main="velociti_strictvle",
    published={("velociti", "rows"): 8792, ("velociti", "subset rows per test"): 150},
    check=".check:parts",
    export=".export:export",
    view=".view:shape",
    importer=".importer:read",
    fixture=".fixture:write",
    fixture_full=".fixture_full:write",
    demo_tasks=("velociti_strictvle", "velociti_mc"),
    references="references.json",
    parsers=".parsers",
    metric_lists=METRIC_LISTS,
)
