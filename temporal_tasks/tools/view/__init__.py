"""``temporal-tasks view RESULTS… [--out FILE] [--run STAMP]``: one self-contained HTML file to see why groups failed.

One run: per task its headline metrics with group CIs, category bars, diagnostics and provenance, then every group
(outcome, failure shape, each member's prompt, gold, answer with the read part highlighted, both readings, flags),
with filters and a search whose state lives in the URL fragment. Two runs (``view BASE NEW``): the headline rows side
by side with ``compare``'s paired differences, its per-metric rows and the groups that flipped each way, answers side
by side. A frame sweep among the runs under the paths (runs that differ only in N): the score against N and the
successive-N steps of ``timeorder``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from temporal_tasks.tools.view.build import view_data
from temporal_tasks.tools.view.page import write_page
from temporal_tasks.tools.view.thumbnails import add_thumbnails

__all__ = ["add_view_parser", "write_view"]


def write_view(
    paths: list[str | Path], out: str | Path, runs: list[str | None] | None = None, frames: int | None = None
) -> tuple[Path, dict]:
    """Write the viewer of one run (or two: BASE, NEW) to ``out``; returns the file and its data.

    ``frames`` K: embed K thumbnails per video of the failed groups' questions (needs the benchmark data).
    """
    data = view_data(paths, runs)
    if frames is not None:
        data["frames"] = {"k": frames, "thumbnails": add_thumbnails(data, frames)}
    return write_page(data, out), data


def _cmd_view(args: argparse.Namespace) -> int:
    out = Path(args.out)
    path, data = write_view(args.results, out, args.run, args.frames)
    for note in data["notes"]:
        print(f"note: {note}")
    if "frames" in data:
        print(f"embedded {data['frames']['thumbnails']} thumbnails ({args.frames} per video of the failed groups)")
    size, read = path.stat().st_size, data["samples_bytes"]
    ratio = f", {size / read:.2f}x the {read / 1e6:.2f} MB of samples read" if read else ""
    print(f"wrote {path} ({size / 1e6:.2f} MB{ratio}); open it in a browser (no server, works offline)")
    return 0


def add_view_parser(subparsers: Any) -> Any:
    """Add the ``view`` subcommand (sets ``func``)."""
    p = subparsers.add_parser("view", help="one self-contained HTML file of a run's groups and answers (or two runs)")
    p.add_argument(
        "results", nargs="+", metavar="RESULTS",
        help="a run: its folder, results JSON or a samples file (one run, or two: BASE NEW)",
    )  # fmt: skip
    p.add_argument("--out", default="view.html", help="the HTML file to write (default view.html)")
    p.add_argument(
        "--run", action="append",
        help="which run, when a folder holds several: its stamp or file (give it once per run, in order)",
    )  # fmt: skip
    p.add_argument(
        "--frames", type=int, metavar="K",
        help="embed K thumbnails per video of the failed groups' questions (reads the benchmark data; bigger file)",
    )  # fmt: skip
    p.set_defaults(func=_cmd_view)
    return p
