"""The shortcut variants' task names: each benchmark's main task and its blind, single-frame and shuffled
variants."""

from __future__ import annotations

MAIN = {
    "timeblind": "timeblind_iacc",
    "velociti": "velociti_strictvle",
    "temporalbench": "temporalbench_short_mba",
    "vinoground": "vinoground_group",
}
SHORTCUT_TASKS = {
    bench: ["vinoground_text_blind" if bench == "vinoground" else f"{main}_blind"]
    + [f"{main}_{v}" for v in ("single_frame", "shuffled")]
    for bench, main in MAIN.items()
}
