"""lmms-eval's command line flags and its sharding of a task's docs over ranks."""

from __future__ import annotations

import math
import sys
from importlib.metadata import version

# lmms-eval's CLI flags (``__main__.parse_eval_args``) that we read when no evaluation frame is on the stack.
CLI_FLAGS = {
    "model_args": "--model_args",
    "limit": "--limit",
    "offset": "--offset",
    "num_fewshot": "--num_fewshot",
    "baseline": "--baseline",
}


# Flags of lmms-eval's CLI that our tests and docs use and that not every supported lmms-eval has: the release
# that has each (a checkout of lmms-eval's main branch may lack one although it calls itself 0.7.2).
FLAGS_SINCE = {"--process_docs_parallel": "0.7.3"}


def lmms_eval_accepts(flag: str) -> bool:
    """Whether the installed lmms-eval's command line (``__main__.parse_eval_args``) takes ``flag``: its parser is
    asked, not its version."""
    import lmms_eval.__main__ as lmms_main

    argv, sys.argv = sys.argv, ["lmms-eval"]  # parse_eval_args parses sys.argv; an empty command line parses
    try:
        parser, _ = lmms_main.parse_eval_args()
    finally:
        sys.argv = argv
    _, unknown = parser.parse_known_args([flag, "1"])
    return flag not in unknown


def missing_flag(flag: str) -> str | None:
    """None when the installed lmms-eval takes ``flag``; else a message naming the flag and the release with it."""
    if lmms_eval_accepts(flag):
        return None
    since = FLAGS_SINCE.get(flag, "a later release")
    return f"lmms-eval {version('lmms_eval')} has no {flag}: it came with lmms-eval {since}; upgrade to use it"


def command_line_setting(argv: list[str], name: str) -> str | None:
    """The value of lmms-eval's CLI flag for ``name`` (a :data:`CLI_FLAGS` key) in ``argv``, or None."""
    flag = CLI_FLAGS[name]
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(flag + "="):
            return arg[len(flag) + 1 :]
    return None


def shard(items: list, limit: float | None, offset: int, rank: int, world_size: int) -> list:
    """The items lmms-eval asks ``rank`` for: ``get_sample_size`` turns ``limit`` into a count, then
    ``create_iterator`` takes ``islice(docs, rank + offset, offset + count, world_size)`` and
    ``build_all_requests`` keeps ``instances[:count]``."""
    if limit == 0:  # lmms-eval builds `instances[:0]`: no request at all
        return []
    if not limit or limit < 0:  # None and -1 mean every doc in lmms-eval
        count = None
    elif 0 < limit < 1:
        count = math.ceil(len(items) * limit)  # lmms-eval's get_sample_size
    else:
        count = int(limit)
    stop = None if count is None else offset + count
    return items[rank + offset : stop : world_size]
