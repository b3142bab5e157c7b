"""The relations a question's words spell (glm_dspy/modules/relation_words.py), learned from an
example bank, and the Cypher Act rebuilding a chain from them (Text2Cypher._spelled_path).

The words and their order are plain functions of the bank and the question (no graph, no LLM);
the rebuild runs on a real Kuzu triples graph, the Cypher it "writes" scripted on DummyLM."""

import json

import dspy
import pytest
from dspy.utils import DummyLM

from glm_dspy.modules.relation_words import RelationWords
from glm_dspy.modules.text2cypher import Text2Cypher
from glm_dspy.graphs.cypher.syntax import Literal, NodePattern

PEOPLE = ["ann", "bob", "cy", "dora", "eve", "finn"]
TEMPLATES = [  # (question, relations of the chain from the named node)
    ("who is {n} 's dad ?", ["parents"]),
    ("the darling of {n} ?", ["spouse"]),
    ("{n} 's dad 's darling ?", ["parents", "spouse"]),
    ("what is the sex of {n} 's darling ?", ["spouse", "gender"]),
    ("who is the other half of {n} 's dad ?", ["parents", "spouse"]),
    ("what is the sex of {n} ?", ["gender"]),
    ("who is the other half of {n} ?", ["spouse"]),
    ("what is the type of sex of {n} 's darling ?", ["spouse", "gender"]),  # "type" says what "sex" says
    ("what is the type of sex of {n} ?", ["gender"]),
]
RELATIONS = ["parents", "spouse", "gender", "inv_parents", "inv_spouse", "inv_gender", "track_list", "release",
             "cause_of_death", "place_of_death"]


def chain(name: str, relations: list[str]) -> str:
    hops = "".join(f"-[:rel_{r}]->" + ("(b:entity)" if i == len(relations) - 1 else "(:entity)")
                   for i, r in enumerate(relations))
    return f"MATCH (a:entity {{name: '{name}'}}){hops} RETURN DISTINCT b.name"


def family_bank() -> list[dict]:
    return [{"question": q.format(n=n), "cypher": chain(n, rels)} for n in PEOPLE for q, rels in TEMPLATES]


def test_relation_words_are_learned_from_the_bank_and_ordered_as_english_chains_them():
    words = RelationWords.learn(family_bank(), RELATIONS)
    assert words.words["dad"] == ("parents", True) and words.words["darling"] == ("spouse", True)
    assert words.words["sex"] == ("gender", True)
    assert "who" not in words.words  # comes with every relation: says none
    assert "type" not in words.words  # its chains are given back without it: one hop, not two
    assert words.path("what is the type of sex of ann 's dad ?", "ann") == [[("parents", True)], [("gender", True)]]
    assert words.chains == 54 and words.reproduced == 42 / 54 and words.usable  # as counted: "type" twice
    parents, spouse, gender = [("parents", True)], [("spouse", True)], [("gender", True)]
    # after the name in the order said, then before it, the nearest first
    assert words.path("the darling of isabella 's dad ?", "isabella") == [parents, spouse]
    assert words.path("isabella 's dad 's darling ?", "isabella") == [parents, spouse]
    assert words.path("the sex of the darling of the dad of isabella ?", "isabella") == [parents, spouse, gender]
    assert words.path("the other half of isabella ?", "isabella") == [spouse]  # two words, one relation
    assert words.path("the darling of mary_ann_of_york 's dad ?", "mary ann of york") == [parents, spouse]
    assert words.path("the darling of somebody 's dad ?", "isabella") is None  # the name is not said
    # a word right before the name says what the name is ("the paper 'Notes on ...'"), not a hop
    assert words.path("the sex of the darling isabella ?", "isabella") == [gender]


def test_a_word_the_bank_does_not_teach_stands_for_the_relations_it_spells():
    words = RelationWords.learn(family_bank(), RELATIONS)
    assert words.path("what is the release of elliott_yamin 's track_list ?", "elliott yamin") == \
        [[("track_list", True)], [("release", True)]]
    # a relation's name in words is one relation, not its last word's several
    assert words.path("what is ann 's dad 's cause of death ?", "ann") == [[("parents", True)],
                                                                          [("cause_of_death", True)]]


def test_a_bank_whose_questions_do_not_spell_their_paths_turns_the_words_off():
    bank = [{"question": f"How many prizes did {n} win, and where?",
             "cypher": chain(n, rels)} for n in PEOPLE for rels in (["parents"], ["spouse", "gender"])]
    words = RelationWords.learn(bank, RELATIONS)
    assert words.reproduced == 0.0 and not words.usable
    assert words.path("the darling of ann 's dad ?", "ann") is None


@pytest.fixture(scope="module")
def family_program(tmp_path_factory, embedder):
    from glm_dspy.graph import open_graph
    from glm_dspy.graphs.build import build_database

    folder = tmp_path_factory.mktemp("family_words")
    (folder / "kb.tsv").write_text("isabella\tparents\tphilip\nphilip\tspouse\tjoan\nphilip\tgender\tmale\n"
                                   "joan\tgender\tfemale\n")
    (folder / "bank.jsonl").write_text("".join(json.dumps(e) + "\n" for e in family_bank()))
    build_database(f"triples:{folder / 'kb.tsv'}", folder / "db", embedder=embedder)
    with open_graph(folder / "db", embedder=embedder) as graph:
        yield graph, folder / "bank.jsonl"


