"""Headless Chromium for tests: load a page, return its DOM after scripts ran, its console lines and the network
requests it made (from Chromium's own NetLog). Name resolution is mapped to nowhere, so nothing can leave the machine
even if a page tried."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

# Browser-internal traffic (updates, sync, spelling dictionaries) off, so what is left is the page's own.
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
    "--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr", "--v=0",
)  # fmt: skip
_CONSOLE = re.compile(r":CONSOLE[:(]")


@dataclass
class Page:
    """What a page did in the browser."""

    dom: str
    console: list[str]  # every console message (our page writes none: each one is an error or a warning)
    requests: list[str]  # URLs the page itself requested over the network


def chromium() -> str:
    """The Chromium binary. Missing: the test is skipped, except in CI (``CI=true``), where it fails."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail("chromium is not installed, and CI must run the browser tests (.ci/run installs it)")
    pytest.skip("chromium is not installed (apt-get install -y chromium); the browser tests need it")


def _page_requests(netlog: Path) -> list[str]:
    # A request the page made carries the page's (file://) network isolation key; the browser's own do not.
    try:
        events = json.loads(netlog.read_text(encoding="utf-8"))["events"]
    except (OSError, ValueError, KeyError):
        # Chromium may stop before closing the JSON array: the events written so far still count.
        text = netlog.read_text(encoding="utf-8").rstrip().rstrip(",")
        events = json.loads(text + "]}")["events"]
    urls = set()
    for event in events:
        params = event.get("params") or {}
        if "url" in params and "file://" in str(params.get("network_isolation_key", "")):
            if not str(params["url"]).startswith("file:"):
                urls.add(str(params["url"]))
    return sorted(urls)


def load(page: Path, fragment: str = "", *, tmp: Path, budget_ms: int = 5000) -> Page:
    """Open ``page#fragment`` in headless Chromium and return the DOM after its scripts ran."""
    tmp.mkdir(parents=True, exist_ok=True)
    netlog = tmp / f"netlog-{os.getpid()}-{len(list(tmp.iterdir()))}.json"
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    cmd = [chromium(), *FLAGS, f"--user-data-dir={tmp / 'profile'}", f"--log-net-log={netlog}",
           f"--virtual-time-budget={budget_ms}", "--dump-dom", url]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    ok = proc.returncode == 0 and "<html" in proc.stdout
    assert ok, f"chromium failed ({proc.returncode}): {proc.stderr[-3000:]}"
    console = [line for line in proc.stderr.splitlines() if _CONSOLE.search(line)]
    return Page(proc.stdout, console, _page_requests(netlog))


# Written into a copy of a page: each chart's text must end inside its SVG.
_MEASURE = """<script>window.addEventListener("load", () => setTimeout(() => {
  const over = [];
  for (const svg of document.querySelectorAll("svg.chart")) {
    const box = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll("text")) {
      const r = t.getBoundingClientRect();
      if (r.width && (r.right > box.right + 0.5 || r.left < box.left - 0.5)) over.push(t.textContent);
    }
  }
  const shown = [...document.querySelectorAll("svg.chart")].filter((s) => s.getBoundingClientRect().width > 0);
  document.body.setAttribute("data-charts", shown.length);
  document.body.setAttribute("data-overflow", JSON.stringify(over));
}, 500));</script></body>"""


def chart_text_overflow(page: Path, fragment: str = "", *, tmp: Path) -> tuple[int, list[str]]:
    """Open a copy of ``page#fragment`` and measure its inline SVG charts: how many are shown, and the text of every
    label that sticks out of its chart (a cut-off value or CI)."""
    tmp.mkdir(parents=True, exist_ok=True)
    copy = tmp / f"measured-{page.name}"
    copy.write_text(page.read_text(encoding="utf-8").replace("</body>", _MEASURE, 1), encoding="utf-8")
    body = parse(load(copy, fragment, tmp=tmp).dom).find("body")
    return int(body.attrs["data-charts"]), json.loads(body.attrs["data-overflow"])


# --------------------------------------------------------------------------- a small DOM over the dumped HTML

VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})


@dataclass
class Node:
    """One element of the dumped DOM: tag, attributes, children (nodes and text)."""

    tag: str
    attrs: dict[str, str]
    children: list

    def text(self) -> str:
        """Its text content."""
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def find_all(self, tag: str | None = None, **attrs: str | bool) -> list[Node]:
        """Descendants with ``tag`` and the given attributes (``data_x`` means ``data-x``; ``True``: present)."""
        wanted = {k.replace("_", "-"): v for k, v in attrs.items()}
        out = []
        for child in self.children:
            if isinstance(child, str):
                continue
            if (tag is None or child.tag == tag) and all(
                (k in child.attrs) if v is True else child.attrs.get(k) == v for k, v in wanted.items()
            ):
                out.append(child)
            out += child.find_all(tag, **attrs)
        return out

    def find(self, tag: str | None = None, **attrs: str | bool) -> Node:
        """The first such descendant (an assertion error when there is none)."""
        found = self.find_all(tag, **attrs)
        assert found, f"no <{tag or '*'} {attrs}> in the page"
        return found[0]


def parse(html: str) -> Node:
    """The DOM tree of ``html`` (as Chromium dumped it: well nested)."""
    from html.parser import HTMLParser

    root = Node("#root", {}, [])
    stack = [root]

    class _Parser(HTMLParser):
        def handle_starttag(self, tag, attrs):  # noqa: ANN001, ANN202
            node = Node(tag, {k: v or "" for k, v in attrs}, [])
            stack[-1].children.append(node)
            if tag not in VOID:
                stack.append(node)

        def handle_endtag(self, tag):  # noqa: ANN001, ANN202
            for i in range(len(stack) - 1, 0, -1):
                if stack[i].tag == tag:
                    del stack[i:]
                    break

        def handle_data(self, data):  # noqa: ANN001, ANN202
            stack[-1].children.append(data)

    _Parser(convert_charrefs=True).feed(html)
    return root
