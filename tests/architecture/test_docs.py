"""The README, the pages under docs/ and the benchmark pages (tasks/*/README.md) agree with the code.

Each test reads every page (``tests/helpers/docs_pages.py`` splits them) and lists every finding, page by page. A
page fails when:

* a ``temporal-tasks`` command line does not parse with our CLI (:func:`temporal_tasks.cli.build_parser`);
* a task or group name is neither one of ours nor one of lmms-eval's;
* a metric key of a metric-key table is not in the configuration of the tasks its row is about;
* the README's command table leaves out a subcommand (or lists one that does not exist);
* a relative link points to no file, or its ``#anchor`` to no heading (GitHub's anchors);
* a table's first row has no ``|---|`` line under it (a blank line splitting a table turns its rest into text);
* an lmms-eval example command saves nothing (no ``--output_path``);
* a test it names (``tests/<path>.py::<name>``) does not exist, a row of the flag table (docs/flags.md) names no
  test, or a passage promises a test ("a test checks", "tested", ...) without naming one.

How a page is read (the rules, so that a page can be written to pass for the right reason):

* **Commands.** Code blocks in a shell language (or none) hold commands: continued lines joined, ``# comments``
  dropped, split at ``&&``, ``||``, ``;`` and ``|``, leading ``VAR=value`` words skipped, and each ``$(…)`` a command
  of its own. A command that starts with ``temporal-tasks`` must parse completely. So must each row of the README's
  command table (a synopsis). An inline code span that starts with ``temporal-tasks`` is a mention: its subcommand
  must exist and each option it names must be one of that subcommand's (a value with choices one of them), a
  positional word only where the subcommand takes one; required arguments may be left out.
* **Placeholders.** In a synopsis, ``[…]`` groups are optional and ``a|b`` gives alternatives: it is checked with
  every group present (first alternative) and with none. An ALL-CAPS word (``DIR``, ``SAMPLES…``, ``B``) stands for
  a value: after an option with choices it becomes the first choice, after a number option ``1``. A lone ``…`` (or
  ``...``) is a value where an option still needs one, else "more of the same" and dropped; a trailing ``…`` on a
  word is dropped.
* **Task names.** The values of ``--tasks`` (in commands and in inline code), and every inline code span that is one
  word starting with a benchmark's name and an underscore (``vinoground_text_blind``). ``*`` in a name is a wildcard
  that must match some task; a name with ``<…>`` (``<task>_blind``) or an ALL-CAPS placeholder is not checked.
  Known names: ours (:func:`temporal_tasks.harness.task_configs.our_tasks`) and lmms-eval's (the ``task:`` and
  ``group:`` lines of its task YAMLs, read only when a name is not ours).
* **Metric keys.** A table with a column headed ``key``, ``keys``, ``metric keys`` or ``headline keys``: each
  backticked key in that column must be a metric of one of the tasks the row is about: the tasks named in the row's
  ``task``/``tasks`` column if the table has one, else the page's benchmark tasks (``tasks/<bench>/README.md``),
  else all our tasks. ``a_ci_low/high`` is two keys; ``<category>``, ``*`` and an ALL-CAPS word (``M``) match any
  part of a key. A group's keys are those of its ``aggregate_metric_list``.
* **Links.** Every Markdown link or image outside code whose target is not a URL: the file or folder must exist;
  an anchor must be the GitHub anchor of a heading of the Markdown page it names.
* **Task names.** (continued) Inline code in a table column headed ``measurement`` names ``bench`` rows, not tasks.
* **Tests named.** ``tests/<path>.py::<name>`` anywhere on a page (``[…]`` parameters and ``Class::`` allowed):
  the file must exist and define ``<name>`` (a ``def`` at module level or in the named class); ``tests/<path>.py``
  alone: the file must exist (in pyproject.toml's comments too). A passage (a paragraph, a list item or a table
  row) with a promise of a test (:data:`PROMISE`) must name a test file; docs/flags.md's table needs a ``test``
  column, each row naming a test; each item of docs/reliability.md (what the tests guarantee) names its tests.
* **lmms-eval examples.** A run of ``lmms-eval``, ``lmms_eval`` or ``-m lmms_eval`` (a command with ``--tasks``, in a
  code block or inline code) passes ``--output_path``, unless it elides arguments with ``...`` (a variation of a
  command shown in full).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import importlib.util
import io
import re
from pathlib import Path

import pytest

from temporal_tasks.api.registry import registered
from temporal_tasks.cli import build_parser
from temporal_tasks.harness.task_configs import load_task_yaml, our_tasks
from tests.helpers.docs_pages import ROOT, Page, commands, name, pages, synopsis_variants

ELLIPSIS = ("…", "...")
PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9_]*")
KEY_COLUMNS = ("key", "keys", "metric keys", "headline keys")
TASK_COLUMNS = ("task", "tasks")
KEY_WILDCARD = re.compile(r"<[^>]*>|\*|(?<![A-Za-z])[A-Z]+(?![A-Za-z])")
PAGES = [Page.read(path) for path in pages()]
TEST_REF = re.compile(r"\btests/[\w/]+\.py(?:::[\w]+(?:::[\w]+)?(?:\[[^\]\s`]*\])?)?")
# what promises a test: "a test checks", "the full-size tests check", "tested through the real CLI", "a test per row"
# ("not tested here" promises none)
PROMISE = re.compile(
    r"\b(?:a|the|one|each|every)(?: [\w-]+)? tests? (?:checks?|runs?|compares?|finds?|fails?|does|re-reads?)\b"
    r"|(?<!not )\btested\b(?! here)|\ba test (?:each|per row)\b",
    re.IGNORECASE,
)


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """Each subcommand's parser. argparse keeps them on its (private) subparsers action and has no public getter."""
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("temporal-tasks has no subcommands")