def test_a_dropped_hop_is_put_back_from_the_question_s_words(family_program):
    """"The darling of isabella 's dad" written with the dad's hop alone answers "philip"; the
    question's words spell parents then spouse, and that chain answers "joan" with no repair."""
    graph, bank = family_program
    dropped = "MATCH (a:entity {name: 'isabella'})-[:rel_parents]->(b:entity) RETURN DISTINCT b.name"
    question = "the darling of isabella 's dad ?"
    program = Text2Cypher(graph, examples=bank)
    assert program.post_process(dropped, question) == chain("isabella", ["parents", "spouse"])
    lm = DummyLM([{"cypher": dropped}])
    with dspy.context(lm=lm):
        prediction = program(question=question)
    assert prediction.answer == "joan" and len(lm.history) == 1
    off = Text2Cypher(graph, examples=bank, spelled_paths=False)
    with dspy.context(lm=DummyLM([{"cypher": dropped}])):
        assert off(question=question).answer == "philip"


def test_a_wrong_relation_is_replaced_and_a_right_or_unanswerable_chain_is_kept(family_program):
    graph, bank = family_program
    program = Text2Cypher(graph, examples=bank)
    wrong = chain("philip", ["gender"])  # "darling" is spouse
    assert program.post_process(wrong, "the darling of philip ?") == chain("philip", ["spouse"])
    # the last node left unbound, its variable returned (Kuzu's binder would refuse it): bound and rebuilt
    unbound = "MATCH (a:entity {name: 'philip'})-[:rel_gender]->(:entity) RETURN DISTINCT b.name"
    assert program.post_process(unbound, "the darling of philip ?") == chain("philip", ["spouse"])
    right = chain("isabella", ["parents", "spouse"])
    assert program.post_process(right, "the darling of isabella 's dad ?") == right
    # the words' chain returns nothing (joan has no spouse): the model's query stands
    kept = chain("joan", ["gender"])
    assert program.post_process(kept, "the darling of joan ?") == kept
    # more hops than the words say (a paraphrase the bank did not teach): kept
    longer = chain("isabella", ["parents", "spouse", "gender"])
    assert program.post_process(longer, "what is the gender of isabella 's dad 's darling ?") == longer


def test_a_relation_word_read_as_a_property_becomes_the_hop(family_program):
    """PathQuestion-L's relation words come as properties: `RETURN a.profession` of a lone node
    (Kuzu: "Cannot find property profession"), `-[:rel_people_person_place_of_birth]->(:entity)
    RETURN a.place_of_birth`. The first becomes a chain for the question's words to rebuild; the
    second returns the node its one hop reaches, bank or no bank."""
    graph, bank = family_program
    program = Text2Cypher(graph, examples=bank)
    question = "the darling of isabella 's dad ?"
    lone = "MATCH (a:entity {name: 'isabella'}) RETURN DISTINCT a.parents"
    assert program.post_process(lone, question) == ("MATCH (a:entity {name: 'isabella'})-[:rel_parents]->(:entity)"
                                                    "-[:rel_spouse]->(glm_end:entity) RETURN DISTINCT glm_end.name")
    asked = "MATCH (a:entity {name: 'isabella'})-[:rel_parents]->(:entity) RETURN DISTINCT a.parents"
    assert program.post_process(asked, question) == chain("isabella", ["parents", "spouse"])
    plain = Text2Cypher(graph, examples=None)
    assert plain.post_process(asked) == "MATCH (a:entity {name: 'isabella'})-[:rel_parents]->(b:entity) " \
                                        "RETURN DISTINCT b.name"
    assert plain.post_process(lone, question) == lone  # no bank, no words: Kuzu's binder and the repair
    for kept in ("MATCH (a:entity {name: 'isabella'})-[:rel_parents]->(:entity) RETURN DISTINCT a.height",  # no relation
                 "MATCH (a:entity {name: 'philip'})-[:rel_spouse]->(:entity) RETURN DISTINCT a.gender"):  # another hop
        assert plain.post_process(kept) == kept


def test_a_query_that_cannot_run_gives_way_to_the_chain_the_words_spell(family_program):
    """The 0.5B model once repeated one hop until `max_tokens`: Kuzu cannot parse what is left.
    Before any repair call, the chain the question's words spell from the one node it names
    answers; without the words the repair is asked."""
    graph, bank = family_program
    cut = "MATCH (a:entity {name: 'isabella'})-[:rel_parents]->(:entity)-[:rel_parents]->(:entity)-[:rel_"
    question = "the darling of isabella 's dad ?"
    program = Text2Cypher(graph, examples=bank)
    assert program._from_words(question) == chain("isabella", ["parents", "spouse"]).replace("(b:", "(glm_end:") \
        .replace("b.name", "glm_end.name")
    lm = DummyLM([{"cypher": cut}])
    with dspy.context(lm=lm):
        prediction = program(question=question)
    assert prediction.answer == "joan" and len(lm.history) == 1
    first = [s for s in prediction.steps if s["agent"] == "cypher"][0]
    assert "does not parse" in first["error"] and not first["ok"]
    assert program._from_words("the darling of somebody 's dad ?") is None  # names no node
    off = Text2Cypher(graph, examples=bank, spelled_paths=False)
    lm = DummyLM([{"cypher": cut}, {"cypher": chain("isabella", ["parents"])}])
    with dspy.context(lm=lm):
        assert off(question=question).answer == "philip" and len(lm.history) == 2


def test_a_word_of_many_relations_is_held_to_those_leaving_where_the_path_has_got(family_program):
    """PQL's "genre" ends 26 relations, more than the chains a rebuild may run (12): each hop's
    readings are the relations that leave the nodes the path has reached."""
    graph, bank = family_program
    program = Text2Cypher(graph, examples=bank)
    start = NodePattern("a", ("entity",), (("name", Literal("isabella")),))  # (a:entity {name: 'isabella'})
    assert program._leaving(start, []) == {"parents"}
    assert program._leaving(start, [("parents", True)]) == {"spouse", "gender", "inv_parents"}
    assert program._leaving(start, [("parents", True), ("spouse", True)]) == {"gender", "inv_spouse"}
