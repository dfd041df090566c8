"""The self-contained HTML page: styles, script and data inline; no external resource of any kind.

The page's body, script and styles are package data beside this module (``viewer.html``, ``viewer.js``,
``viewer.css``), so that linters and browser tools see them as what they are.
"""

from __future__ import annotations

import json
import math
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any


def _clean(value: Any) -> Any:
    # JSON.parse refuses NaN/Infinity: they become null (shown as "n/a").
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def data_block(data: dict) -> str:
    """The data as JSON safe inside ``<script type="application/json">`` (every ``<`` escaped as ``\\u003c``)."""
    text = json.dumps(_clean(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
    # "<" only occurs inside JSON strings, where \\u003c means the same character: "</script>" cannot end the block.
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def asset(name: str) -> str:
    """The text of one of the viewer's files shipped beside this module (``viewer.html``, ``viewer.js``,
    ``viewer.css``)."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def render(data: dict) -> str:
    """The whole page."""
    title = "temporal-tasks view: " + " vs ".join(r["label"] for r in data["runs"])
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        # an empty inline icon: the browser does not go looking for /favicon.ico
        '<link rel="icon" href="data:,">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>\n{asset('viewer.css')}</style></head><body>{asset('viewer.html')}"
        f'<script type="application/json" id="view-data">{data_block(data)}</script>'
        f"<script>\n{asset('viewer.js')}</script></body></html>\n"
    )


def write_page(data: dict, out: str | Path) -> Path:
    """Write the page to ``out`` (its folder is created)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(data), encoding="utf-8")
    return out
