"""Vinoground: counterfactual video/caption pairs (text, video and group score).

The spec below is all the rest of the package knows about Vinoground, its metrics declared once; the loader is in
:mod:`.tasks`, the synthetic copies in :mod:`.fixture` and :mod:`.fixture_full`, the data check in
:mod:`.check`, the official-format export in :mod:`.export`.
"""

from temporal_tasks.api import Benchmark, Metric, MetricList, PerCategory

NAME = "vinoground"
# The categories (paper Tables 5-6), declared here only, in the metric lists' and the report's order: a pair has one
# major category and any minor ones (the loader checks the CSV against these).
MAJOR = ("action", "object", "viewpoint")
MINOR = ("interaction", "cyclical", "spatial", "contextual")
CATEGORIES = (*MAJOR, *MINOR)
SCORES = ("text_score", "video_score", "group_score")
# A pair's four questions: each caption asked against the pair's clips (text), each clip against the captions
# (video). A pair's text score needs both text answers right, its video score both video answers, its group score
# all four.
TEXT_ROLES = ("pos_text", "neg_text")
VIDEO_ROLES = ("pos_video", "neg_video")
ROLES = (*TEXT_ROLES, *VIDEO_ROLES)
# Official get_score_all.py (Vinoground/Vinoground 2602b94, unchanged at 1543a2a) reads a pair's text answers
# (json[2i] = pos, then json[2i+1] = neg, the second only when the first is right), then its video answers, in one
# try/except: an empty text answer it reaches raises (response[0]) and the pair loses its video credit too.
METRICS = {
    "text_score": Metric((TEXT_ROLES,)),
    "video_score": Metric((VIDEO_ROLES,), official_read_first=(TEXT_ROLES,)),
    "group_score": Metric((ROLES,)),
}


def _score_list(
    file: str, scores: tuple[str, ...], comment: str = "", category_comment: str = "per category"
) -> MetricList:
    return MetricList(
        file,
        values={score: METRICS[score] for score in scores},
        ci=scores,
        per_category=(PerCategory(scores, CATEGORIES, comment=category_comment),),
        comment=comment,
    )


METRIC_LISTS = (
    _score_list(
        "_default_template_yaml",
        SCORES,
        "text, video and group score (percent of pairs), unreadable answers, 95% CIs (pairs bootstrapped)",
        "per category: major action/object/viewpoint, minor interaction/cyclical/spatial/contextual (Tables 5-6).",
    ),
    _score_list("vinoground_text.yaml", ("text_score",)),
    _score_list("vinoground_video.yaml", ("video_score",)),
)

SPEC = Benchmark(
    name=NAME,
    title="Vinoground",
    package=__name__,
    hf_repo="HanSolo9682/Vinoground",
    paper="Zhang, Cai, Lee: Vinoground, scrutinizing LMMs over dense temporal reasoning with short videos",
    families=("text_score", "video_score", "group_score"),
    categories=CATEGORIES,
    tasks=("vinoground_group", "vinoground_group_official", "vinoground_text", "vinoground_video"),
    primary=("group_score", "text_score", "video_score"),
    metric_labels={"text_score": "text score", "video_score": "video score", "group_score": "group score"},
    shortcut_main="vinoground_group",
    blind_task="vinoground_text_blind",
    published={("vinoground", "pairs"): 500, ("vinoground", "clips"): 1000, ("vinoground", "questions"): 2000},
    check=".check:parts",
    export=".export:export",
    view=".view:shape",
    importer=".importer:read",
    fixture=".fixture:write",
    fixture_full=".fixture_full:write",
    demo_tasks=("vinoground_group", "vinoground_group_official"),
    prebuild=".tasks:prebuild",
    references="references.json",
    metric_lists=METRIC_LISTS,
    roles=ROLES,
)
