# lm-eval loads `!function vinoground.<name>` from this file: re-export the package's functions (no logic here).
from temporal_tasks.benchmarks.vinoground.tasks import *  # noqa: F403
from temporal_tasks.harness.lm_eval_tasks import *  # noqa: F403
from temporal_tasks.scoring.aggregations import (
    vinoground__invalid_rate,  # noqa: F401
    vinoground__parse_disagreement,  # noqa: F401
    vinoground__text_score,  # noqa: F401
    vinoground__text_score_action,  # noqa: F401
    vinoground__text_score_action_consensus_accuracy,  # noqa: F401
    vinoground__text_score_action_consistency_rate,  # noqa: F401
    vinoground__text_score_action_repeat_sd,  # noqa: F401
    vinoground__text_score_ci_high,  # noqa: F401
    vinoground__text_score_ci_low,  # noqa: F401
    vinoground__text_score_consensus_accuracy,  # noqa: F401
    vinoground__text_score_consistency_rate,  # noqa: F401
    vinoground__text_score_contextual,  # noqa: F401
    vinoground__text_score_contextual_consensus_accuracy,  # noqa: F401
    vinoground__text_score_contextual_consistency_rate,  # noqa: F401
    vinoground__text_score_contextual_repeat_sd,  # noqa: F401
    vinoground__text_score_cyclical,  # noqa: F401
    vinoground__text_score_cyclical_consensus_accuracy,  # noqa: F401
    vinoground__text_score_cyclical_consistency_rate,  # noqa: F401
    vinoground__text_score_cyclical_repeat_sd,  # noqa: F401
    vinoground__text_score_interaction,  # noqa: F401
    vinoground__text_score_interaction_consensus_accuracy,  # noqa: F401
    vinoground__text_score_interaction_consistency_rate,  # noqa: F401
    vinoground__text_score_interaction_repeat_sd,  # noqa: F401
    vinoground__text_score_object,  # noqa: F401
    vinoground__text_score_object_consensus_accuracy,  # noqa: F401
    vinoground__text_score_object_consistency_rate,  # noqa: F401
    vinoground__text_score_object_repeat_sd,  # noqa: F401
    vinoground__text_score_repeat_sd,  # noqa: F401
    vinoground__text_score_spatial,  # noqa: F401
    vinoground__text_score_spatial_consensus_accuracy,  # noqa: F401
    vinoground__text_score_spatial_consistency_rate,  # noqa: F401
    vinoground__text_score_spatial_repeat_sd,  # noqa: F401
    vinoground__text_score_viewpoint,  # noqa: F401
    vinoground__text_score_viewpoint_consensus_accuracy,  # noqa: F401
    vinoground__text_score_viewpoint_consistency_rate,  # noqa: F401
    vinoground__text_score_viewpoint_repeat_sd,  # noqa: F401
    vinoground__truncated_rate,  # noqa: F401
)
