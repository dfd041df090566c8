"""A labelled corpus of realistic answers for the four benchmarks' generated questions.

Each entry is ``(answer, careful, official, why)``:

- ``careful``: the label a careful reviewer gives the answer knowing the question's options
  (``None`` = unreadable: it counts wrong and goes into ``invalid_rate``); the robust parser must
  agree with every one.
- ``official``: what the benchmark's official scorer reads, worked out by hand from its rule in
  ``/work/shared/specs`` (Vinoground/TemporalBench: the first character, any case; TimeBlind: the
  ``extract_answer`` regex cascade; VELOCITI: the case-sensitive ``'Yes'``/``'No'`` substring test
  and the exact first token ``A``/``B``).
- ``why``: a one-line reason where the reading is not obvious.

Answers are written the way models answer: terse letters (Qwen, LLaVA), GPT-style sentences,
caption echoes, chain of thought, refusals, markdown and other languages' punctuation.
"""

from __future__ import annotations

from temporal_tasks.answers.options import YES_NO_OPTIONS, option

# --------------------------------------------------------------------------- option sets

VINO_VIDEO_QUESTION = (
    "Which video segment matches this caption? Note: The video contains two segments separated by a 2-second "
    "black frame. Caption: a man waves at the camera\nA. First segment (before black frame)\nB. Second segment "
    "(after black frame)\nAnswer with the option's letter from the given choices directly."
)
TB_HAND = (
    "A person closes the door of the fridge with his left hand while looking at the bowl of fruit he holds in his "
    "right hand. He transfers the bowl from his right hand to his left hand. He picks up a fruit from the bowl with "
    "his {h} hand. He tosses the fruit up with his {h} hand and catches it with the same hand while walking forward."
)
TB_A, TB_B = TB_HAND.format(h="left"), TB_HAND.format(h="right")


def _vino_video_options() -> list[dict]:
    from temporal_tasks.benchmarks.vinoground.tasks import question_options

    return question_options({"question": VINO_VIDEO_QUESTION, "GT": "A"}, "video", {}, "pos")


OPTIONS = {
    "vino_text_waving": [option("A", "a woman talks to a man"), option("B", "a man is waving")],
    "vino_text_talks": [option("A", "a man is waving"), option("B", "a woman talks to a man")],
    "vino_text_toddler": [
        option("A", "a toddler picks up a water bottle and drinks before he plays"),
        option("B", "a toddler plays before he picks up a water bottle and drinks"),
    ],
    "vino_text_dog": [option("A", "the dog runs"), option("B", "the dog runs after the ball")],
    "vino_video": _vino_video_options(),
    "tb_hand": [option("A", TB_A), option("B", TB_B)],
    "tb_glass": [
        option("A", "A man pours water into a glass, then drinks it."),
        option("B", "A man drinks from a glass, then pours water into it."),
    ],
    "timeblind_yn": [dict(o) for o in YES_NO_OPTIONS],
    "timeblind_mc": [
        option("A", "The girl puts down her cup, and a moment later the boy starts eating."),
        option("B", "The boy starts eating as soon as the girl puts down her cup."),
    ],
    "timeblind_mc_dir": [option("A", "To the left."), option("B", "To the right.")],
    "velociti_yn": [dict(o) for o in YES_NO_OPTIONS],
    "velociti_mc": [
        option("A", "A man in a red shirt throws the ball to the boy"),
        option("B", "The boy throws the ball to a man in a red shirt"),
    ],
}

# option set -> parser name
PARSER = {
    "vino_text_waving": "first_char_ab",
    "vino_text_talks": "first_char_ab",
    "vino_text_toddler": "first_char_ab",
    "vino_text_dog": "first_char_ab",
    "vino_video": "first_char_ab",
    "tb_hand": "first_char_ab",
    "tb_glass": "first_char_ab",
    "timeblind_yn": "timeblind_yes_no",
    "timeblind_mc": "timeblind_mc",
    "timeblind_mc_dir": "timeblind_mc",
    "velociti_yn": "velociti_yes_no",
    "velociti_mc": "velociti_mc",
}

N = None

# --------------------------------------------------------------------------- answers

