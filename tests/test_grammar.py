"""The grammar of an agent reply from its signature (glm_dspy/grammar/reply.py), checked with
xgrammar itself: no LLM, no engine. (Discriminate's model chooser decodes under it.)"""

import xgrammar as xgr
from xgrammar.testing import _is_grammar_accept_string

from glm_dspy.grammar.reply import reply_grammar
from glm_dspy.signatures import Classify, Reason


def accepts(grammar, text: str) -> bool:
    return _is_grammar_accept_string(grammar, text)


def test_classify_reply_is_one_of_its_kinds():
    grammar = xgr.Grammar.from_ebnf(reply_grammar(Classify))
    for kind in ("deterministic", "non_deterministic"):
        assert accepts(grammar, f"[[ ## kind ## ]]\n{kind}\n\n[[ ## completed ## ]]")
    assert not accepts(grammar, "[[ ## kind ## ]]\nmaybe\n\n[[ ## completed ## ]]")


def test_reason_reply_has_a_boolean_and_one_line_fields():
    grammar = xgr.Grammar.from_ebnf(reply_grammar(Reason))

    def text(finished, answer, missing):
        return (f"[[ ## finished ## ]]\n{finished}\n\n[[ ## answer ## ]]\n{answer}\n\n"
                f"[[ ## missing_information ## ]]\n{missing}\n\n[[ ## completed ## ]]")

    assert accepts(grammar, text("True", "1962", ""))
    assert accepts(grammar, text("False", "", "the birth city of Niels Bohr"))
    # the value on the header's line, as the 0.5B model writes it unconstrained
    assert accepts(grammar, "[[ ## finished ## ]] False\n\n[[ ## answer ## ]] Copenhagen\n\n"
                            "[[ ## missing_information ## ]] \n\n[[ ## completed ## ]]")
    assert not accepts(grammar, text("yes", "1962", ""))
    assert not accepts(grammar, text("True", "1962\nand more", ""))
    assert not accepts(grammar, text("True", "1962", "")[len("[[ ## finished ## ]]\n"):])  # fields in order


def test_the_grammar_follows_the_signature_not_a_copy_of_it():
    import dspy
    from typing import Literal

    class Pick(dspy.Signature):
        question: str = dspy.InputField()
        colour: Literal["red", "green"] = dspy.OutputField()
        sure: bool = dspy.OutputField()

    grammar = xgr.Grammar.from_ebnf(reply_grammar(Pick))
    assert accepts(grammar, "[[ ## colour ## ]]\nred\n\n[[ ## sure ## ]]\nFalse\n\n[[ ## completed ## ]]")
    assert not accepts(grammar, "[[ ## colour ## ]]\nblue\n\n[[ ## sure ## ]]\nFalse\n\n[[ ## completed ## ]]")
