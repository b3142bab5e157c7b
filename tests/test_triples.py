"""glm_dspy.graphs.triples: any subject<TAB>relation<TAB>object file builds a graph the graph functions can walk."""

import pytest

from glm_dspy.graphs.grbench import GraphFormatError
from glm_dspy.graphs.triples import relation_name, triples_graph

TSV = ("marie_curie\tspouse\tpierre_curie\n"
       "marie_curie\tborn in\twarsaw\n"
       "\n"
       "pierre_curie\t\tborn in\tparis\r\n"  # an empty field (PathQuestion's layout) and a CRLF ending
       "marie_curie\tspouse\tpierre_curie\n")  # a repeat counts once


@pytest.fixture(scope="module")
def kb_graph(tmp_path_factory, embedder):
    from glm_dspy.graph import open_graph
    from glm_dspy.graphs.build import build_database

    folder = tmp_path_factory.mktemp("triples")
    (folder / "kb.tsv").write_text(TSV)
    report = build_database(f"triples:{folder / 'kb.tsv'}", folder / "db", embedder=embedder)
    assert (report.name, report.num_nodes, report.num_edges) == ("triples", 4, 6)
    with open_graph(folder / "db", embedder=embedder) as graph:
        yield graph


def test_relations_are_neighbour_types_both_ways(kb_graph):
    assert kb_graph.schema.neighbour_types("entity") == ["born_in", "inv_born_in", "inv_spouse", "spouse"]
    check = kb_graph.retriever.neighbour_check
    assert check("marie_curie", "born_in") == ["warsaw"]
    assert check("warsaw", "inv_born_in") == ["marie_curie"]
    assert check("pierre_curie", "inv_spouse") == ["marie_curie"]
    assert check("paris", "inv_born_in") == ["pierre_curie"]
    assert check("paris", "spouse") == []  # one node type: every relation is valid, this one is empty
    assert "has no neighbour type 'parent'; valid: ['born_in', 'inv_born_in'" in check("paris", "parent")


def test_node_info_and_retrieve_node(kb_graph):
    # neighbours: degree descending, then id; marie_curie has spouse + born_in, pierre_curie
    # has born_in + inv_spouse (degree 2), warsaw only inv_born_in (degree 1)
    assert kb_graph.retriever.node_info("marie_curie") == (
        "[Node:marie_curie {name:marie curie, type:entity}]\n"
        "[neighbours:(pierre_curie:spouse {name:pierre curie}),(warsaw:born_in {name:warsaw})]")
    assert kb_graph.retriever.retrieve_node("Warsaw") == "warsaw"


def test_relation_names():
    assert relation_name("__people__person__nationality") == "people_person_nationality"
    assert relation_name("born in") == "born_in" and relation_name("2nd-wife") == "r_2nd_wife"
    # one word in any script is kept as written
    assert [relation_name(r) for r in ("配偶", "父亲", "Ähnlich_zu", "Born_In")] == ["配偶", "父亲", "Ähnlich_zu", "Born_In"]
    assert relation_name("it's") == "it_s" and relation_name("Ähnlich zu") == "Ähnlich_zu"


def test_unicode_header_and_bom(tmp_path):
    """A BOM and a header line are dropped, Unicode relations kept, every rename said."""
    graph = _graph_of(tmp_path, "\ufeffsubject\trelation\tobject\n张三\t配偶\t李四\n张三\tit's\t王五\n")
    assert graph.relations == ["inv_it_s", "inv_配偶", "it_s", "配偶"]
    assert graph.nodes["entity"].table.column("id").to_pylist() == ["张三", "李四", "王五"]
    assert graph.notes == [f"{tmp_path / 'kb.tsv'}:1: skipped the header line 'subject' 'relation' 'object'",
                           f"{tmp_path / 'kb.tsv'}: 1 relation(s) are not one word and are stored with '_': "
                           "\"it's\" as 'it_s'"]


def test_a_first_line_that_is_a_triple_is_kept(tmp_path):
    assert _graph_of(tmp_path, "subject\tspouse\tobject\n").relations == ["inv_spouse", "spouse"]


def _graph_of(tmp_path, text: str | bytes):
    path = tmp_path / "kb.tsv"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return triples_graph(path)


@pytest.mark.parametrize("text, message", [
    ("a\tr\tb\na\tr\n", "kb.tsv:2: expected subject<TAB>relation<TAB>object, got 2 field(s): 'a\\tr'"),
    ("a\tr\tb\tc\n", "kb.tsv:1: expected subject<TAB>relation<TAB>object, got 4 field(s)"),
    ("a\tr\tb\nx\x01y\tr\tb\n", "kb.tsv:2: node id 'x\\x01y' contains control characters"),
    (b"a\tr\tb\n\xff\tr\tb\n", "kb.tsv:2: not UTF-8 text"),
    ("a\tr-s\tb\nb\tr_s\tc\n", "kb.tsv:2: relation 'r_s' (forward) would be neighbour type 'r_s', "
                               "which relation 'r-s' (forward, line 1) already is"),
    ("a\tx\tb\nb\tinv_x\tc\n", "kb.tsv:2: relation 'inv_x' (forward) would be neighbour type 'inv_x', "
                               "which relation 'x' (inverse, line 1) already is"),
    ("\n\n", "kb.tsv: no triples"),
    ("a,r,b\nc,r,d\n", "kb.tsv:1: expected subject<TAB>relation<TAB>object, got 1 field(s): 'a,r,b'; the line "
                      "has no TAB but 2 commas: a triples file is TAB-separated"),
    ("a;r;b\n", "but 2 semicolons"),
    ("a\tr\tb\na\t" + "r" * 257 + "\tb\n", "kb.tsv:2: relation 'rrrr"),
    ("a\t" + "r" * 253 + "\tb\n", "kb.tsv:1: relation 'rrrr"),  # its inverse would be 257 long
])
def test_malformed_files_name_file_and_line(tmp_path, text, message):
    with pytest.raises(GraphFormatError) as error:
        _graph_of(tmp_path, text)
    assert message in str(error.value)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such triples file"):
        triples_graph(tmp_path / "nope.tsv")


def test_a_name_written_as_its_id_finds_its_own_node(tmp_path, embedder):
    """PathQuestion asks about `charles_lennox_1st_duke_of_richmond`; a small model copies that
    into its snippet or query. Embedded with its underscores it was nearer the 3rd duke's name."""
    from glm_dspy.graph import open_graph
    from glm_dspy.modules.text2cypher import Text2Cypher
    from glm_dspy.graphs.build import build_database

    dukes = [f"charles_lennox_{n}_duke_of_richmond" for n in ("1st", "2nd", "3rd", "4th", "5th")]
    (tmp_path / "kb.tsv").write_text("".join(f"{a}\tchildren\t{b}\n" for a, b in zip(dukes, dukes[1:]))
                                     + "".join(f"{d}\tgender\tmale\n" for d in dukes))
    build_database(f"triples:{tmp_path / 'kb.tsv'}", tmp_path / "db", embedder=embedder)
    with open_graph(tmp_path / "db", embedder=embedder) as graph:
        for duke in dukes:
            assert graph.retriever.retrieve_node(duke) == duke
        query = Text2Cypher(graph, examples=None).post_process(
            f"MATCH (a:entity {{name: '{dukes[0]}'}})-[:rel_children]->(b:entity) RETURN b.name",
            f"who is {dukes[0]} 's heir ?")
        assert "{name: 'charles lennox 1st duke of richmond'}" in query