CORPUS: dict[str, list[tuple[str, str | None, str | None, str]]] = {
    # Vinoground text score: A "a woman talks to a man", B "a man is waving". Official: first character.
    "vino_text_waving": [
        ("A", "A", "A", ""),
        ("B", "B", "B", ""),
        ("a", "A", "A", ""),
        ("b", "B", "B", ""),
        ("B.", "B", "B", ""),
        ("A.", "A", "A", ""),
        ("(B)", "B", N, "official: the first character is '('"),
        ("**A**", "A", N, "markdown bold; official sees '*'"),
        ("Ｂ", "B", N, "full-width letter; official compares the raw first character"),
        ("答案：B", "B", N, "'答案' = 'answer', full-width colon"),
        ("Answer: B", "B", "A", "official reads the 'A' of 'Answer'"),
        ("Answer: A", "A", "A", ""),
        ("The answer is B.", "B", N, ""),
        ("A man is waving", "B", "A", "echo of caption B; 'A' is the article, not option A"),
        ("A woman talks to a man", "A", "A", "echo of caption A"),
        ("a man is waving.", "B", "A", "echo of caption B"),
        ("A man is waving.", "B", "A", "echo of caption B"),
        ("The man is waving.", "B", N, "echo of caption B with another article"),
        ('The caption that best describes the video is "a man is waving".', "B", N, "caption B quoted"),
        ("Option B", "B", N, ""),
        ("Option A: a woman talks to a man", "A", N, ""),
        ("B) a man is waving", "B", "B", ""),
        ("A. a woman talks to a man", "A", "A", ""),
        ("<think>The woman speaks first... no, the man waves.</think>B", "B", N, "reasoning block dropped"),
        ("<think>Let me compare. Option A mentions talking.</think>\n\nThe answer is B.", "B", N, ""),
        ("Final answer: A", "A", N, ""),
        ("I think B", "B", N, "a lone capital letter is the choice"),
        ("I think the answer is A.", "A", N, ""),
        ("Both", N, "B", "hedge; official reads the 'B' of 'Both'"),
        ("Both captions describe the video.", N, "B", "asserts both options"),
        ("Neither", N, N, "hedge"),
        ("I'm not sure.", N, N, "hedge"),
        ("I cannot tell from the video.", N, N, "hedge"),
        ("", N, N, "empty"),
        ("A or B", N, "A", "names both options"),
        ("A and B", N, "A", "names both options"),
        ("Sorry, I can't help with that.", N, N, "refusal"),
        ("As an AI, I cannot watch videos.", N, "A", "refusal; official reads the 'A' of 'As'"),
        ("B is correct", "B", "B", ""),
        ("A is correct.", "A", "A", "'A is' is a label, not the article"),
        ("A because the woman talks first", "A", "A", "'A because' is a label, not the article"),
        ("The correct caption is B.", "B", N, ""),
        ("B, a man is waving", "B", "B", ""),
        ("(A) a woman talks to a man", "A", N, ""),
        ("a woman talks to a man", "A", "A", "echo of caption A"),
        ("Based on the video, a man is waving.", "B", "B", "caption B inside a sentence; official reads 'Based'"),
        ("After watching, I'd say a woman talks to a man.", "A", "A", "caption A; official reads 'After'"),
        ("B\n\nExplanation: the man waves at the camera.", "B", "B", ""),
        ("A\nThe woman talks to the man before anything else.", "A", "A", "letter alone on the first line"),
        ("Answer：B", "B", "A", "full-width colon; official reads 'Answer'"),
        ("答案是A", "A", N, "'答案是' = 'the answer is'"),
        ("**Answer:** B", "B", N, "markdown around the marker"),
        ("The video shows a man waving, so B.", "B", N, "'a man waving' is no option's text; 'B' is the choice"),
        ("Yes", N, N, "not an option"),
        ("C", N, N, "not an option"),
        ("A man is waving and a woman talks to a man", N, "A", "asserts both captions"),
        ("Neither a woman talks to a man nor a man is waving", N, N, "hedge over both captions"),
        ("It is hard to say.", N, N, "hedge"),
        ("I'm not sure whether a man is waving.", N, N, "hedged caption"),
    ],
    # The second example the other way round: A "a man is waving", B "a woman talks to a man".
    "vino_text_talks": [
        ("A woman talks to a man", "B", "A", "echo of caption B; 'A' is the article"),
        ("A woman talks to a man.", "B", "A", "echo of caption B"),
        ("A man is waving", "A", "A", "echo of caption A"),
        ("The woman talks to a man", "B", N, "echo of caption B"),
        ("B", "B", "B", ""),
        ("A woman is talking", N, "A", "neither caption in full; 'A' is the article"),
    ],
    "vino_text_toddler": [
        ("a toddler plays before he picks up a water bottle and drinks", "B", "A", "echo of caption B"),
        ("A toddler picks up a water bottle and drinks before he plays.", "A", "A", "echo of caption A"),
        ("The toddler picks up a water bottle and drinks before he plays", "A", N, "echo of caption A"),
        ("B. a toddler plays before he picks up a water bottle and drinks", "B", "B", ""),
        ("<think>\nThe toddler plays with blocks first. Then he picks up the bottle.\n</think>\nB", "B", N, ""),
        ("Answer: a toddler plays before he picks up a water bottle and drinks", "B", "A", "marker, then caption B"),
        ("A toddler drinks.", N, "A", "no caption in full; 'A' is the article"),
    ],
    # One caption contains the other: the longer match wins.
    "vino_text_dog": [
        ("The dog runs after the ball.", "B", N, "caption B contains caption A; the longer wins"),
        ("the dog runs.", "A", N, "caption A only"),
        ("A dog runs after the ball", "B", "A", "caption B; 'A' is the article"),
        ("The dog runs, but not after the ball", "A", N, "only caption A in full"),
    ],
    # Vinoground video score: A "First segment (before black frame)", B "Second segment (after black frame)".
    "vino_video": [
        ("A", "A", "A", ""),
        ("B", "B", "B", ""),
        ("The second segment.", "B", N, "option B's name"),
        ("First segment", "A", N, "option A's name"),
        ("Second segment", "B", N, ""),
        ("second segment (after black frame)", "B", N, "option B's text"),
        ("B. Second segment (after black frame)", "B", "B", ""),
        ("A. First segment (before black frame)", "A", "A", ""),
        ("The first segment matches the caption.", "A", N, ""),
        ("The caption matches the second video.", "B", N, "'second video' names option B"),
        ("In the first clip", "A", N, ""),
        ("Both segments", N, "B", "asserts both options; official reads 'B' of 'Both'"),
        ("Neither segment", N, N, "hedge"),
        ("The segment after the black frame.", "B", N, ""),
        ("Before the black frame", "A", "B", "option A; official reads the 'B' of 'Before'"),
        ("Before black frame", "A", "B", "option A; official reads the 'B' of 'Before'"),
        ("After the black frame", "B", "A", "option B; official reads the 'A' of 'After'"),
        ("<think>The caption says a man waves; in the first part the man waves.</think>A", "A", N, ""),
        ("I'm not sure which segment.", N, N, "hedge"),
        ("(B)", "B", N, ""),
        ("**First segment**", "A", N, "markdown"),
        ("Answer: Second segment", "B", "A", "official reads 'Answer'"),
        ("The answer is the first segment.", "A", N, ""),
        ("Segment B", "B", N, ""),
        ("", N, N, "empty"),
        (
            "The video before the black frame shows a woman talking, after the black frame a man waves. "
            "Answer: the second segment.",
            "B",
            N,
            "reasoning names both, the final answer names B",
        ),  # fmt: skip
        ("B: Second segment (after black frame)", "B", "B", ""),
        ("first segment.", "A", N, ""),
        ("Both segments show the man waving.", N, "B", "asserts both"),
        ("The first segment (before black frame)", "A", N, ""),
        ("I cannot determine which segment matches.", N, N, "hedge"),
        ("答案：A", "A", N, ""),
        ("Ａ", "A", N, "full-width letter"),
        ("A.", "A", "A", ""),
        ("b.", "B", "B", ""),
        ("Second segment.", "B", N, ""),
        ("The first segment shows a woman; the second segment shows the man waving.", N, N, "names both segments"),
    ],
    # TemporalBench: two long captions that differ only in the hand (the second half).
    "tb_hand": [
        ("A", "A", "A", ""),
        ("B", "B", "B", ""),
        ("B.", "B", "B", ""),
        ("(A)", "A", N, ""),
        ("Answer: B", "B", "A", "official reads 'Answer'"),
        ("The answer is A.", "A", N, ""),
        (TB_B, "B", "A", "full echo of caption B"),
        ("The person" + TB_A[len("A person") :], "A", N, "full echo of caption A, other article"),
        (TB_A[:150], N, "A", "echo cut off before the captions differ"),
        ("B. " + TB_B[:60], "B", "B", "letter, then part of the caption"),
        ("<think>\nHe catches the fruit with the left hand... left vs right.\n</think>\nA", "A", N, ""),
        ("Option B", "B", N, ""),
        ("I choose B.", "B", N, ""),
        ("b", "B", "B", ""),
        ("a", "A", "A", ""),
        ("Both", N, "B", "hedge"),
        ("", N, N, "empty"),
        ("I'm sorry, but I can't determine which hand he uses.", N, N, "refusal"),
        ("**B**", "B", N, ""),
        ("B)", "B", "B", ""),
        ("The correct answer is (B).", "B", N, ""),
        ("He uses his right hand, so B.", "B", N, ""),
    ],
    "tb_glass": [
        ("A man drinks from a glass, then pours water into it.", "B", "A", "echo of caption B"),
        ("a man pours water into a glass, then drinks it", "A", "A", "echo of caption A"),
        ("The man pours water into a glass, then drinks it.", "A", N, "echo of caption A"),
        ("A man pours water into a glass then drinks it", "A", "A", "punctuation is ignored"),
        ("A.", "A", "A", ""),
        ("B", "B", "B", ""),
        ("Final Answer: B", "B", N, ""),
        ("final answer: a", "A", N, "lowercase label after the marker"),
        ("Answer: A man drinks from a glass, then pours water into it.", "B", "A", "marker, then caption B"),
        ("Ｂ.", "B", N, "full-width letter"),
        ("(a)", "A", N, ""),
        ("Not sure.", N, N, "hedge"),
        ("It is impossible to tell from the frames given.", N, N, "hedge"),
        ("Either could be right.", N, N, "hedge"),
        ("A or B, the video is unclear", N, "A", "names both"),
        ("B is the best description.", "B", "B", ""),
        ("A is the best description.", "A", "A", "'A is' is a label"),
        ("A man pours water", N, "A", "shared start of both captions; 'A' is the article"),
        ("Caption B", "B", N, ""),
        ("Answer: (A)", "A", "A", ""),
        ("答案：A", "A", N, ""),
        ("<think>\nHe drinks first.\n</think>\n\nB", "B", N, ""),
        ("<think>He drinks first. So B", N, N, "reasoning cut off before an answer"),
        ("The answer is B because he drinks first", "B", N, ""),
        ("A man drinks first, so the answer is B.", "B", "A", "final marker; official reads the article"),
        ("B - he drinks before pouring", "B", "B", ""),
    ],
    # TimeBlind yes/no. Official: an 'answer:' marker, else the first standalone yes/no.
    "timeblind_yn": [
        ("Yes", "yes", "yes", ""),
        ("No", "no", "no", ""),
        ("yes", "yes", "yes", ""),
        ("no.", "no", "no", ""),
        ("Yes.", "yes", "yes", ""),
        ("No, the milk carton moves quickly.", "no", "no", ""),
        ("Yes, it is moved slowly.", "yes", "yes", ""),
        ("**Yes**", "yes", N, "official: 'Yes' followed by '*' fails its lookahead"),
        ("Yes and no.", N, "yes", "asserts both"),
        ("I have no idea.", N, "no", "hedge; official takes the 'no' of 'no idea'"),
        ("Yes. No.", N, "yes", "asserts both"),
        ("Not sure.", N, N, "hedge"),
        ("I cannot tell from the video.", N, N, "hedge"),
        ("There is no doubt, so yes", "yes", "no", "'no doubt' is no answer"),
        ("Answer: No", "no", "no", ""),
        ("Final answer: yes", "yes", "yes", ""),
        ("<think>The carton moves fast, so no.</think>\nNo", "no", "no", ""),
        ("<think>At first I thought no, but it moves slowly.</think> Yes", "yes", "no", "reasoning block dropped"),
        ("No idea.", N, "no", "hedge"),
        ("Hard to say.", N, N, "hedge"),
        ("Yes, but I'm not sure.", "yes", "yes", "an answer with a disclaimer"),
        ("YES", "yes", "yes", ""),
        ("", N, N, "empty"),
        ("Yes, the boy starts eating shortly after.", "yes", "yes", ""),
        ("No. The boy starts eating at the same time.", "no", "no", ""),
        ("Answer：Yes", "yes", "yes", "full-width colon"),
        ("yes!", "yes", "yes", ""),
        ("No!", "no", "no", ""),
        ("(Yes)", "yes", "yes", ""),
        ("I'm sorry, I can't view videos.", N, N, "refusal"),
        ("The answer is yes.", "yes", "yes", ""),
        ("The answer is no, the carton moves fast.", "no", "no", ""),
        ("There is no slow movement; the answer is yes.", "yes", "no", "final marker; official takes 'no slow'"),
        ("Neither yes nor no.", N, "yes", "hedge"),
        ("Yes, yes.", "yes", "yes", ""),
        ("No, no.", "no", "no", ""),
        ("<think>The carton seems to move slowly, yes", N, "yes", "reasoning cut off before an answer"),
        ("Yes\nNo", N, "yes", "asserts both"),
        ("Final answer: No.", "no", "no", ""),
        ("yes, it does", "yes", "yes", ""),
        ("No, there is no pause.", "no", "no", ""),
        ("There is no way to tell.", N, "no", "hedge"),
    ],
    # TimeBlind MC, options inline: "Option A: … Option B: …". Official: the 5-pattern regex cascade.
    "timeblind_mc": [
        ("A", "A", "A", ""),
        ("B", "B", "B", ""),
        ("a", "A", "A", ""),
        ("b", "B", "B", ""),
        ("(B)", "B", "B", ""),
        ("B.", "B", "B", ""),
        ("Option B", "B", "B", ""),
        ("Answer: A", "A", "A", ""),
        ("The answer is B.", "B", "B", ""),
        (
            "<think>Option A says left. Option B says right.</think> <|begin_of_box|>B<|end_of_box|>",
            "B",
            "A",
            "official pattern 2 finds 'Option A' inside the reasoning",
        ),  # fmt: skip
        ("I would say a", N, "A", "a trailing article, not a choice"),
        ("The boy starts eating as soon as the girl puts down her cup.", "B", N, "echo of option B"),
        ("The girl puts down her cup, and a moment later the boy starts eating.", "A", "A", "echo of option A"),
        ("Option A: The girl puts down her cup, and a moment later the boy starts eating.", "A", "A", ""),
        ("B) The boy starts eating as soon as the girl puts down her cup.", "B", "B", ""),
        ("Both", N, N, "hedge"),
        ("Both options are plausible.", N, N, "asserts both"),
        ("Neither.", N, N, "hedge"),
        ("I'm not sure.", N, N, "hedge"),
        ("", N, N, "empty"),
        ("A or B", N, "A", "names both"),
        ("**B**", "B", "B", ""),
        ("Ｂ", "B", "B", "full-width letter (official NFKC-normalises)"),
        ("答案：A", "A", "A", ""),
        ("Final answer: B", "B", "B", ""),
        ("I think the answer is A because the girl pauses.", "A", "A", ""),
        ("The boy starts eating immediately, so B.", "B", "B", ""),
        ("There is a pause, so A.", "A", "A", "'a pause' is the article; 'A.' the choice"),
        ("There is a short pause before he eats, which matches B.", "B", "A", "official reads the article 'a'"),
        ("Yes", N, N, "not an option"),
        ("Option A", "A", "A", ""),
        ("(A)", "A", "A", ""),
        ("choice: B", "B", "B", ""),
        ("<think>\nThe girl puts the cup down and a moment later he eats.\n</think>\nA", "A", "A", ""),
        ("<think>\nHe eats as soon as she puts it down. Option B.\n</think>\nB", "B", "B", ""),
        ("<think>Option A is wrong.</think>B", "B", "A", "official pattern 2 inside the reasoning"),
        ("I cannot determine this from the video.", N, N, "hedge"),
        ("a.", "A", "A", ""),
        ("B, because the boy eats immediately.", "B", "B", ""),
    ],
    "timeblind_mc_dir": [
        ("It moves to the right.", "B", N, "option B's text"),
        ("To the left", "A", N, "option A's text"),
        ("Option B: To the right.", "B", "B", ""),
        ("The ball moves to the left, then to the right.", N, N, "both options' texts"),
        ("**Option A**", "A", "A", ""),
        ("A. To the left.", "A", "A", ""),
    ],
    # VELOCITI entailment. Official: Yes iff 'Yes' in the answer and 'No' not (case-sensitive), and vice versa.
    "velociti_yn": [
        ("Yes", "yes", "yes", ""),
        ("No", "no", "no", ""),
        ("yes", "yes", N, "official is case-sensitive"),
        ("no", "no", N, "official is case-sensitive"),
        ("Yes.", "yes", "yes", ""),
        ("No.", "no", "no", ""),
        ("Yes, the video entails the caption.", "yes", "yes", ""),
        ("No, the man does not pick up the ball.", "no", "no", ""),
        ("Yes and no.", N, "yes", "asserts both; official: lowercase 'no' is not 'No'"),
        ("Not sure.", N, "no", "hedge; official finds 'No' in 'Not'"),
        ("I have no idea.", N, N, "hedge"),
        ("YES", "yes", N, "official is case-sensitive"),
        ("NO", "no", N, "official is case-sensitive"),
        ("**Yes**", "yes", "yes", ""),
        ("<think>Is there a No? The caption says he runs.</think>Yes", "yes", N, "official sees both words"),
        ("Yes. No.", N, N, "asserts both"),
        ("The video does not entail the caption. No.", "no", "no", ""),
        ("Answer: Yes", "yes", "yes", ""),
        ("The answer is no.", "no", N, "official is case-sensitive"),
        ("", N, N, "empty"),
        ("I'm sorry, but I can't view the video.", N, N, "refusal"),
        ("No, it does not.", "no", "no", ""),
        ("Yes, there is no doubt.", "yes", "yes", "'no doubt' is no answer"),
        ("Yes, No doubt about it.", "yes", N, "'No doubt' is no answer; official sees both words"),
        ("Cannot tell.", N, N, "hedge"),
        ("No idea.", N, "no", "hedge"),
        ("Yes!", "yes", "yes", ""),
        ("yes, it does", "yes", N, "official is case-sensitive"),
        ("Final answer: No", "no", "no", ""),
        ("Hard to say, the video is blurry.", N, N, "hedge"),
        ("Neither", N, N, "hedge"),
        ("Yes\n\nThe man picks up the ball before running.", "yes", "yes", ""),
        ("no, the woman is not present", "no", N, "official is case-sensitive"),
        ("Certainly Yes!", "yes", "yes", ""),
        ("Yes, but None of the others.", "yes", N, "'None' is no answer; official finds 'No' in it"),
    ],
    # VELOCITI MC: A) C1 B) C2 in the prompt. Official: the first whitespace token is exactly 'A' or 'B'.
    "velociti_mc": [
        ("A", "A", "A", ""),
        ("B", "B", "B", ""),
        ("A)", "A", N, "official wants the bare token"),
        ("B.", "B", N, "official wants the bare token"),
        ("(A)", "A", N, ""),
        ("a", "A", N, "official is case-sensitive"),
        ("b", "B", N, "official is case-sensitive"),
        ("A man in a red shirt throws the ball to the boy", "A", "A", "echo of caption A"),
        ("The boy throws the ball to a man in a red shirt.", "B", N, "echo of caption B"),
        ("A boy throws the ball to a man in a red shirt", "B", "A", "echo of caption B; 'A' is the article"),
        ("B) The boy throws the ball to a man in a red shirt", "B", N, ""),
        ("A) A man in a red shirt throws the ball to the boy", "A", N, ""),
        ("Answer: B", "B", N, ""),
        ("The answer is A.", "A", N, ""),
        ("Both", N, N, "hedge"),
        ("", N, N, "empty"),
        ("Ｂ", "B", N, "full-width letter"),
        ("A or B", N, "A", "names both"),
        ("**B**", "B", N, ""),
        ("<think>the boy throws first</think>B", "B", N, ""),
        ("B\nThe boy is the one throwing.", "B", "B", ""),
        ("A because the man throws", "A", "A", ""),
        ("B because the boy throws", "B", "B", ""),
        ("I choose B", "B", N, ""),
        ("Neither caption.", N, N, "hedge"),
        ("I'm not sure.", N, N, "hedge"),
        ("答案：B", "B", N, ""),
        ("Option A", "A", N, ""),
        ("Caption A", "A", N, ""),
        ("B, the boy throws the ball", "B", N, "official: the first token is 'B,'"),
        ("A man throws the ball", N, "A", "no caption in full; 'A' is the article"),
        ("Final answer: A", "A", N, ""),
        ("The correct caption is B.", "B", N, ""),
        ("A and B are both possible", N, "A", "names both"),
        ("<think>unclosed reasoning... B", N, N, "reasoning cut off before an answer"),
    ],
}


