"""Reading the Markdown pages for ``tests/architecture/test_docs.py``: code blocks, inline code, tables, links,
headings and the shell command lines in them. Plain string work, no Markdown library: the pages use a small,
regular subset.
"""

from __future__ import annotations

import re
import shlex
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from tests.helpers.paths import ROOT

# Code blocks in these languages (or none) hold shell lines; python, toml, bibtex blocks are not read for commands.
SHELL_LANGUAGES = ("", "bash", "sh", "shell", "console")
FENCE = re.compile(r"^\s*```(\S*)\s*$")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
SUBSTITUTION = re.compile(r"\$\(([^()]*)\)")
SEPARATORS = {"&&", "||", ";", "|"}


def pages() -> list[Path]:
    """The README, every page under docs/ and each benchmark's page (tasks/*/README.md)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "tasks").glob("*/README.md"))]


def name(page: Path) -> str:
    """The page's path from the repository root (how failures name it)."""
    return page.relative_to(ROOT).as_posix()


@dataclass
class Page:
    """One page split into its fenced code blocks (with their language) and its prose lines (code blocks blanked)."""

    path: Path
    blocks: list[tuple[str, list[str]]]
    prose: list[str]

    @classmethod
    def read(cls, path: Path) -> Page:
        """Split ``path`` into code blocks and prose."""
        blocks: list[tuple[str, list[str]]] = []
        prose: list[str] = []
        current: list[str] | None = None
        for line in path.read_text(encoding="utf-8").splitlines():
            fence = FENCE.match(line)
            if fence and current is None:
                current = []
                blocks.append((fence.group(1).lower(), current))
                prose.append("")
            elif fence:
                current = None
                prose.append("")
            elif current is not None:
                current.append(line)
                prose.append("")
            else:
                prose.append(line)
        return cls(path, blocks, prose)

    def code_spans(self) -> list[str]:
        """Every inline code span of the prose (table cells included; a table's escaped ``\\|`` is ``|``)."""
        return [span.replace("\\|", "|") for line in self.prose for span in CODE_SPAN.findall(line)]

    def shell_lines(self) -> list[str]:
        """The shell lines of the page's shell code blocks, a line continued with ``\\`` joined to the next."""
        lines: list[str] = []
        for language, block in self.blocks:
            if language not in SHELL_LANGUAGES:
                continue
            pending = ""
            for line in block:
                if line.rstrip().endswith("\\"):
                    pending += line.rstrip()[:-1] + " "
                    continue
                lines.append(pending + line)
                pending = ""
            if pending:
                lines.append(pending)
        return lines

    def links(self) -> list[str]:
        """The targets of the prose's Markdown links and images (inline code removed first)."""
        return [target for line in self.prose for target in LINK.findall(CODE_SPAN.sub("", line))]

    def tables(self) -> list[list[list[str]]]:
        """Each table of the prose as rows of cells (header row first, the ``|---|`` row left out)."""
        tables: list[list[list[str]]] = []
        current: list[list[str]] | None = None
        for line in self.prose:
            if not line.lstrip().startswith("|"):
                current = None
                continue
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if all(re.fullmatch(r":?-{3,}:?", c) for c in cells):
                continue
            if current is None:
                current = []
                tables.append(current)
            current.append(cells)
        return tables

    def headless_tables(self) -> list[int]:
        """Line numbers (1-based) of table rows that open a table without a ``|---|`` line under them: GitHub shows
        such rows as text (a blank line inside a table does this to the rows after it)."""
        found = []
        for i, line in enumerate(self.prose):
            opens = line.lstrip().startswith("|") and not (i and self.prose[i - 1].lstrip().startswith("|"))
            below = self.prose[i + 1] if i + 1 < len(self.prose) else ""
            if opens and not re.fullmatch(r"\s*\|(\s*:?-{3,}:?\s*\|)+\s*", below):
                found.append(i + 1)
        return found

    def anchors(self) -> set[str]:
        """The ``#anchor`` of every heading, as GitHub makes them (see :func:`slug`; repeats get ``-1``, ``-2``)."""
        seen: dict[str, int] = {}
        found: set[str] = set()
        for line in self.prose:
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        return found


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: the rendered text (code and link markup dropped) in lower case, every
    character that is not a letter, digit, mark, ``_``, ``-`` or space removed, then each space a ``-``."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").lower()
    kept = [c for c in text if c in "-_ " or unicodedata.category(c)[0] in "LNM"]
    return "".join(kept).replace(" ", "-")


def commands(line: str) -> list[list[str]]:
    """The simple commands of a shell line, each as its words: ``# comments`` dropped, split at ``&&``, ``||``,
    ``;`` and ``|``, leading ``VAR=value`` words left out, and each ``$(…)`` a command of its own (it stands as the
    word ``SUBSTITUTION`` in the command that holds it)."""
    found: list[list[str]] = []
    for inner in SUBSTITUTION.findall(line):
        found.extend(commands(inner))
    try:
        words = shlex.split(SUBSTITUTION.sub("SUBSTITUTION", line), comments=True)
    except ValueError:  # an unbalanced quote: prose rather than a command
        return found
    current: list[str] = []
    for word in [*words, ";"]:
        if word in SEPARATORS or word.endswith(";"):
            if word.endswith(";") and word != ";":
                current.append(word[:-1])
            while current and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", current[0]):
                current.pop(0)
            if current:
                found.append(current)
            current = []
        else:
            current.append(word)
    return found


def synopsis_variants(text: str) -> list[str]:
    """A synopsis with ``[optional]`` groups, as two command lines: every group present, and none (nesting allowed)."""
    full = text.replace("[", " ").replace("]", " ")
    bare = text
    while True:
        shorter = re.sub(r"\[[^\[\]]*\]", " ", bare)
        if shorter == bare:
            break
        bare = shorter
    return [full, bare] if bare != full else [full]
