"""Small pieces of English for messages built around a value ("an admin key", "a user
key")."""

from __future__ import annotations

# Words spelt with a vowel that start with a consonant sound ("a user", "a one-off"), and
# words spelt with a consonant that start with a vowel sound ("an hour").
_CONSONANT_SOUND = ("uni", "use", "usu", "uti", "ura", "eu", "one", "once")
_VOWEL_SOUND = ("hour", "honest", "honour", "honor", "heir")


def a_or_an(word: str) -> str:
    """`word` with its indefinite article: a_or_an("admin") == "an admin"."""
    if not word:
        return "a"
    low = word.lower()
    if low.startswith(_VOWEL_SOUND):
        return f"an {word}"
    if low[0] in "aeiou" and not low.startswith(_CONSONANT_SOUND):
        return f"an {word}"
    return f"a {word}"
