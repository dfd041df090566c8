"""The labelled answer corpus through both readings, and the parser never raising on random options."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import temporal_tasks.benchmarks.velociti.tasks  # noqa: F401 - registers the VELOCITI parsers
from temporal_tasks.answers.options import compile_options, option, option_keys
from temporal_tasks.answers.parsing import PARSERS, get_parser
from tests.helpers.answer_corpus import CORPUS, OPTIONS, PARSER, items
from tests.helpers.hypothesis_profiles import examples

ITEMS = items()
IDS = [f"{name}:{i}" for name, entries in CORPUS.items() for i in range(len(entries))]


def test_corpus_is_large_and_covers_every_benchmark():
    assert len(ITEMS) >= 300
    per_parser = Counter(PARSER[name] for name, *_ in ITEMS)
    assert set(per_parser) == {"first_char_ab", "timeblind_yes_no", "timeblind_mc", "velociti_yes_no", "velociti_mc"}
    assert len({answer for _n, answer, *_ in ITEMS}) > 220  # not the same few answers over and over
    # the hard ones say why: every unreadable answer and every answer the official rule misreads
    hard = [(a, why) for _n, a, careful, official, why in ITEMS if careful is None or official not in (None, careful)]
    assert all(why for _a, why in hard), [a for a, why in hard if not why]
    # both kinds of disagreement are covered: robust reads what official cannot, and official misreads
    assert sum(1 for _n, _a, c, o, _w in ITEMS if c is not None and o is None) >= 50
    assert sum(1 for _n, _a, c, o, _w in ITEMS if o is not None and c != o) >= 30


@pytest.mark.parametrize(("name", "answer", "careful", "official", "why"), ITEMS, ids=IDS)
def test_robust_reads_like_a_careful_reviewer(name, answer, careful, official, why):
    parser = get_parser(PARSER[name])
    assert parser.parse(answer, "robust", OPTIONS[name]) == careful, why
    # the compact form payloads carry reads the same
    assert parser.parse(answer, "robust", option_keys(OPTIONS[name])) == careful, why


@pytest.mark.parametrize(("name", "answer", "careful", "official", "why"), ITEMS, ids=IDS)
def test_official_follows_the_official_rule(name, answer, careful, official, why):
    parser = get_parser(PARSER[name])
    assert parser.parse(answer, "official", OPTIONS[name]) == official, why
    assert parser.parse(answer, "official") == official  # options never change the official rule


def test_issue_examples():
    # The answers the issue reports as misread, with the options of their questions.
    text = OPTIONS["vino_text_waving"]
    first = get_parser("first_char_ab")
    assert first.parse("A man is waving", "robust", text) == "B"
    assert first.parse("A woman talks to a man", "robust", OPTIONS["vino_text_talks"]) == "B"
    video = OPTIONS["vino_video"]
    assert first.parse("The second segment.", "robust", video) == "B"
    assert first.parse("First segment", "robust", video) == "A"
    yes_no = get_parser("timeblind_yes_no")
    for hedge in ("Yes and no.", "I have no idea.", "Yes. No."):
        assert yes_no.parse(hedge, "robust") is None, hedge


_words = st.text(alphabet="AaBbYesNo <>/think*()_.:\n", max_size=40)


@settings(max_examples=examples(ci=600, deep=600), deadline=None)
@given(
    text=st.one_of(st.text(max_size=200), _words),
    texts=st.lists(st.one_of(st.text(max_size=60), _words), min_size=0, max_size=3),
    names=st.lists(st.text(max_size=20), max_size=3),
)
def test_parsers_never_raise_with_random_options(text, texts, names):
    opts = [option(label, t, names) for label, t in zip("AB", texts, strict=False)]
    for parser in PARSERS.values():
        for options in (opts, option_keys(opts), None, [{"label": "A"}], [["A", "x", 3]], "garbage"):
            # the raw rules: Parser.parse would turn an exception into "unreadable" and hide it
            for label in (parser.robust(text, compile_options(options)), parser.official(text)):
                assert label is None or label in parser.labels
