# lm-eval loads `!function temporalbench.<name>` from this file: re-export the package's functions (no logic here).
from temporal_tasks.benchmarks.temporalbench.aggregations import *  # noqa: F403
from temporal_tasks.benchmarks.temporalbench.tasks import *  # noqa: F403
from temporal_tasks.lm_eval_tasks import *  # noqa: F403
