"""The grammars of agent replies (glm_dspy/grammar), checked with xgrammar itself: no LLM, no engine."""

import pytest
import xgrammar as xgr
from xgrammar.testing import _is_grammar_accept_string

from glm_dspy.executor.policy import compile_snippet
from glm_dspy.prompts.fewshot import ACT_DEMOS
from glm_dspy.grammar.reply import reply_grammar
from glm_dspy.grammar.snippet import act_grammar
from glm_dspy.signatures import Classify, Reason
from glm_dspy.graphs.schema import GraphSchema, NodeType


def schema() -> GraphSchema:
    """The Nobel graph's names plus the academic graph's (the demos use both)."""
    def node(*features):
        return NodeType({f: "STRING" for f in features}, 1, "name")

    types = {"laureate": node("name", "birth_date", "death_date"), "prize": node("name", "year", "category"),
             "city": node("name", "country"), "institution": node("name", "city"),
             "paper": node("title", "year"), "author": node("name")}
    relations = {"prize": [("laureate", "prize")], "laureate": [("prize", "laureate")],
                 "birth_city": [("laureate", "city")], "institution": [("laureate", "institution")],
                 "student": [("laureate", "laureate")], "mentor": [("laureate", "laureate")],
                 "city": [("institution", "city")], "paper": [("author", "paper")], "author": [("paper", "author")]}
    return GraphSchema("test", types, relations)


@pytest.fixture(scope="module")
def grammar() -> xgr.Grammar:
    return xgr.Grammar.from_ebnf(act_grammar(schema()))


def reply(code: str) -> str:
    return f"[[ ## code ## ]]\n{code}\n\n[[ ## completed ## ]]"


def accepts(grammar, text: str) -> bool:
    return _is_grammar_accept_string(grammar, text)


# Snippets the executor runs, written as Act writes them: each must be in the grammar.
IN_GRAMMAR = [
    *(demo.code for demo in ACT_DEMOS),
    'print(sum([1, 2, 3]))',
    'curie = RetrieveNode("Marie Curie")\nprint(NodeInfo(curie))',
    "print(NodeFeature(RetrieveNode('Marie Curie'), 'birth_date'))",
    'ids = NeighbourCheck(RetrieveNode("Niels Bohr"), "student")\nprint(len(ids))',
    'names = [NodeFeature(s, "name") for s in NeighbourCheck(x, "student") if NodeDegree(s, "prize") > 0]\n'
    'print(", ".join(sorted(names)))',
    'counts = {}\nfor p in NeighbourCheck(x, "prize"):\n    counts[p] = NodeDegree(p, "laureate")\n'
    'print(max(counts, key=counts.get))',
    'total = 0\nfor s in NeighbourCheck(x, "student"):\n    total += NodeDegree(s, "prize")\nprint(total)',
    'years = {NodeFeature(p, "year") for p in NeighbourCheck(x, "prize")}\nprint(min(years))',
    'a = set(NeighbourCheck(x, "mentor"))\nb = set(NeighbourCheck(y, "mentor"))\n'
    'print(NodeFeature(list(a & b), "name"))',
    'for k, v in {"a": 1}.items():\n    if v >= 1 and not k == "b":\n        print(k)\n    elif v < 0:\n'
    '        pass\n    else:\n        break',
    'print(sorted(NeighbourCheck(x, "prize"), key=lambda p: NodeFeature(p, "year"))[0])',
    'name = NodeFeature(x, "name")\nprint(name.split(" ")[-1].lower(), name[:3], sep=", ")',
    'print(sum(1 for p in NeighbourCheck(x, "prize") if NodeFeature(p, "category") == "Physics"))',
    'print(NodeFeature(x, "year") if NodeDegree(x, "laureate") != 0 else None)',
    'print((1, 2), -3 * 4 // 2 % 5, 2.5 / 1, "a\\"b", \'c\')',
]

# Snippets the executor accepts that the grammar leaves out on purpose (glm_dspy/grammar/snippet.py).
OUT_OF_GRAMMAR = {
    "def": "def top(ids):\n    return max(ids)\nprint(top([1]))",
    "while": "while True:\n    pass",
    "try": "try:\n    print(1)\nexcept ValueError:\n    pass",
    "f-string": 'print(f"{1}")',
    "comment": "# the answer\nprint(1)",
    "blank line": "x = 1\n\nprint(x)",
    "keyword argument to a graph function": "print(NodeDegree(node_id='p1', neighbour_type='author'))",
    "feature held in a variable": 'f = "name"\nprint(NodeFeature(x, f))',
}

# Names the graph does not have, and calls the executor refuses.
OUT_OF_SCHEMA = [
    'print(NodeFeature(curie, "born_laureate"))',  # a neighbour type, not a feature
    'print(NodeFeature(curie, "birthdate"))',
    'print(NeighbourCheck(x, "award"))',
    'print(NodeDegree(x, "children"))',
    'print(NeighbourCheck(x, "name"))',  # a feature, not a neighbour type
    'print(RetrieveNodes("Niels Bohr"))',
    'print(NodeDegree(RetrieveNode("Niels Bohr"), "students"))',
    'import os',
    'print(x.__class__)',
    'x.attr = 1',
    '_x = 1',
    'print(open("/etc/passwd"))',
    'print(eval("1"))',
]


@pytest.mark.parametrize("code", IN_GRAMMAR)
def test_snippets_the_executor_runs_are_in_the_grammar(grammar, code):
    compile_snippet(code)  # the executor accepts it
    assert accepts(grammar, reply(code))


@pytest.mark.parametrize("construct", list(OUT_OF_GRAMMAR))
def test_constructs_left_out_on_purpose(grammar, construct):
    code = OUT_OF_GRAMMAR[construct]
    compile_snippet(code)  # the executor would run it ...
    assert not accepts(grammar, reply(code))  # ... but Act cannot write it


@pytest.mark.parametrize("code", OUT_OF_SCHEMA)
def test_names_not_in_the_schema_are_rejected(grammar, code):
    assert not accepts(grammar, reply(code))


def test_each_graph_names_its_own_features_and_neighbour_types():
    nobel_only = GraphSchema("nobel", {"laureate": NodeType({"name": "STRING"}, 1, "name")},
                             {"student": [("laureate", "laureate")]})
    grammar = xgr.Grammar.from_ebnf(act_grammar(nobel_only))
    assert accepts(grammar, reply('print(NodeFeature(NeighbourCheck(x, "student"), "name"))'))
    assert not accepts(grammar, reply('print(NeighbourCheck(x, "paper"))'))  # another graph's name


def test_the_reply_needs_the_field_markers(grammar):
    assert not accepts(grammar, "print(1)")
    assert not accepts(grammar, "[[ ## code ## ]]\nprint(1)")  # never completed
    assert not accepts(grammar, reply("print(1)") + "\nmore")


def test_nesting_is_bounded():
    grammar = xgr.Grammar.from_ebnf(act_grammar(schema(), max_depth=2))
    two = "for a in x:\n    for b in a:\n        print(b)"
    three = "for a in x:\n    for b in a:\n        for c in b:\n            print(c)"
    assert accepts(grammar, reply(two)) and not accepts(grammar, reply(three))


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
