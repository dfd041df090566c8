"""`python -m temporal_tasks` = the `temporal-tasks` command."""

import sys

from temporal_tasks.cli import main

sys.exit(main())
