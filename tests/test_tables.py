"""glm_dspy.graphs.tables: a folder of node and edge tables (CSV, TSV, Parquet) builds a graph that Cypher and
the graph functions read; names are kept as written; errors name the file, line and column."""

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from glm_dspy.graphs.grbench import GraphFormatError
from glm_dspy.graphs.tables import tables_graph

MOVIES = Path(__file__).parent.parent / "examples" / "movies"


@pytest.fixture(scope="module")
def movies_db(tmp_path_factory, embedder) -> Path:
    from glm_dspy.graphs.build import build_database

    db = tmp_path_factory.mktemp("movies") / "db"
    report = build_database(f"csv:{MOVIES}", db, embedder=embedder)
    assert (report.name, report.num_nodes, report.num_edges, report.notes) == ("csv", 20, 30, [])
    return db


def test_the_shipped_example_builds_and_answers_cypher(movies_db):
    from glm_dspy.graphs.store import GraphStore

    store = GraphStore.open(movies_db)
    assert store.schema.summary() == (
        "Genre nodes: features [name]; neighbour types [-]\n"
        "Movie nodes: features [rating, released, title]; neighbour types [IN_GENRE]\n"
        "Person nodes: features [born, country, name]; neighbour types [ACTED_IN, DIRECTED]")
    assert {t: n.text_feature for t, n in store.schema.node_types.items()} == {
        "Genre": "name", "Movie": "title", "Person": "name"}
    assert store.schema.node_types["Movie"].features == {"rating": "DOUBLE", "released": "INT64", "title": "STRING"}
    rows = store.read("MATCH (p:Person)-[:rel_ACTED_IN]->(m:Movie {title: 'The Matrix'}) "
                      "RETURN p.name AS name ORDER BY name").rows
    assert [r["name"] for r in rows] == ["Carrie-Anne Moss", "Hugo Weaving", "Keanu Reeves", "Laurence Fishburne"]
    rows = store.read("MATCH (d:Person)-[:rel_DIRECTED]->(m:Movie) WHERE m.released < 1995 "
                      "RETURN d.name AS name, m.title AS title ORDER BY title").rows
    assert rows == [{"name": "Robert Zemeckis", "title": "Forrest Gump"},
                    {"name": "Nora Ephron", "title": "Sleepless in Seattle"}]


def test_the_graph_functions_read_it(movies_db, embedder):
    from glm_dspy.graph import open_graph

    with open_graph(movies_db, embedder=embedder) as graph:
        assert graph.retriever.retrieve_node("Forrest Gump") == "m3"
        assert graph.retriever.neighbour_check("m7", "IN_GENRE") == ["g1", "g2"]
        assert graph.retriever.node_feature("m3", "released") == 1994


