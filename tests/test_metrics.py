"""Answer metrics on hand-made cases: normalization, list EM with comma names, ROUGE-L, judge prompt/parse."""

import pytest

from glm_dspy.evaluation.metrics import (JUDGE_PROMPT, exact_match, judge_prompt, normalize_answer, parse_judgement,
                                         rouge_l, split_items)


@pytest.mark.parametrize("text, expected", [
    ("The Nobel Prize in Physics.", "nobel prize in physics"),
    ("  An  apple,\ta PEAR  ", "apple pear"),
    ("Theory of the atom", "theory of atom"),  # "the" inside "Theory" stays
    ("1867-11-07", "18671107"),
    ("united_kingdom", "united kingdom"),  # knowledge-base ids read as names
    ("", ""),
])
def test_normalize_answer(text, expected):
    assert normalize_answer(text) == expected


def test_exact_match_single_values():
    assert exact_match("the University of Cambridge.", "University of Cambridge")
    assert exact_match("1,000,000", "1000000")  # whole-string match after dropping punctuation
    assert not exact_match("University of Oxford", "University of Cambridge")
    assert not exact_match("", "Copenhagen")


def test_exact_match_lists_are_order_insensitive_sets():
    gold = "Henri Becquerel, Marie Curie, Pierre Curie"
    assert exact_match("Pierre Curie, Henri Becquerel, Marie Curie", gold)
    assert exact_match("pierre curie,henri becquerel ,  MARIE CURIE", gold)
    assert exact_match("Marie Curie, Marie Curie, Henri Becquerel, Pierre Curie", gold)  # repeats ignored


def test_partial_or_padded_lists_are_not_exact_matches():
    gold = "Henri Becquerel, Marie Curie, Pierre Curie"
    assert not exact_match("Henri Becquerel, Marie Curie", gold)
    assert not exact_match("Henri Becquerel, Marie Curie, Pierre Curie, Gabriel Lippmann", gold)


def test_split_items_keeps_known_comma_names_whole():
    known = ["Earl W. Sutherland, Jr.", "Marie Curie, née Skłodowska"]
    assert split_items("Carl Cori, Earl W. Sutherland, Jr., Luis Leloir", known) == [
        "carl cori", "earl w sutherland jr", "luis leloir"]
    # the longest known name wins where two start at the same piece
    assert split_items("O'Brien, Pat, Lee, Ann", ["O'Brien, Pat", "O'Brien, Pat, Lee"]) == ["obrien pat lee", "ann"]
    # pieces of a name that are not adjacent are never joined
    assert split_items("Jr., Earl W. Sutherland", known) == ["jr", "earl w sutherland"]
    assert split_items("a, b", []) == ["b"]  # an item that normalizes to nothing is dropped


def test_comma_names_in_gold_and_prediction():
    gold = ["Arthur Kornberg", "Earl W. Sutherland, Jr.", "Luis Leloir"]  # gold items are known names
    assert exact_match("Luis Leloir, Earl W. Sutherland, Jr., Arthur Kornberg", gold)
    assert exact_match("earl w. sutherland, jr, luis leloir, arthur kornberg", gold)
    # split into pieces, these would be the same set as the gold's pieces; kept whole, they differ
    assert not exact_match("Jr., Arthur Kornberg, Earl W. Sutherland, Luis Leloir", gold)
    assert not exact_match("Arthur Kornberg, Earl W. Sutherland, Luis Leloir", gold)


def test_comma_names_from_known_names_with_string_gold():
    gold = "Institute for Quantum Optics and Quantum Information, Austrian Academy of Sciences, University of Vienna"
    known = ["Institute for Quantum Optics and Quantum Information, Austrian Academy of Sciences"]
    prediction = f"University of Vienna, {known[0]}"
    assert exact_match(prediction, gold, known_names=known)
    assert not exact_match("University of Vienna, Austrian Academy of Sciences", gold, known_names=known)
    assert exact_match("Chicago, IL", "Chicago, IL")
    assert not exact_match("IL", "Chicago, IL", known_names=["Chicago, IL"])


def test_rouge_l_bounds_and_a_known_value():
    assert rouge_l("Marie Curie", "Marie Curie") == 1.0
    assert rouge_l("Copenhagen", "Marie Curie") == 0.0
    assert rouge_l("", "Marie Curie") == 0.0
    # LCS "marie curie" = 2 tokens; precision 2/3, recall 2/2 -> F = 2PR/(P+R) = 0.8
    assert rouge_l("Marie Sklodowska Curie", "Marie Curie") == pytest.approx(0.8)
    assert rouge_l("Curie, Marie", ["Marie Curie"]) == pytest.approx(0.5)  # LCS of 1 token


def test_judge_prompt_is_grbench_verbatim():
    expected = ("Question:Who won? \nModel prediction: Marie Curie \nGround truth: Marie Curie, Pierre Curie. \n"
                "Please help me judge if the model prediction is correct or not given the question and ground truth "
                "answer. Please use one word (Yes or No) to answer. Do not explain.")
    assert judge_prompt("Who won?", "Marie Curie", ["Marie Curie", "Pierre Curie"]) == expected
    assert judge_prompt("Who won?", "Marie Curie", "Marie Curie, Pierre Curie") == expected
    assert judge_prompt("{x}?", "{y}", "{z}").startswith("Question:{x}? \nModel prediction: {y} \n")  # braces kept
    assert set(JUDGE_PROMPT.count("{" + f + "}") for f in ("question", "prediction", "gold")) == {1}


@pytest.mark.parametrize("reply, verdict", [
    ("Yes", True), ("yes.", True), ("YES, the prediction matches.", True), ("**Yes**", True),
    ("Answer: Yes", True), ("<think>no idea... maybe</think>\nYes", True),
    ("No", False), ("no.", False), (" No, it misses Pierre Curie.", False), ("'No'", False),
    ("", None), (None, None), ("Maybe", None), ("The prediction is correct.", None), ("Nope", None),
])
def test_parse_judgement(reply, verdict):
    assert parse_judgement(reply) is verdict
