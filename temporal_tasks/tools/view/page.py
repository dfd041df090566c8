"""The self-contained HTML page: styles, script and data inline; no external resource of any kind."""

from __future__ import annotations

import json
import math
from html import escape
from pathlib import Path
from typing import Any

from temporal_tasks.tools.view.static_js import SCRIPT

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 1.5em 2em; color: #222; }
h1 { font-size: 1.3em; margin: .6em 0 .2em; } h2 { font-size: 1.1em; margin: 1em 0 .3em; }
table { border-collapse: collapse; } td, th { padding: 2px 8px; border-bottom: 1px solid #ddd; vertical-align: top; }
th { text-align: left; background: #f4f4f4; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #666; font-size: .9em; } #notes li { color: #a60; }
#controls { position: sticky; top: 0; background: #fff; padding: .5em 0; border-bottom: 1px solid #ccc; z-index: 1; }
#controls label { margin-right: .8em; white-space: nowrap; } #search { width: 18em; }
.chartbox { display: inline-block; vertical-align: top; margin-right: 2em; }
.chart text { font-size: 11px; fill: #333; } .chart .chart-title { font-weight: 600; }
.chart .bar { fill: #5b8def; } .chart .ci { stroke: #222; stroke-width: 1.2; } .chart .tick { stroke: #ddd; }
.group { border: 1px solid #ddd; border-radius: 4px; margin: 4px 0; padding: 2px 6px; }
.group.selected { border-color: #d60; box-shadow: 0 0 0 2px #fc8; }
.group summary { cursor: pointer; } .gid { font-family: monospace; margin-right: .6em; }
.badge { border-radius: 3px; padding: 0 5px; margin-right: .4em; font-size: .85em; color: #fff; }
.badge.right { background: #2a7; } .badge.failed { background: #c33; }
.badge.unscored, .badge.absent { background: #999; }
.shape { font-style: italic; margin-right: .6em; } .cats { color: #666; font-size: .85em; }
.members { width: 100%; margin: 4px 0; } .members td.prompt { max-width: 28em; white-space: pre-wrap; }
td.run.ok { background: #eef9f1; } td.run.bad { background: #fdeeee; }
.answer pre { white-space: pre-wrap; margin: 0; font: 13px/1.35 ui-monospace, monospace; max-width: 40em; }
.reasoning summary { color: #666; font-size: .85em; } .reasoning pre { color: #666; max-height: 20em; overflow: auto; }
mark { background: #ffe066; } .empty { color: #999; } .readings { font-size: .85em; color: #444; }
.flag { display: inline-block; font-size: .75em; background: #fd8; border-radius: 3px; padding: 0 4px;
  margin: 2px 3px 0 0; }
#refused[data-refused=true] { color: #b00; font-weight: 600; }
#pager { margin: .6em 0; }
.thumbs .strip { margin-top: 3px; white-space: nowrap; } .thumbs img { height: 48px; margin-right: 2px; }
"""

BODY = """
<h1>temporal-tasks run viewer</h1>
<ul id="runs"></ul>
<ul id="notes"></ul>
<div id="controls">
  <label>task <select id="task-select"></select></label>
  <span id="filters"></span>
  <label>category <select id="category"></select></label>
  <label>search <input id="search" type="search" placeholder="prompt, answer, id"></label>
  <a id="permalink" href="#">link to this view</a>
</div>
<section id="task">
  <h2>Headline metrics (95% CI over groups)</h2>
  <table><thead><tr><th>run</th><th>metric</th><th>value</th><th>95% CI</th></tr></thead>
  <tbody id="headline"></tbody></table>
  <h2>Diagnostics</h2>
  <table><tbody id="diagnostics"></tbody></table>
  <div id="compare-box" hidden>
    <h2>NEW − BASE, paired over groups (as <code>temporal-tasks compare</code>)</h2>
    <p id="refused"></p><p id="flips"></p>
    <table><thead><tr><th>metric</th><th>BASE</th><th>NEW</th><th>NEW − BASE</th><th>95% CI</th><th>p-value</th>
    <th>groups</th></tr></thead><tbody id="compare"></tbody></table>
  </div>
  <h2>Failure shapes of the failed groups</h2>
  <div id="shapes"></div>
  <h2>Categories</h2>
  <div id="charts"></div>
  <h2>Provenance</h2>
  <div id="provenance"></div>
  <h2>Groups <span id="match-count"></span></h2>
  <div id="pager"><button id="prev">previous</button> <span id="page-label"></span>
  <button id="next">next</button></div>
  <div id="groups"></div>
</section>
"""


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


def render(data: dict) -> str:
    """The whole page."""
    title = "temporal-tasks view: " + " vs ".join(r["label"] for r in data["runs"])
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        # an empty inline icon: the browser does not go looking for /favicon.ico
        '<link rel="icon" href="data:,">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>{BODY}"
        f'<script type="application/json" id="view-data">{data_block(data)}</script>'
        f"<script>{SCRIPT}</script></body></html>\n"
    )


def write_page(data: dict, out: str | Path) -> Path:
    """Write the page to ``out`` (its folder is created)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(data), encoding="utf-8")
    return out
