"""The questions' options (``answers/options.py``): the docs' schema, the compact keys payloads carry, their
compiled form, matching an answer's words against them, and options laid out one per line in a prompt."""

from __future__ import annotations

from temporal_tasks.answers.answer_text import words
from temporal_tasks.answers.options import (
    NO_OPTIONS,
    YES_NO_OPTIONS,
    compile_options,
    find_options,
    line_options,
    option,
    option_keys,
    single_option,
)

CAPTIONS = [option("A", "A man is waving"), option("B", "The man stops waving", ("second caption",))]


def test_an_option_has_the_same_json_keys_for_every_doc():
    assert option("A") == {"label": "A", "text": "", "names": []}
    assert option(1, None, ("x",)) == {"label": "1", "text": "", "names": ["x"]}
    assert [o["label"] for o in YES_NO_OPTIONS] == ["yes", "no"]


def test_option_keys_drop_a_leading_article_and_keep_one_key_per_phrase():
    keys = option_keys(CAPTIONS)
    assert [(label, n) for label, n, _digest in keys] == [("A", 3), ("B", 3), ("B", 2)]
    # "A man is waving" and "man is waving" are the same phrase once the article is dropped
    assert keys[0] == option_keys([option("A", "man is waving")])[0]
    assert option_keys(None) == [] and option_keys([option("", "text")]) == []


def test_compile_options_takes_the_docs_dicts_their_keys_or_nothing():
    from_docs, from_keys = compile_options(CAPTIONS), compile_options(option_keys(CAPTIONS))
    assert from_docs == from_keys and from_docs.lengths == (2, 3)
    assert compile_options(None) is NO_OPTIONS and compile_options([]) is NO_OPTIONS
    assert compile_options(from_docs) is from_docs
    assert compile_options([["A", 0, "x"], "junk", ["B", 2, "d"]]).phrases == (("B", 2, "d"),)  # malformed ignored


def test_an_answer_naming_one_option_reads_as_it_and_a_longer_match_wins():
    opts = compile_options(CAPTIONS)
    found = find_options(words("I think the man stops waving"), opts)
    assert set(found) == {"B"} and single_option(found) == "B"
    assert single_option(find_options(words("the second caption"), opts)) == "B"  # a name of the option
    both = find_options(words("a man is waving, then the man stops waving"), opts)
    assert set(both) == {"A", "B"} and single_option(both) is None  # both asserted: unreadable
    nested = compile_options([option("A", "waving"), option("B", "stops waving")])
    assert single_option(find_options(words("he stops waving"), nested)) == "B"  # "waving" lies inside B's match
    assert find_options(words("anything"), NO_OPTIONS) == {}


def test_line_options_read_a_prompts_labelled_lines():
    prompt = "Which caption fits?\nA. A man is waving\n  B) The man stops waving  \nAnswer with A or B."
    assert line_options(prompt) == [option("A", "A man is waving"), option("B", "The man stops waving")]
    assert line_options("A. only one option") is None
    assert line_options("A. one\nB. two\nC. three", letters="ABC")[2] == option("C", "three")
    assert line_options("A. first\nA. again\nB. second") == [option("A", "first"), option("B", "second")]
