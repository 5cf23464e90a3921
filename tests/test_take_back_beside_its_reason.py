"""A take-back that names nothing ("please drop that", "you can get rid of that one"), in a
message whose other sentences say which memory and why (issue 18, found on the tenth
generalisation set's development half, tested here in wording of its own), on both
backends. Before, a sentence of the same message that stated something of its own ("Biscuit
is my sister's") kept the take-back from reading what that sentence names; "get rid of"
and "I'd rather not get reminded of it" took nothing back.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.takeback import retraction

ME = Scope("acme", "lin")


def _say(vault: Vault, line: str) -> None:
    vault.observe(ME, [{"role": "user", "content": line}])


@pytest.mark.parametrize(("line", "back"), [
    ("you can get rid of that one", ""),
    ("just get rid of it", ""),
    ("I'd rather not get reminded of it", ""),
    ("I got rid of my old car last year", None),
    ("I'd rather not get reminded by email", None),
])
def test_what_takes_back(line: str, back: str | None) -> None:
    assert retraction(line) == back


@pytest.mark.parametrize(("before", "line", "gone"), [
    ("I have a dog called Biscuit.",
     "hang on, why do you think I own a dog?? Biscuit is my sister's, I only walk him. "
     "please drop that", "Biscuit"),
    ("I'm allergic to shellfish.",
     "turns out I was never allergic to shellfish, the test was wrong! you can get rid of "
     "that one", "shellfish"),
    ("I'm saving for a house deposit.",
     "please forget the house deposit thing. not happening any more and I'd rather not get "
     "reminded of it", "deposit"),
])
def test_a_take_back_beside_its_reason_forgets_the_memory(
        vault: Vault, before: str, line: str, gone: str) -> None:
    _say(vault, before)
    (mine,) = [m for m in vault.list(ME, limit=50) if m.kind != "turn"]
    assert gone in mine.content
    _say(vault, line)
    assert vault.get(ME, mine.id).status == "deleted"


# A blind audit's finds (2026-12-07): a bare take-back ending with a full stop, a take-back
# naming nothing after a statement of its own message, and "刚才那句".
@pytest.mark.parametrize(("before", "line"), [
    ("I have a standing desk at home.", "Please forget that."),
    ("I have a standing desk at home.", "Actually, you can get rid of that one."),
    ("我喜欢听京剧。", "那条不是我说的。"),
    ("我最近在学做甜点。", "刚才那句当没发生过吧。"),
])
def test_a_bare_take_back_of_its_own_with_a_full_stop_forgets_the_line_before(
        vault: Vault, before: str, line: str) -> None:
    _say(vault, "I cycle to work every day.")
    _say(vault, before)
    kept, gone = sorted((m for m in vault.list(ME, limit=50) if m.kind != "turn"),
                        key=lambda m: m.created_at)
    _say(vault, line)
    assert vault.get(ME, gone.id).status == "deleted"
    assert vault.get(ME, kept.id).status == "active"
    assert vault.review_list(ME) == []


def test_a_take_back_after_a_statement_of_its_message_forgets_no_earlier_line(
        vault: Vault) -> None:
    _say(vault, "I cycle to work every day.")
    (earlier,) = [m for m in vault.list(ME, limit=50) if m.kind != "turn"]
    _say(vault, "I'm still grieving my dog who died in spring. I'd rather not get reminded "
                "of it.")
    assert vault.get(ME, earlier.id).status == "active"


# A second blind audit (2026-12-07): the same take-back in other surface forms. Before, a
# polite tail after a comma or a full stop, "谢谢", or an emoji stopped it; "Scratch that."
# renamed the dog "Scratch" (read as a bare value), "scratch that" took nothing back.
@pytest.mark.parametrize("line", [
    "drop that, cheers", "Delete that. Thank you!", "please forget that, thx.",
    "forget that 🙈", "Scratch that.", "scratch that", "Scratch that!",
    "删了那条吧，多谢", "删掉那条 🙈", "删掉那条 谢谢",
])
def test_a_take_back_in_any_surface_form_forgets_the_line_before(vault: Vault,
                                                                line: str) -> None:
    _say(vault, "My dog is called Rex.")
    (dog,) = [m for m in vault.list(ME, limit=50) if m.kind != "turn"]
    _say(vault, line)
    assert vault.get(ME, dog.id).status == "deleted"
    left = [m.content for m in vault.list(ME, limit=50) if m.kind != "turn"]
    assert left == ["My dog is called Rex"], left  # nothing new: no "谢谢", no dog "Scratch"