def options(sub: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """A subcommand's options by every spelling (``--out``, ``-v``)."""
    return {spelling: action for action in sub._actions for spelling in action.option_strings}


def takes_value(action: argparse.Action) -> bool:
    return action.nargs != 0


def fill_placeholders(words: list[str], sub: argparse.ArgumentParser | None) -> list[str]:
    """``words`` with the placeholder rules of the module docstring applied (for ``sub``'s options)."""
    known = options(sub) if sub is not None else {}
    out: list[str] = []
    wanting: argparse.Action | None = None  # the option before this word, if it still needs its value
    for word in words:
        if word in ELLIPSIS and wanting is None:
            continue
        word = word.removesuffix("…").removesuffix("...") or word
        if wanting is not None and (word in ELLIPSIS or PLACEHOLDER.fullmatch(word)):
            if wanting.choices:
                word = str(next(iter(wanting.choices)))
            elif wanting.type in (int, float):
                word = "1"
        elif "|" in word:
            word = word.split("|")[0]
        out.append(word)
        action = known.get(word.split("=")[0]) if word.startswith("-") else None
        wanting = action if action is not None and takes_value(action) and "=" not in word else None
    return out


def parse_error(words: list[str]) -> str | None:
    """Why ``temporal-tasks <words>`` does not parse (argparse's message), or None when it does."""
    sub = subcommands().get(words[0]) if words else None
    argv = fill_placeholders(words, sub)
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        try:
            build_parser().parse_args(argv)
        except SystemExit as exc:
            return stderr.getvalue().strip().splitlines()[-1] if exc.code else None
    return None


def mention_error(words: list[str]) -> str | None:
    """Why the inline mention ``temporal-tasks <words>`` names something the CLI does not have, or None."""
    subs = subcommands()
    if not words or words[0] not in subs:
        return f"no subcommand {words[0] if words else '(none)'!r}"
    sub = subs[words[0]]
    known = options(sub)
    positionals = [a for a in sub._actions if not a.option_strings and not isinstance(a, argparse._HelpAction)]
    rest = fill_placeholders(words[1:], sub)
    i = 0
    while i < len(rest):
        word = rest[i]
        if word.startswith("-"):
            spelling, _, inline = word.partition("=")
            if spelling not in known:
                return f"{words[0]} has no option {spelling}"
            action = known[spelling]
            if takes_value(action) and not inline and i + 1 < len(rest):
                inline, i = rest[i + 1], i + 1
            if action.choices and inline and inline not in action.choices:
                return f"{words[0]} {spelling}: {inline!r} is not one of {sorted(action.choices)}"
        elif not positionals:
            return f"{words[0]} takes no positional argument ({word!r})"
        i += 1
    return None


def readme_command_rows() -> list[str]:
    """The first cell of each row of the README's command table (the table headed ``command``)."""
    readme = next(p for p in PAGES if name(p.path) == "README.md")
    for table in readme.tables():
        if table[0][0].lower() == "command":
            return [row[0].strip("`") for row in table[1:]]
    raise AssertionError("README.md has no command table (a table whose first column is headed 'command')")


def test_temporal_tasks_commands_parse():
    findings = []
    for page in PAGES:
        for line in page.shell_lines():
            for words in commands(line):
                if words[0] == "temporal-tasks":
                    for variant in synopsis_variants(" ".join(words[1:])):
                        error = parse_error(variant.split())
                        if error:
                            findings.append(f"{name(page.path)}: `{' '.join(words)}`: {error}")
        for span in page.code_spans():
            if span.strip() == "temporal-tasks":  # the program's name, not a command
                continue
            for words in commands(span):
                if words[0] == "temporal-tasks" and span.lstrip().startswith("temporal-tasks "):
                    for variant in synopsis_variants(" ".join(words[1:])):
                        error = mention_error(variant.split())
                        if error:
                            findings.append(f"{name(page.path)}: `{span}`: {error}")
                elif words[0] == "temporal-tasks":  # a $(temporal-tasks …) inside another command
                    error = parse_error(words[1:])
                    if error:
                        findings.append(f"{name(page.path)}: `{span}`: {error}")
    for row in readme_command_rows():
        for variant in synopsis_variants(row.replace("\\|", "|")):
            error = parse_error(variant.split()[1:])
            if error:
                findings.append(f"README.md command table: `{row}`: {error}")
    assert not findings, "commands that do not parse with temporal-tasks:\n" + "\n".join(dict.fromkeys(findings))


def test_readme_command_table_lists_every_subcommand():
    listed = [row.split()[1] for row in readme_command_rows()]
    missing = sorted(set(subcommands()) - set(listed))
    unknown = sorted(set(listed) - set(subcommands()))
    assert not missing and not unknown, f"README command table: missing {missing}, not a subcommand {unknown}"


@functools.cache
def lmms_eval_names() -> frozenset[str]:
    """lmms-eval's task and group names, from the ``task:``/``group:`` lines of its YAMLs (no lmms-eval import)."""
    spec = importlib.util.find_spec("lmms_eval")
    assert spec is not None and spec.submodule_search_locations, "lmms-eval is not installed"
    found = set()
    for path in (Path(spec.submodule_search_locations[0]) / "tasks").rglob("*.yaml"):
        text = path.read_text(encoding="utf-8", errors="replace")
        found.update(re.findall(r"^(?:task|group):\s*['\"]?([A-Za-z0-9_\-.]+)['\"]?\s*$", text, re.MULTILINE))
    return frozenset(found)


def unknown_task(mention: str) -> bool:
    """True when ``mention`` (a name, or one with ``*`` wildcards) is neither ours nor lmms-eval's."""
    if "<" in mention or PLACEHOLDER.fullmatch(mention) or mention in ELLIPSIS or mention == "SUBSTITUTION":
        return False
    pattern = re.compile(re.escape(mention).replace(r"\*", ".*"))
    for names in (set(our_tasks()), lmms_eval_names()):
        if any(pattern.fullmatch(n) for n in names):
            return False
    return True


def task_mentions(page: Page) -> list[str]:
    """The task and group names the page mentions (see the module docstring)."""
    benches = "|".join(re.escape(b) for b in registered())
    one_word = re.compile(rf"(?:{benches})(?:_[a-z0-9*<>]+)+\*?|(?:{benches})\*")
    found = []
    texts = [w for line in page.shell_lines() for words in commands(line) for w in [" ".join(words)]]
    for text in [*texts, *page.code_spans()]:
        for value in re.findall(r"--tasks[ =](\S+)", text):
            found.extend(v for v in value.strip("\"'[]").split(",") if v)
    # the names in a table column headed "measurement" are temporal-tasks bench's, not tasks
    measured = {m for table in page.tables() if table[0][0].lower() == "measurement" for row in table for m in row[:1]}
    found.extend(span for span in page.code_spans() if one_word.fullmatch(span) and f"`{span}`" not in measured)
    return found


def test_task_names_exist():
    findings = [
        f"{name(page.path)}: `{mention}`" for page in PAGES for mention in task_mentions(page) if unknown_task(mention)
    ]
    assert not findings, "task or group names that are neither ours nor lmms-eval's:\n" + "\n".join(findings)


@functools.cache
def metric_keys(task: str) -> frozenset[str]:
    """The metric keys of our task (a group: its ``aggregate_metric_list``, without the ``,<filter>`` part)."""
    cfg = load_task_yaml(Path(our_tasks()[task][1]))
    listed = cfg.get("metric_list") or cfg.get("aggregate_metric_list") or []
    return frozenset(m["metric"].split(",")[0] for m in listed)  # a group's entry may read "mba,none"


def key_pattern(key: str) -> re.Pattern:
    """The pattern a real key must match: ``<…>`` and an ALL-CAPS word match a part of a key, ``*`` any run."""
    regex, pos = "", 0
    for m in KEY_WILDCARD.finditer(key):
        regex += re.escape(key[pos : m.start()]) + ("[a-z0-9_]*" if m.group() == "*" else "[a-z0-9_]+")
        pos = m.end()
    return re.compile(regex + re.escape(key[pos:]))


def table_keys(cell: str) -> list[str]:
    """The metric keys a table cell names (backticked; ``a_ci_low/high`` is ``a_ci_low`` and ``a_ci_high``)."""
    found = []
    for key in re.findall(r"`([^`]+)`", cell):
        if re.fullmatch(r"[A-Za-z<][A-Za-z0-9_<>*/]*", key):
            first, *others = key.split("/")
            found += [first, *(first.rsplit("_", 1)[0] + "_" + other for other in others)]
    return found


def table_scope(page: Page, header: list[str], row: list[str]) -> list[str]:
    """The tasks a metric-key table's row is about (see the module docstring)."""
    ours = our_tasks()
    columns = [i for i, h in enumerate(header) if h.lower() in TASK_COLUMNS]
    named = [t for i in columns for t in re.findall(r"`([^`]+)`", row[i]) if t in ours]
    if named:
        return named
    folder = page.path.parent
    if folder.parent == ROOT / "tasks":
        return [t for t, (_kind, path) in ours.items() if Path(path).parent.name == folder.name]
    return list(ours)


def test_metric_keys_exist():
    findings = []
    for page in PAGES:
        for table in page.tables():
            header = table[0]
            key_columns = [i for i, h in enumerate(header) if h.lower() in KEY_COLUMNS]
            for row in table[1:]:
                scope = table_scope(page, header, row)
                keys = set().union(*(metric_keys(t) for t in scope))
                for i in key_columns:
                    for key in table_keys(row[i] if i < len(row) else ""):
                        if not any(key_pattern(key).fullmatch(k) for k in keys):
                            tasks = "any of our tasks" if len(scope) == len(our_tasks()) else ", ".join(scope)
                            findings.append(f"{name(page.path)}: `{key}` is no metric key of {tasks}")
    assert not findings, "metric keys not in the tasks' configs:\n" + "\n".join(findings)


def test_tables_have_their_header_line():
    findings = [f"{name(page.path)}:{line}" for page in PAGES for line in page.headless_tables()]
    assert not findings, "table rows GitHub shows as text (no |---| line under the table's first row):\n" + "\n".join(
        findings
    )


def test_relative_links_and_anchors_resolve():
    findings = []
    by_path = {page.path: page for page in PAGES}
    for page in PAGES:
        for target in page.links():
            if re.match(r"[a-z]+:", target):
                continue
            path_part, _, anchor = target.partition("#")
            path = (page.path.parent / path_part).resolve() if path_part else page.path
            if not path.exists():
                findings.append(f"{name(page.path)}: ({target}): no such file or folder")
                continue
            if anchor:
                if path.suffix != ".md":
                    findings.append(f"{name(page.path)}: ({target}): an anchor on a page that is not Markdown")
                    continue
                headings = (by_path.get(path) or Page.read(path)).anchors()
                if anchor not in headings:
                    findings.append(f"{name(page.path)}: ({target}): no heading with the anchor #{anchor}")
    assert not findings, "links that point nowhere:\n" + "\n".join(findings)


def is_lmms_eval(words: list[str]) -> bool:
    """``lmms-eval …``, ``lmms_eval …`` or any launcher's ``-m lmms_eval …``."""
    if words[0] in ("lmms-eval", "lmms_eval"):
        return True
    return any(a == "-m" and b == "lmms_eval" for a, b in zip(words, words[1:], strict=False))


def test_lmms_eval_examples_save_their_results():
    findings = []
    for page in PAGES:
        lines = [*page.shell_lines(), *page.code_spans()]
        for words in (w for line in lines for w in commands(line)):
            run = is_lmms_eval(words) and any(w.startswith("--tasks") for w in words)
            if run and "--output_path" not in words and not set(words) & set(ELLIPSIS):
                findings.append(f"{name(page.path)}: `{' '.join(words)}`")
    assert not findings, "lmms-eval examples without --output_path (they save nothing):\n" + "\n".join(findings)


def test_one_spelling_per_option():
    """One name for one meaning across the subcommands: no option spelled two ways (``--num-frames`` and
    ``--num_frames``), and the output location is ``--out`` everywhere."""
    spellings: dict[str, set[str]] = {}
    for sub in subcommands().values():
        for spelling in options(sub):
            spellings.setdefault(spelling.lstrip("-").replace("_", "-").lower(), set()).add(spelling)
    assert not [s for s in spellings.values() if len(s) > 1], spellings
    synonyms_of_out = {"--output", "--output-dir", "--out-dir", "--outdir", "-o"}
    assert not synonyms_of_out & {s for group in spellings.values() for s in group}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("temporal-tasks view RESULTS… [--out FILE] [--frames K]", None),
        ("temporal-tasks rescore SAMPLES… --output DIR", "unrecognized arguments: --output DIR"),
        ("temporal-tasks export --benchmark B SAMPLES… --out DIR", None),
        ("temporal-tasks bench --order fast", "invalid choice: 'fast'"),
    ],
)
def test_the_command_check_can_fail(line, expected):
    error = parse_error(synopsis_variants(line)[0].split()[1:])
    assert (error is None) if expected is None else (expected in error), error


