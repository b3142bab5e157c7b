"""graphs/cypher/'s passes: each takes a parsed query and gives one, the very same tree where it
does not apply; run on the small schema drawn below (no database, no LLM).

    paper -[author]-> author        paper -[reference]-> paper        paper -[venue]-> venue
    person -[people_person_place_of_birth]-> place
"""

from __future__ import annotations

from glm_dspy.graphs.cypher import parse, print_query
from glm_dspy.graphs.schema import GraphSchema, NodeType

SCHEMA = GraphSchema("toy", {
    "paper": NodeType({"title": "STRING", "year": "INT64", "keywords": "STRING[]"}, 2, "title"),
    "author": NodeType({"name": "STRING", "birth_date": "STRING"}, 2, "name"),
    "venue": NodeType({"name": "STRING"}, 1, "name"),
    "person": NodeType({"name": "STRING"}, 1, "name"),
    "place": NodeType({"name": "STRING"}, 1, "name"),
}, {"author": [("paper", "author")], "reference": [("paper", "paper")], "venue": [("paper", "venue")],
    "people_person_place_of_birth": [("person", "place")]})


def rewritten(rewrite, text: str, *args) -> str | None:
    """The printed query `rewrite` makes of `text`, or None where it gives back the same tree."""
    tree = parse(text)
    changed = rewrite(tree, SCHEMA, *args)
    return None if changed is tree else print_query(changed)


def test_a_relationship_table_the_graph_lacks_becomes_the_one_that_stands_for_it():
    from glm_dspy.graphs.cypher.known_relation import known_relations

    stand_in = {"rel_writer": "author", "rel_cites": "reference"}.get
    assert rewritten(known_relations, "MATCH (p:paper)-[:rel_writer]->(a) RETURN a.name", stand_in) \
        == "MATCH (p:paper)-[:rel_author]->(a) RETURN a.name"
    # every pattern, a pattern predicate's too; the variable and direction kept
    assert rewritten(known_relations, "MATCH (p)<-[r:rel_cites]-(q) WHERE (q)-[:rel_writer]->() RETURN q", stand_in) \
        == "MATCH (p)<-[r:rel_reference]-(q) WHERE (q)-[:rel_author]->() RETURN q"
    # tables the graph has, tables nothing stands in for, and names not of the `rel_` kind stay
    for text in ("MATCH (p:paper)-[:rel_author]->(a) RETURN a.name", "MATCH (p)-[:rel_qqq]->(a) RETURN a",
                 "MATCH (p)-[:writer]->(a) RETURN a"):
        assert rewritten(known_relations, text, stand_in) is None, text


def test_a_name_under_another_types_label_takes_that_label_or_none_where_several_have_it():
    from glm_dspy.graphs.cypher.relabel import relabel

    names = {"Ada Lovelace": [("author", "name")], "Scientific Memoirs": [("venue", "name"), ("person", "name")],
             "On Bernoulli Numbers": [("paper", "title")]}

    def named(text):
        return names.get(text, [])
    assert rewritten(relabel, "MATCH (a:person {name: 'Ada Lovelace'}) RETURN a.name", named) \
        == "MATCH (a:author {name: 'Ada Lovelace'}) RETURN a.name"
    assert rewritten(relabel, "MATCH (:author {name: 'Scientific Memoirs'})-->(b) RETURN b", named) \
        == "MATCH ({name: 'Scientific Memoirs'})-->(b) RETURN b"
    for text in ("MATCH (a:author {name: 'Ada Lovelace'}) RETURN a",  # its own label
                 "MATCH (a:person {name: 'Nobody'}) RETURN a",  # no type has the name: to repair
                 "MATCH (a:author {title: 'Ada Lovelace'}) RETURN a",  # named by another feature
                 "MATCH (a:person {name: 'Ada Lovelace', year: 1}) RETURN a",  # more than the name
                 "MATCH (a {name: 'Ada Lovelace'}) RETURN a"):  # no label to be wrong
        assert rewritten(relabel, text, named) is None, text


