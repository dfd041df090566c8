# lm-eval loads `!function velociti.<name>` from this file: re-export the package's functions (no logic here).
from temporal_tasks.benchmarks.velociti.tasks import *  # noqa: F403
from temporal_tasks.harness.lm_eval_tasks import *  # noqa: F403
from temporal_tasks.scoring.aggregations import (
    velociti__invalid_rate,  # noqa: F401
    velociti__parse_disagreement,  # noqa: F401
    velociti__strict_vle,  # noqa: F401
    velociti__strict_vle_action_adv,  # noqa: F401
    velociti__strict_vle_action_adv_consensus_accuracy,  # noqa: F401
    velociti__strict_vle_action_adv_consistency_rate,  # noqa: F401
    velociti__strict_vle_action_adv_repeat_sd,  # noqa: F401
    velociti__strict_vle_action_bind,  # noqa: F401
    velociti__strict_vle_action_bind_consensus_accuracy,  # noqa: F401
    velociti__strict_vle_action_bind_consistency_rate,  # noqa: F401
    velociti__strict_vle_action_bind_repeat_sd,  # noqa: F401
    velociti__strict_vle_action_manner,  # noqa: F401
    velociti__strict_vle_action_manner_consensus_accuracy,  # noqa: F401
    velociti__strict_vle_action_manner_consistency_rate,  # noqa: F401
    velociti__strict_vle_action_manner_repeat_sd,  # noqa: F401
    velociti__strict_vle_agent_bind,  # noqa: F401
    velociti__strict_vle_agent_bind_consensus_accuracy,  # noqa: F401
    velociti__strict_vle_agent_bind_consistency_rate,  # noqa: F401
    velociti__strict_vle_agent_bind_repeat_sd,  # noqa: F401
    velociti__strict_vle_agent_random,  # noqa: F401
    velociti__strict_vle_agent_random_consensus_accuracy,  # noqa: F401
    velociti__strict_vle_agent_random_consistency_rate,  # noqa: F401
    velociti__strict_vle_agent_random_repeat_sd,  # noqa: F401
    velociti__strict_vle_chrono,  # noqa: F401
    velociti__strict_vle_chrono_consensus_accuracy,  # noqa: F401
    velociti__strict_vle_chrono_consistency_rate,  # noqa: F401
    velociti__strict_vle_chrono_repeat_sd,  # noqa: F401
    velociti__strict_vle_ci_high,  # noqa: F401
    velociti__strict_vle_ci_low,  # noqa: F401
    velociti__strict_vle_consensus_accuracy,  # noqa: F401
    velociti__strict_vle_consistency_rate,  # noqa: F401
    velociti__strict_vle_control,  # noqa: F401
    velociti__strict_vle_control_consensus_accuracy,  # noqa: F401
    velociti__strict_vle_control_consistency_rate,  # noqa: F401
    velociti__strict_vle_control_repeat_sd,  # noqa: F401
    velociti__strict_vle_coref,  # noqa: F401
    velociti__strict_vle_coref_consensus_accuracy,  # noqa: F401
    velociti__strict_vle_coref_consistency_rate,  # noqa: F401
    velociti__strict_vle_coref_repeat_sd,  # noqa: F401
    velociti__strict_vle_repeat_sd,  # noqa: F401
    velociti__truncated_rate,  # noqa: F401
)