@functools.cache
def defined_tests(path: Path) -> frozenset[str]:
    """The test functions of a test module: ``name`` at module level, ``Class::name`` in a class."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.add(node.name)
        elif isinstance(node, ast.ClassDef):
            found.update(f"{node.name}::{f.name}" for f in node.body if isinstance(f, ast.FunctionDef))
    return frozenset(found)


def missing_test(ref: str) -> str | None:
    """Why the reference ``tests/<path>.py[::<name>]`` names nothing, or None when it names a test (or a file)."""
    file, _, test = ref.partition("::")
    path = ROOT / file
    if not path.is_file():
        return f"no file {file}"
    test = test.split("[")[0]
    if test and test not in defined_tests(path):
        return f"{file} defines no {test}"
    return None


def passages(page: Page) -> list[tuple[int, str]]:
    """The page's prose as passages, each with its first line number: a paragraph, a list item, a table row or a
    heading (code blocks are not prose)."""
    found: list[tuple[int, list[str]]] = []
    open_passage = False
    for i, line in enumerate(page.prose, start=1):
        stripped = line.strip()
        starts = re.match(r"(?:[-*]|\d+\.)\s|\||#", stripped) is not None
        if not stripped:
            open_passage = False
        elif starts or not open_passage or found[-1][1][-1].lstrip().startswith(("|", "#")):
            found.append((i, [stripped]))
            open_passage = True
        else:
            found[-1][1].append(stripped)
    return [(i, " ".join(lines)) for i, lines in found]


def test_named_tests_exist():
    findings = [
        f"{name(page.path)}:{i}: `{ref}`: {why}"
        for page in PAGES
        for i, text in passages(page)
        for ref in TEST_REF.findall(text)
        if (why := missing_test(ref))
    ]
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")  # its comments name tests too
    findings += [f"pyproject.toml: `{ref}`: {why}" for ref in TEST_REF.findall(pyproject) if (why := missing_test(ref))]
    assert not findings, "tests the pages name that do not exist:\n" + "\n".join(findings)


def test_promised_tests_are_named():
    findings = [
        f"{name(page.path)}:{i}: {text[:120]}"
        for page in PAGES
        for i, text in passages(page)
        if PROMISE.search(text) and not TEST_REF.search(text)
    ]
    assert not findings, "passages that promise a test and name none (name it: tests/<path>.py::<name>):\n" + (
        "\n".join(findings)
    )


def test_each_flag_row_names_its_test():
    flags = next(p for p in PAGES if name(p.path) == "docs/flags.md")
    (table,) = [t for t in flags.tables() if t[0][0].lower() == "flag"]
    columns = [i for i, h in enumerate(table[0]) if h.lower() in ("test", "tests")]
    assert columns, "docs/flags.md: the flag table has no test column"
    nameless = [row[0] for row in table[1:] if not any("::" in r for r in TEST_REF.findall(row[columns[0]]))]
    assert not nameless, f"docs/flags.md: rows that name no test (tests/<path>.py::<name>): {nameless}"


def test_each_reliability_guarantee_names_its_tests():
    page = next(p for p in PAGES if name(p.path) == "docs/reliability.md")
    items = [text for _i, text in passages(page) if text.startswith("- ")]
    assert items, "docs/reliability.md has no list of guarantees"
    nameless = [text[:80] for text in items if not any("::" in r for r in TEST_REF.findall(text))]
    assert not nameless, f"docs/reliability.md: guarantees that name no test: {nameless}"


@pytest.mark.parametrize(
    ("text", "promises"),
    [
        ("A test checks it.", True),
        ("the full-size tests check every main task", True),
        ("Tested through the real CLI: a second run", True),
        ("(the table, a test per row: flags.md)", True),
        ("they need a GPU, so they are not tested here", False),
        ("VELOCITI resamples within each test and averages the tests", False),
    ],
)
def test_the_promise_check_can_fail(text, promises):
    assert bool(PROMISE.search(text)) is promises


def test_the_test_name_check_can_fail():
    assert missing_test("tests/architecture/test_docs.py::test_named_tests_exist") is None
    assert missing_test("tests/architecture/test_docs.py::test_the_promise_check_can_fail[text0-True]") is None
    assert missing_test("tests/architecture/test_docs.py::test_no_such_test") == (
        "tests/architecture/test_docs.py defines no test_no_such_test"
    )
    assert missing_test("tests/e2e/test_no_such_file.py::test_x") == "no file tests/e2e/test_no_such_file.py"


def test_each_benchmark_page_names_the_commit_of_the_official_code():
    """A benchmark page says what the official scripts do; it names the commit it read them at (a 7-40 digit hex id
    with a letter and a digit), so a reader can check each claim against that version."""
    commit = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")
    findings = [
        name(page.path)
        for page in PAGES
        if page.path.parent.parent == ROOT / "tasks" and not commit.search("\n".join(page.prose))
    ]
    assert not findings, f"benchmark pages that name no commit of the official code they describe: {findings}"
