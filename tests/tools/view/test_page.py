"""The viewer's page (``tools/view/page.py``): one self-contained HTML file, its data block safe inside a script
tag and without NaN (the browser checks are in tests/e2e/test_view.py)."""

from __future__ import annotations

import json
import math
import re

from temporal_tasks.tools.view.page import asset, data_block, render, write_page


def test_data_block_cannot_end_its_script_tag_and_reads_back():
    data = {"a": "</script><b>", "line": "x\u2028y", "n": [1, 2.5]}
    text = data_block(data)
    assert "<" not in text and "\u2028" not in text
    assert json.loads(text) == data  # the escapes mean the same characters


def test_nan_and_infinity_become_null_everywhere():
    data = {"v": math.nan, "deep": [{"w": math.inf}, (1.0, -math.inf)], 3: "key"}
    assert json.loads(data_block(data)) == {"v": None, "deep": [{"w": None}, [1.0, None]], "3": "key"}


def _page(labels: list[str]) -> str:
    return render({"runs": [{"label": label} for label in labels], "tasks": []})


def test_the_page_holds_its_script_styles_and_data_inline():
    page = _page(["base <model>", "new"])
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<title>temporal-tasks view: base &lt;model&gt; vs new</title>" in page
    assert asset("viewer.js") in page and asset("viewer.css") in page
    (block,) = re.findall(r'<script type="application/json" id="view-data">(.*?)</script>', page, re.S)
    assert json.loads(block)["runs"][0]["label"] == "base <model>"
    assert not re.search(r'(src|href)="(?!data:|#)', page)  # nothing fetched from elsewhere


def test_write_page_creates_its_folder(tmp_path):
    out = write_page({"runs": [{"label": "one"}], "tasks": []}, tmp_path / "a" / "b" / "view.html")
    assert out.read_text(encoding="utf-8") == _page(["one"])
