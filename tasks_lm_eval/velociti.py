# lm-eval loads `!function velociti.<name>` from this file: re-export the package's functions (no logic here).
from temporal_tasks.benchmarks.velociti.aggregations import *  # noqa: F403
from temporal_tasks.benchmarks.velociti.tasks import *  # noqa: F403
from temporal_tasks.lm_eval_tasks import *  # noqa: F403