def test_a_property_its_type_lacks_becomes_the_one_feature_that_shares_its_word():
    from glm_dspy.graphs.cypher.known_property import known_properties

    assert rewritten(known_properties, "MATCH (p:paper)-[:rel_venue]->(v) WHERE p.publication_year = 1844 "
                                       "RETURN p.publication_year, v.name") \
        == "MATCH (p:paper)-[:rel_venue]->(v) WHERE p.year = 1844 RETURN p.year, v.name"
    assert rewritten(known_properties, "MATCH (a:author) RETURN a.date") == "MATCH (a:author) RETURN a.birth_date"
    for text in ("MATCH (p:paper) RETURN p.year, p.id",  # features it has
                 "MATCH (a:person) RETURN a.place_of_birth",  # a relation's word: a hop, not a feature
                 "MATCH (p:paper) RETURN p.pages",  # no feature shares a word: Kuzu refuses it
                 "MATCH (p) RETURN p.publication_year",  # no label: no type to read
                 "MATCH (p:paper {title: 'p.publication_year'}) RETURN p.title"):  # a string is never read
        assert rewritten(known_properties, text) is None, text


def test_a_relation_read_as_a_property_of_a_property_becomes_the_hop():
    from glm_dspy.graphs.cypher.nested_property import nested_property

    chain = "MATCH (p:paper {title: 'On Bernoulli Numbers'})-[:rel_reference]->(c:paper) "
    assert rewritten(nested_property, chain + "RETURN c.author.name") \
        == chain + "MATCH (c)-[:rel_author]->(glm_nested:author) RETURN DISTINCT glm_nested.name"
    assert rewritten(nested_property, chain + "RETURN DISTINCT c.venue.name") \
        == chain + "MATCH (c)-[:rel_venue]->(glm_nested:venue) RETURN DISTINCT glm_nested.name"
    for end in ("RETURN c.cites.name",  # no such relation
                "RETURN c.author.title",  # no such feature of an author
                "RETURN c.author.name AS who",  # a column named: the model meant more
                "RETURN c.author.name, c.title",  # several columns
                "RETURN c.author.name LIMIT 3",
                "RETURN c.author.name UNION MATCH (q:paper) RETURN q.author.name"):  # several parts
        assert rewritten(nested_property, chain + end) is None, end
    assert rewritten(nested_property, "MATCH (c)-[:rel_reference]->(d) RETURN c.author.name") is None  # no label


def test_a_chain_that_returns_the_name_it_starts_from_returns_where_it_ends():
    from glm_dspy.graphs.cypher.return_end import return_end

    own = "MATCH (a:paper {title: 'On Bernoulli Numbers'})-[:rel_author]->(:author) RETURN DISTINCT a.title"
    assert rewritten(return_end, own) \
        == "MATCH (a:paper {title: 'On Bernoulli Numbers'})-[:rel_author]->(b:author) RETURN DISTINCT b.name"
    # the end's own variable; a fresh one where `b` is taken; the feature returned where the end's type is unknown
    assert rewritten(return_end, "MATCH (b:paper {title: 'X'})<-[:rel_reference]-(m:paper) RETURN b.title") \
        == "MATCH (b:paper {title: 'X'})<-[:rel_reference]-(m:paper) RETURN m.title"
    assert rewritten(return_end, "MATCH (b:paper {title: 'X'})-[:rel_reference]->() RETURN b.title") \
        == "MATCH (b:paper {title: 'X'})-[:rel_reference]->(x) RETURN x.title"
    # the one hop's own word asked of its start as a property
    assert rewritten(return_end, "MATCH (a:person {name: 'Sister Wynona Carr'})-[:rel_people_person_place_of_birth]"
                                 "->(:place) RETURN a.place_of_birth") \
        == "MATCH (a:person {name: 'Sister Wynona Carr'})-[:rel_people_person_place_of_birth]->(b:place) RETURN b.name"
    for kept in ("MATCH (a:paper)-[:rel_author]->(b:author {name: 'Ada'}) RETURN a.title",  # a is the answer
                 "MATCH (a:paper {title: 'X'})-[:rel_author]->(b:author) RETURN a.title, b.name",
                 "MATCH (a:paper {title: 'X'})-[:rel_author]->(b:author) RETURN a.year",  # its own feature
                 "MATCH (a:paper {title: 'X'})-[:rel_author]->(b:author) RETURN a.title AS t",
                 "MATCH (a:paper {title: 'X'})-[:rel_author]->(b:author) WHERE b.name <> 'Y' RETURN a.title",
                 "MATCH (a:paper {title: 'X'})-[:rel_reference]->(a) RETURN a.title",  # ends where it starts
                 "MATCH (a:paper {title: 'X'})-[:rel_reference*1..2]->(b) RETURN a.title",  # not a plain chain
                 "MATCH (a:paper {title: 'X'}) RETURN a.title"):  # no hop
        assert rewritten(return_end, kept) is None, kept