def items() -> list[tuple[str, str, str | None, str | None, str]]:
    """``(option set, answer, careful, official, why)`` for every entry."""
    return [(name, *entry) for name, entries in CORPUS.items() for entry in entries]


# --------------------------------------------------------------------------- thinking models (issue 20)

# Answers in the styles of reasoning models: GLM-4.1V-Thinking (<answer> with <|begin_of_box|>), Qwen3-VL-Thinking
# (reasoning closed by a stray </think>, \boxed{}), Kimi-VL-Thinking (◁think▷…◁/think▷), o3/GPT-5 ("**Answer:**",
# "Final answer:"); explanations that name the other option around or after the boxed answer; thinking cut off by
# max_new_tokens. The first rows of each set are the issue's own examples. Official labels worked out by hand.
THINKING: dict[str, list[tuple[str, str | None, str | None, str]]] = {
    "timeblind_yn": [
        ("<answer><|begin_of_box|>No<|end_of_box|></answer>", "no", N, "official: 'No' followed by '<'"),
        ("<answer><|begin_of_box|>Yes<|end_of_box|></answer>", "yes", N, "official: 'Yes' followed by '<'"),
        ("<answer>No</answer>", "no", N, "'answer no answer' is no refusal"),
        ("<answer>Yes</answer>", "yes", N, ""),
        ("The answer is \\boxed{No}.", "no", N, "official: 'No' followed by '}'"),
        (
            "Looking at it again, the answer would be <|begin_of_box|>No<|end_of_box|> (as the premise of blinking "
            "doesn't hold, or the comparison isn't valid).",
            "no",
            N,
            "box mid-sentence",
        ),  # fmt: skip
        (
            "<think>The bottle is lifted quickly at first, then slowly. The question asks whether it is lifted "
            "slowly throughout; no.</think>\n<answer>No</answer>",
            "no",
            "no",
            "official: the 'no.' inside the reasoning",
        ),  # fmt: skip
        (
            "<think>Does the dog jump before the ball lands? Yes, it seems so at first, but looking again the ball "
            "lands first.</think><answer><|begin_of_box|>No<|end_of_box|></answer>",
            "no",
            "yes",
            "official: the 'Yes,' inside the reasoning",
        ),  # fmt: skip
        ("<think>\nThe person turns the knob clockwise twice.\n</think>\n<answer>\\boxed{Yes}</answer>", "yes", N, ""),
        (
            "The man opens the door and then the light turns on. The question asks if the light turns on before the "
            "door opens, which is not the case.\n</think>\n\nNo",
            "no",
            "no",
            "template-opened reasoning closed by a stray </think>",
        ),  # fmt: skip
        (
            "Okay, the ball rolls to the left, then stops. So the statement holds.\n</think>\n\n\\boxed{Yes}",
            "yes",
            N,
            "",
        ),
        (
            '**Answer:** No\n\nThe carton is moved quickly, not slowly, so the statement is false; a "yes" would '
            "require a slow, steady motion.",
            "no",
            "no",
            "the explanation quotes the other answer",
        ),  # fmt: skip
        (
            "Final answer: Yes \u2014 the boy waves before he sits down, not after; no other ordering fits.",
            "yes",
            "yes",
            "'no other' is a determiner",
        ),  # fmt: skip
        ("Final Answer: \\boxed{\\text{No}}", "no", N, "box inside the answer line"),
        ("\u25c1think\u25b7The girl claps three times, not twice.\u25c1/think\u25b7No", "no", "no", "Kimi-VL tokens"),
        (
            "\u25c1think\u25b7Is the car moving faster at the end? It seems to accelerate, yes.\u25c1/think\u25b7Yes",
            "yes",
            "yes",
            "",
        ),  # fmt: skip
        (
            "<think>The hand moves towards the cup. Is the motion fast? Let me look again at frames 3 to 5; the hand",
            N,
            N,
            "cut off while thinking",
        ),  # fmt: skip
        ("<think>At first glance no, the cup stays. But wait, frame 4 shows", N, "no", "cut off while thinking"),
        ("The answer is <|begin_of_box|>Yes<|end_of_box|>.", "yes", N, ""),
        ("<|begin_of_box|>No<|end_of_box|>", "no", N, ""),
        (
            "After thinking it through, the comparison in the question is wrong, so \\boxed{\\text{No}} is my "
            'answer; "yes" would mean the man sits first.',
            "no",
            N,
            "the box wins over the quoted other answer",
        ),  # fmt: skip
        ("<answer>No, the person is not running faster at the end.</answer>", "no", "no", ""),
        ("<answer>Yes. The lid is opened before the cup is lifted.</answer>", "yes", "yes", ""),
        ("<answer>Yes or No</answer>", N, "yes", "both answers inside the container"),
        ("<answer>Cannot determine</answer>", N, N, "a hedge inside the container"),
        ("\\boxed{No}", "no", N, ""),
        ("**Final Answer**\n\nNo", "no", "no", ""),
        (
            "The premise says the lid is closed slowly, but it snaps shut. <answer><|begin_of_box|>No<|end_of_box|>"
            '</answer> A "yes" would require a slow close.',
            "no",
            N,
            "explanation after the container",
        ),  # fmt: skip
        ("Yes, the glass is filled before it is lifted.\n\n**Answer:** Yes", "yes", "yes", ""),
        ("No.\n<answer>No</answer>", "no", "no", ""),
    ],
    "timeblind_mc": [
        (
            "Scrubbing is quick and rotating slow, so this matches Option <|begin_of_box|>A<|end_of_box|>. If "
            "scrubbing were slow and rotating quick, it would match Option B, but that is not what happens.",
            "A",
            "B",
            "the issue's example; official: 'Option B'",
        ),  # fmt: skip
        (
            "Option A suggests the moon becomes clearer over time, while Option B suggests it becomes blurrier over "
            "time. Thus, the appropriate choice is <|begin_of_box|>A<|end_of_box|>.",
            "A",
            "A",
            "the issue's example; both options described before the box",
        ),  # fmt: skip
        (
            "<think>Option A: pause then eat. Option B: eat immediately. The boy waits a moment.</think><answer>"
            "<|begin_of_box|>A<|end_of_box|></answer>",
            "A",
            "A",
            "",
        ),  # fmt: skip
        (
            "<think>The boy starts eating right when the cup touches the table. That is option B.</think>\n"
            "<answer>B</answer>",
            "B",
            "B",
            "",
        ),  # fmt: skip
        (
            "<think>Let me compare. A says there's a pause; B says immediately. I see a pause.</think>"
            "<answer>\\boxed{A}</answer>",
            "A",
            "A",
            "official: '{A}'",
        ),  # fmt: skip
        ("The girl sets her cup down and the boy waits before eating, so the answer is \\boxed{A}.", "A", "A", ""),
        ("Final answer: B\n\nThe boy starts eating the moment the cup is down, which rules out A.", "B", "B", ""),
        (
            "**Answer:** A\n\nOption B would need the boy to start eating immediately, but he waits.",
            "A",
            "B",
            "official: 'Option B' in the explanation",
        ),  # fmt: skip
        ("<answer>Option <|begin_of_box|>B<|end_of_box|></answer>", "B", "B", ""),
        ("\\boxed{B}", "B", "B", ""),
        ("<|begin_of_box|>B<|end_of_box|>", "B", "B", ""),
        ("<|begin_of_box|>A<|end_of_box|>", "A", "A", ""),
        (
            "<think>Option A says the boy waits. Option B says he eats at once. Watching frame 12, the boy",
            N,
            "A",
            "cut off while thinking",
        ),  # fmt: skip
        ("<answer>A or B</answer>", N, "A", "both options inside the container"),
        (
            'After the cup is placed, the boy pauses, so the caption "The girl puts down her cup, and a moment later '
            'the boy starts eating." fits; final answer: **A**',
            "A",
            "A",
            "official: the article 'a' before the keyword",
        ),  # fmt: skip
    ],
    "timeblind_mc_dir": [
        ("<think>The ball starts in the middle and rolls right.</think><answer>\\boxed{B}</answer>", "B", "B", ""),
        (
            'The object moves to the right; therefore the answer is <|begin_of_box|>B<|end_of_box|>, not "to the '
            'left".',
            "B",
            "B",
            "",
        ),  # fmt: skip
        ("Answer: <|begin_of_box|>To the right.<|end_of_box|>", "B", N, "option B's text in the box"),
    ],
    "vino_text_waving": [
        ("<think>The man waves first, then nothing else happens.</think><answer>B</answer>", "B", N, ""),
        ("\\boxed{B}", "B", N, ""),
        ('The caption that matches is "a man is waving", so the answer is \\boxed{B}.', "B", N, ""),
        ("<answer>a man is waving</answer>", "B", N, "caption echo inside the container"),
        ("<answer>A woman talks to a man</answer>", "A", N, "caption echo; 'A' is the article"),
        (
            '**Answer:** A\n\nCaption B ("a man is waving") does not fit, because the man never waves.',
            "A",
            N,
            "the explanation names the other caption",
        ),  # fmt: skip
        ("Final answer: B. (A would need the woman to speak.)", "B", N, ""),
        (
            "Okay, the video shows a man raising his hand and waving. The woman does not speak.\n</think>\n\nB",
            "B",
            N,
            "official: the first character is 'O'",
        ),  # fmt: skip
        ("<think>Let me look at the first frames. A man is", N, N, "cut off while thinking"),
        ("<answer>A or B</answer>", N, N, "both options inside the container"),
    ],
    "vino_video": [
        (
            "<think>The man waves in the second half.</think><answer><|begin_of_box|>B<|end_of_box|></answer>",
            "B",
            N,
            "",
        ),
        ("\\boxed{\\text{Second segment}}", "B", N, "option B's name in the box"),
        (
            "The caption matches the segment after the black frame: \\boxed{B}. The first segment shows someone "
            "talking.",
            "B",
            N,
            "the explanation names the other segment",
        ),  # fmt: skip
        ("<answer>First segment (before black frame)</answer>", "A", N, ""),
        ("Final answer: A (the first segment); the second segment shows the reverse.", "A", N, "names both segments"),
        ("<answer>Both segments</answer>", N, N, "both inside the container"),
    ],
    "tb_hand": [
        ("<think>He catches it with the right hand.</think><answer>B</answer>", "B", N, ""),
        ("The fruit is tossed with the right hand, so option B. \\boxed{B}", "B", N, ""),
        ("**Answer:** B", "B", N, ""),
        ("<|begin_of_box|>A<|end_of_box|>", "A", N, ""),
    ],
    "tb_glass": [
        ("<think>He pours first, then drinks.</think>\n\n<answer>A</answer>", "A", N, ""),
        (
            "The man drinks first and pours afterwards, matching \\boxed{B}; option A has the reverse order.",
            "B",
            N,
            "the explanation names the other option",
        ),  # fmt: skip
        ("Final answer: A man pours water into a glass, then drinks it.", "A", N, "caption A in the answer line"),
    ],
    "velociti_yn": [
        ("<answer>No</answer>", "no", "no", ""),
        ("<answer><|begin_of_box|>No<|end_of_box|></answer>", "no", "no", ""),
        (
            "<think>The caption says the man runs before jumping. In the video he jumps first. So the caption is not "
            "entailed.</think>\n<answer>No</answer>",
            "no",
            "no",
            "",
        ),  # fmt: skip
        ("\\boxed{Yes}", "yes", "yes", ""),
        (
            "Final answer: \\boxed{No}. Yes-or-no questions like this depend on the order of events.",
            "no",
            N,
            "official sees both words",
        ),  # fmt: skip
        ("**Answer:** Yes\n\nNo other event happens before the man picks up the ball.", "yes", N, ""),
        ("<think>Does the woman open the door before sitting? Yes, she", N, "yes", "cut off while thinking"),
        ("\u25c1think\u25b7He throws, then catches. The caption reverses it.\u25c1/think\u25b7No", "no", "no", ""),
    ],
    "velociti_mc": [
        ("<answer>A</answer>", "A", N, "official: the first token is '<answer>A</answer>'"),
        ("<think>The man throws first.</think>\n\nA", "A", N, ""),
        ("\\boxed{B}", "B", N, ""),
        ("A\n\nFinal answer: A", "A", "A", ""),
        ("<answer><|begin_of_box|>B<|end_of_box|></answer>", "B", N, ""),
        ("The boy throws the ball, so \\boxed{B}; caption A reverses who throws.", "B", N, ""),
    ],
}

for _name, _entries in THINKING.items():
    CORPUS[_name].extend(_entries)
