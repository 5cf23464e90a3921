"""What a number names (understand/matchwords.py, issue 18): a number with its unit, or a
day of the month, names one value ("the 21st", "30mg", "21号"); a bare number names
nothing. Before, "argh the 21st fell through too" shared no word with "Moving the
dentist to the 21st", and the letters of "21st fell" ran together as a word "stfell".
"""

from __future__ import annotations

import pytest

from memvault.understand.matchwords import named_words, shares_words


@pytest.mark.parametrize(("text", "word"), [
    ("moving the dentist to the 21st", "21th"),
    ("牙医改到21号下午", "21th"),
    ("doc bumped me up to 30mg", "30mg"),
    ("I take 30 mg a day", "30mg"),
    ("每天吃25毫克", "25mg"),
    ("the call is at 10am", "10am"),
])
def test_a_number_with_its_unit_is_a_named_value(text: str, word: str) -> None:
    assert word in named_words(text)


@pytest.mark.parametrize("text", ["I go 3 days a week", "we have 2 kids", "买了 3 个"])
def test_a_bare_number_names_nothing(text: str) -> None:
    assert not any(w[0].isdigit() for w in named_words(text))


def test_an_ordinals_letters_are_not_a_word() -> None:
    assert not {"stfell", "st"} & named_words("argh the 21st fell through")


def test_the_same_day_is_in_common_and_another_is_not() -> None:
    assert shares_words("argh the 21st fell through, it's the 28th now",
                        "Moving the dentist to the 21st")
    assert not shares_words("it's the 28th now", "Moving the appointment to the 21st")