def test_the_names_a_query_matches_by_are_read_and_relinked_in_the_order_it_writes_them():
    from glm_dspy.graphs.cypher.name_literals import link_names, name_literals, without_strings

    text = ("MATCH (a:author {name: 'ada lovelace'})<-[:rel_author]-(p:paper {year: 1844}) "
            "WHERE p.title = \"Notes\" AND p.title <> 'Sketch' RETURN {name: 'it\\'s'} AS m, 'loose' AS s")
    assert name_literals(parse(text), SCHEMA) == ["ada lovelace", "Notes", "it's"]
    stored = {"ada lovelace": "Ada Lovelace", "it's": "it's 'quoted'"}
    linked = rewritten(link_names, text, lambda names: [stored.get(name, name) for name in names])
    assert linked == ("MATCH (a:author {name: 'Ada Lovelace'})<-[:rel_author]-(p:paper {year: 1844}) "
                      "WHERE p.title = 'Notes' AND p.title <> 'Sketch' RETURN {name: 'it\\'s \\'quoted\\''} AS m, "
                      "'loose' AS s")  # a value is written by glm_dspy.graphs.literal.text_literal, escaped
    assert rewritten(link_names, text, lambda names: names) is None
    assert print_query(without_strings(parse(text))).count("''") == 5


def test_the_ids_a_template_matches_by_are_its_maps_of_one_id():
    from glm_dspy.graphs.cypher.name_literals import id_literals

    text = "MATCH ({id: 'x1'})-->(b {id: 'x2', name: 'y'}) WHERE b.id = 'z' RETURN {id: 'x3'}, 'x4'"
    assert id_literals(parse(text)) == ["x1", "x3"]


def test_a_query_returns_the_things_or_their_count_as_its_question_asks():
    from glm_dspy.graphs.cypher.answer_kind import Asked, answer_kind

    which_venues, how_many_papers = Asked("venue", count=False, counts=False), Asked("paper", count=True, counts=True)
    chain = "MATCH (a:author {name: 'Ada'})<-[:rel_author]-(p:paper)-[:rel_venue]->(:venue) "
    # a count where the things are asked: the asked node, bound to a fresh variable, by its name
    assert rewritten(answer_kind, chain + "RETURN count(DISTINCT p)", which_venues) \
        == chain.replace("(:venue)", "(x:venue)") + "RETURN DISTINCT x.name"
    # ... of the counted node where the question names no type the query has
    assert rewritten(answer_kind, chain + "RETURN count(p) AS n", Asked(None, False, False)) \
        == chain + "RETURN DISTINCT p.title"
    # the things where a count is asked: the asked node's count
    assert rewritten(answer_kind, chain + "RETURN DISTINCT p.title", how_many_papers) \
        == chain + "RETURN count(DISTINCT p)"
    unlabelled = "MATCH (a:author {name: 'Ada'})<-[:rel_author]-(p) RETURN p.title"
    assert rewritten(answer_kind, unlabelled, Asked(None, True, True)) \
        == "MATCH (a:author {name: 'Ada'})<-[:rel_author]-(p) RETURN count(DISTINCT p)"
    # the asked type's name where the query went past it
    assert rewritten(answer_kind, chain.replace("(:venue)", "(v:venue)") + "RETURN DISTINCT v.name",
                     Asked("paper", False, False)) == chain.replace("(:venue)", "(v:venue)") + "RETURN DISTINCT p.title"
    for text, asked in [
            (chain + "RETURN count(DISTINCT p)", how_many_papers),  # a count, asked
            (chain + "RETURN count(DISTINCT p)", Asked("venue", False, True)),  # "most": a count may be meant
            (chain + "RETURN DISTINCT p.year", how_many_papers),  # not a name: a number may be what is asked
            (chain + "RETURN DISTINCT p.title", Asked("paper", False, False)),  # the things, asked
            (chain + "RETURN p.title UNION " + chain + "RETURN count(p)", which_venues),  # several parts
            (chain + "WITH p, count(*) AS n RETURN p.title", how_many_papers),  # counts already
            (chain + "RETURN p.title, p.year", how_many_papers),  # several columns
            (chain + "RETURN count(*)", which_venues)]:
        assert rewritten(answer_kind, text, asked) is None, text

