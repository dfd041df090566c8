"""Task names several tests run together."""

from __future__ import annotations

# One generate task per headline number: what an end-to-end run of "every benchmark" means in the tests.
MAIN_TASKS = (
    "timeblind_iacc",
    "vinoground_group",
    "temporalbench_short_mba",
    "temporalbench_long_mba",
    "velociti_strictvle",
    "velociti_mc",
)
