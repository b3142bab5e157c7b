"""`glm-dspy ask --show`: the answer's evidence listed in the terminal and drawn into a file (no
browser, no model: the LM is DummyLM, and the Cypher it "writes" is scripted)."""

import shutil

import dspy
import pytest
from dspy.utils import DummyLM

from glm_dspy import cli

BIRTH = "MATCH (l:laureate {name: 'Marie Curie'})-[:rel_birth_city]->(c:city) RETURN c.name"


@pytest.fixture
def scripted_configure(monkeypatch):
    import glm_dspy.configuration

    def configure(model, **server):
        lm = DummyLM([{"cypher": BIRTH}] * 3)
        dspy.configure(lm=lm)
        return lm

    monkeypatch.setattr(glm_dspy.configuration, "configure", configure)


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot (apt-get install graphviz)")
def test_ask_show_lists_the_evidence_and_writes_its_svg(nobel_db, scripted_configure, tmp_path, capsys):
    drawing = tmp_path / "born.svg"
    code = cli.main(["ask", "In which city was Marie Curie born?", "--db", str(nobel_db), "--glm-program", "none",
                     "--show", str(drawing)])
    out, err = capsys.readouterr()
    assert code == 0 and out == "Warsaw\n"  # the answer on stdout; the steps and the evidence on stderr
    assert "* Warsaw [city city_warsaw_poland]" in err and "Marie Curie -[birth_city]-> Warsaw" in err
    assert f"drawing: {drawing}" in err
    svg = drawing.read_text()
    answer = svg[svg.index('class="node answer"'):]
    assert answer.index("<title>city_warsaw_poland</title>") < answer.index("</g>")  # the answer's node is marked
    assert "<title>l6</title>" in svg and "<title>l6&#45;&gt;city_warsaw_poland</title>" in svg
    assert ">birth_city</text>" in svg and ">Marie Curie</text>" in svg


def test_without_graphviz_the_dot_source_is_written(nobel_graph, monkeypatch, tmp_path):
    from glm_dspy.evidence.show import show_evidence
    from glm_dspy.runs.steps import Step

    monkeypatch.setattr(shutil, "which", lambda name: None)
    said = []
    written = show_evidence([Step("graph", code=BIRTH, output="Warsaw").as_dict()], "Warsaw", nobel_graph,
                            tmp_path / "born.svg", say=said.append)
    assert written == tmp_path / "born.dot" and said[-1] == f"drawing: {written}"
    assert "apt-get install graphviz" in said[-2]
    assert '"l6" -> "city_warsaw_poland" [label="birth_city"];' in written.read_text()