def _folder(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(text if isinstance(text, bytes) else text.encode())
    return tmp_path


def test_unicode_names_kept_as_written_bom_dropped_semicolons_read(tmp_path):
    graph = tables_graph(_folder(tmp_path, {
        "nodes/人物.csv": "\ufeffid;名字;Größe\nz3;张三;1.7\nl4;李四;\n",
        "edges/配偶.csv": "source,target\nz3,l4\n",
        "edges/it's.tsv": "from\tto\nl4\tz3\n",
    }))
    assert list(graph.nodes) == ["人物"] and graph.relations == ["it's", "配偶"]
    assert graph.nodes["人物"].table.to_pylist() == [{"id": "z3", "名字": "张三", "Größe": 1.7},
                                                   {"id": "l4", "名字": "李四", "Größe": None}]
    assert graph.notes == []


def test_unicode_names_build_and_are_queried_through_the_gate(tmp_path, embedder):
    from glm_dspy.graph import open_graph
    from glm_dspy.graphs.build import build_database

    folder = _folder(tmp_path / "src", {"nodes/人物.csv": "id,name\nz3,张三\nl4,李四\n",
                                        "nodes/Stadt.csv": "id,name\nb,Berlin\n",
                                        "edges/配偶.csv": "source,target\nz3,l4\n",
                                        "edges/it's.csv": "source,target\nz3,b\n",
                                        "edges/Ähnlich_zu.csv": "source,target\nl4,z3\n"})
    build_database(f"tables:{folder}", tmp_path / "db", embedder=embedder)
    with open_graph(tmp_path / "db", embedder=embedder) as graph:
        assert graph.schema.neighbour_types("人物") == ["it's", "Ähnlich_zu", "配偶"]
        assert graph.store.read("MATCH (a:人物)-[:rel_配偶]->(b) RETURN b.name AS n").rows == [{"n": "李四"}]
        assert graph.store.read("MATCH (a)-[:`rel_it's`]->(b:Stadt) RETURN a.name AS n").rows == [{"n": "张三"}]
        assert graph.retriever.neighbour_check("l4", "Ähnlich_zu") == ["z3"]
        assert "(l4:配偶 {name:李四})" in graph.retriever.node_info("z3")


def test_parquet_files_keep_their_types(tmp_path):
    (tmp_path / "nodes").mkdir()
    pq.write_table(pa.table({"id": [1, 2], "title": ["A", "B"], "year": pa.array([1999, 2003], pa.int32())}),
                   tmp_path / "nodes" / "Film.parquet")
    _folder(tmp_path, {"edges/SEQUEL.csv": "source,target\n1,2\n"})
    graph = tables_graph(tmp_path)
    assert graph.nodes["Film"].table.column("id").to_pylist() == ["1", "2"]
    assert graph.nodes["Film"].table.schema.field("year").type == pa.int32()


def test_a_mapping_file_names_files_columns_and_types(tmp_path):
    graph = tables_graph(_folder(tmp_path, {
        "people.csv": "pid,full_name,zip\nx1,Ann,01234\nx2,Bob,\n",
        "knows.csv": "a,b,since\nx1,x2,2001\n",
        "graph.toml": '[nodes.Person]\nfile = "people.csv"\nid = "pid"\nname = "full_name"\n'
                      '[edges.KNOWS]\nfile = "knows.csv"\nsource = "a"\ntarget = "b"\n',
    }))
    assert graph.text_features == {"Person": "full_name"}
    assert graph.nodes["Person"].table.to_pylist() == [{"id": "x1", "full_name": "Ann", "zip": "01234"},
                                                       {"id": "x2", "full_name": "Bob", "zip": None}]
    assert graph.notes == [f"{tmp_path / 'knows.csv'}: column(s) 'since' not stored (edges keep no properties)"]


@pytest.mark.parametrize("files, message", [
    ({"nodes/P.csv": "key,name\na,A\n"}, "nodes/P.csv:1: no 'id' column (columns: key, name); name the id column"),
    ({"nodes/P.csv": "id,name\na,A\nb,B\na,C\n"},
     "nodes/P.csv:4:1: id 'a' is already the id of a node at {dir}/nodes/P.csv:2:1"),
    ({"nodes/P.csv": "id\na\n", "nodes/Q.csv": "id\nb\na\n"},
     "nodes/Q.csv:3:1: id 'a' is already the id of a node at {dir}/nodes/P.csv:2:1; ids must be unique across"),
    ({"nodes/P.csv": "id,name\na,A\n\n,B\n"}, "nodes/P.csv:4:1: no 'id'"),
    ({"nodes/P.csv": "id\na\n", "edges/R.csv": "source,target\na,a\na,zz\n"},
     "edges/R.csv:3:2: target 'zz' is the id of no node"),
    ({"nodes/P.csv": "id\na\n", "edges/R.csv": "start,end\na,a\n"}, "edges/R.csv:1: no 'source' column"),
    ({"nodes/P.csv": "id;name;age\na;Ann, Jr.;3\nb;Bob;4,5\n"}, None),  # commas inside fields: fine
    ({"nodes/P.csv": "id,name;age\na,A;3\nb,B,C;4\n"},
     "nodes/P.csv:3: 3 field(s) where the header has 2 (read as ','-separated; the header also has 1 ';'"),
    ({"nodes/P.csv": "id,born\na,1900\nb,19x0\n", "graph.toml": '[nodes.P]\ntypes = { born = "INT64" }\n'},
     "nodes/P.csv:3:2: column 'born': '19x0' is not a whole number (INT64), as graph.toml declares"),
    ({"nodes/P.csv": "id\na\n", "graph.toml": '[nodes.P]\nlabel = "x"\n'}, "graph.toml: [nodes.P]: unknown key(s) ['label']"),
    ({"nodes/P.csv": "id\na\n", "graph.toml": '[nodes.P]\ntypes = { a = "DATE" }\n'}, "declared 'DATE'; use one of"),
    ({"nodes/P.csv": "id," + "x" * 257 + "\na,1\n"}, "nodes/P.csv:1: column 'xxxx"),
    ({"nodes/P.csv": b"id\n\xff\n"}, "nodes/P.csv:2: not UTF-8 text"),
    ({"edges/R.csv": "source,target\n"}, "no node files"),
    ({"nodes/P.csv": "id\na\n", "nodes/p.csv": "id\nb\n"}, "is another file's type to Kuzu"),
])
def test_malformed_folders_name_file_line_and_column(tmp_path, files, message):
    folder = _folder(tmp_path, files)
    if message is None:
        assert tables_graph(folder).nodes["P"].table.column("name").to_pylist() == ["Ann, Jr.", "Bob"]
        return
    with pytest.raises(GraphFormatError) as error:
        tables_graph(folder)
    assert message.format(dir=tmp_path) in str(error.value)
