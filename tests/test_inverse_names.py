"""A relation the graph stores both ways under two names (Nobel's mentor and student): no path
takes the second (candidates.inverse_relations), so a hop backwards over the first is said by
the second's name too (reading_fit.path_fit, unsaid, repeated; lever "inverse")."""

from __future__ import annotations

from collections import Counter

from glm_dspy.modules.reading_fit import path_fit, repeated, unsaid
from glm_dspy.modules.readings import LEVERS, Readings
from glm_dspy.graphs.cypher.candidate import Candidate, Hop, Start
from glm_dspy.graphs.cypher.walk import inverse_relations

BORN = Start.named("laureate", "name", "Max Born", "x")
STUDENTS = Candidate(BORN, (Hop("mentor", False, "scholar"),), "name")  # the scholars whose mentor he is
MENTORS = Candidate(BORN, (Hop("mentor", True, "scholar"),), "name")
INVERSE = {"mentor": "student"}


def test_the_inverse_of_each_kept_relation_is_read_from_the_edges(nobel_graph):
    inverses = inverse_relations(nobel_graph.store, nobel_graph.schema)
    assert inverses[("student", "scholar", "laureate")] == ("mentor", "laureate", "scholar")
    names = Readings(nobel_graph)._inverse_names()
    assert names["mentor"] == "student"
    assert "institution" not in names.values()  # a type's own name says no more than the type the hop reaches


def test_a_hop_backwards_is_said_by_its_inverse_name():
    said = Counter({"student": 1})
    assert path_fit(STUDENTS, said, None, Counter(), inverse=INVERSE) > path_fit(STUDENTS, said, None, Counter())
    assert path_fit(MENTORS, said, None, Counter(), inverse=INVERSE) == path_fit(MENTORS, said, None, Counter())
    assert unsaid(STUDENTS, {"student"}, Counter(), inverse=INVERSE) == 0 < unsaid(STUDENTS, {"student"}, Counter())
    assert repeated(STUDENTS, Counter({"student": 1}), inverse=INVERSE) == 0


def test_the_students_of_a_laureate_are_read_backwards_over_mentor(nobel_graph):
    question = "Which scholars were students of Max Born?"
    rows = nobel_graph.store.query("MATCH (a:laureate)<-[:rel_mentor]-(x:scholar) WHERE a.name = 'Max Born' "
                                   "RETURN x.name AS n")
    best = Readings(nobel_graph).readings(question)[0]
    assert best.hops == (Hop("mentor", False, "scholar"),) and rows
    off = Readings(nobel_graph, levers=LEVERS - {"inverse"})
    assert off._inverse_names() and "inverse" not in off.levers
