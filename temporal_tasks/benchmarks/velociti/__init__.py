"""VELOCITI: video-language entailment (StrictVLE, ClassicVLE) and multiple choice.

The spec below is all the rest of the package knows about VELOCITI, its metrics declared once; the loader is in
:mod:`.loader` and :mod:`.tasks`, the synthetic copies in :mod:`.fixture` and :mod:`.fixture_full`, the data check in
:mod:`.check`, the official-format export in :mod:`.export`.
"""

from temporal_tasks.api import Benchmark, Difference, InvalidPolicy, Metric, MetricList, PerCategory, Strata

NAME = "velociti"
# The 8 tests (its categories, declared here only), in the paper's order: the control test, then the 7 of the paper's
# average.
TESTS = ("control", "agent_random", "agent_bind", "coref", "action_adv", "action_manner", "action_bind", "chrono")

CONTROL = "control"
# Entailment asks each row's C+ and C- captions (roles pos, neg); MC asks both captions as options, C+ as A (posA)
# and again as B (posB).
ROLES = ("pos", "neg", "posA", "posB")


def _pair(units: tuple, *, score_gt: str | None = None, official: InvalidPolicy | None = "drop_group") -> Metric:
    """A row metric: the unweighted mean over the 7 tests (control excluded), as the paper's Avg, with rows
    resampled within each test for the CI; its per-test keys (``<m>_<test>``) are one test's pooled value.
    ``official``: the invalid policy in the official reading (the closed-model scripts drop a row with an
    unreadable answer); robust mode counts it wrong."""
    return Metric(units, invalid_official=official, score_gt=score_gt, strata=Strata("test", TESTS, (CONTROL,)))


STRICT = (("pos", "neg"),)  # pos read Yes and neg read No (the golds)
PER_TEST = "per test, the 8 tests including control"
# The metric lists of the three task kinds.
STRICT_LIST = MetricList(
    "_default_template_yaml",
    values={"strict_vle": _pair(STRICT)},
    ci=("strict_vle",),
    per_category=(PerCategory(("strict_vle",), TESTS, PER_TEST),),
    label=f"{NAME} strict_vle",
)
MC_LIST = MetricList(
    "_mc_template_yaml",
    values={
        "mc_a": _pair((("posA",),)),
        "mc_b": _pair((("posB",),)),
        "mc_bias": Difference("mc_b", "mc_a"),  # order bias B - A (about 0 for an order-blind model)
        "mc_both": _pair((("posA", "posB"),)),
    },
    ci=("mc_both",),
    per_category=(PerCategory(("mc_a", "mc_b", "mc_bias", "mc_both"), TESTS, PER_TEST),),
    lower_is_better=("mc_bias",),
    label=f"{NAME} mc",
)
# Log-likelihood scores: deterministic, so no --repeats keys; no text answer to read. An undefined probability is
# wrong in both modes (metrics.py always has a score: no official drop rule to follow). StrictVLE: e(C+) > 0.5 and
# e(C-) < 0.5 (the preds' golds); ClassicVLE: e(C+) > e(C-).
PROB_LIST = MetricList(
    "_prob_template_yaml",
    values={"strict_vle": _pair(STRICT, official=None), "classic_vle": _pair(STRICT, score_gt="p_yes", official=None)},
    ci=("strict_vle", "classic_vle"),
    diagnostics=("invalid_rate",),
    per_category=(PerCategory(("strict_vle", "classic_vle"), TESTS, PER_TEST),),
    prefix="prob_",
    stability=False,
    label=f"{NAME} strict_vle (prob)",
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
    roles=ROLES,
)
