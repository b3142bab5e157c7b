"""The roles two named things play in the relation a yes/no question says joins them
(glm_dspy/modules/join_roles.py, lever "roles"), and the paths such a question may join by:
those nodes of a start's type have, not only its own (readings.py `_join_paths`, lever
"type-paths"), so a fact the question states the wrong way round reads nothing and says no."""

from __future__ import annotations

import pytest

from glm_dspy.graphs.cypher.candidate import COUNT, Candidate, Hop, Start
from glm_dspy.modules.discriminate import Discriminate
from glm_dspy.modules.join_roles import asked_role, fronted, roles_against, said_as_verb, source_role
from glm_dspy.modules.readings import LEVERS, Readings
from glm_dspy.readings.relation_voice import object_words
from glm_dspy.runs.steps import StepLog

LANDAU = Start.named("laureate", "name", "Lev Landau", "l")
ABRIKOSOV = Start.named("laureate", "name", "Alexei Abrikosov", "a")
L, A = LANDAU.bound, ABRIKOSOV.bound


def test_a_noun_said_as_a_verb_between_two_names():
    words = object_words("Did Lev Landau mentor Alexei Abrikosov?")
    assert said_as_verb(words, L, A, "mentor") and not said_as_verb(words, A, L, "mentor")
    noun = object_words("Was Lev Landau the mentor of Alexei Abrikosov?")
    assert not said_as_verb(noun, L, A, "mentor")  # "the mentor of": a noun
    under = object_words("Did Alexei Abrikosov study under Lev Landau?")
    assert said_as_verb(under, A, L, "student", {"study": {"student"}})  # a word that means it, a preposition
    assert not said_as_verb(under, A, L, "student")
    assert not said_as_verb(words, L, A, "birth_city")  # a name of two words is no verb


@pytest.mark.parametrize("question, landau_source", [
    ("Did Lev Landau mentor Alexei Abrikosov?", False),  # Abrikosov -mentor-> Landau
    ("Was Lev Landau the mentor of Alexei Abrikosov?", False),
    ("Is Lev Landau Alexei Abrikosov's mentor?", False),
    ("Was Alexei Abrikosov a student of Lev Landau?", False),  # by the inverse's name
    ("Did Alexei Abrikosov mentor Lev Landau?", True),
    ("Was Lev Landau a student of Alexei Abrikosov?", True),
    ("Did Lev Landau and Alexei Abrikosov share a prize?", None),
])
def test_the_role_each_name_plays(question, landau_source):
    words = object_words(question)
    assert source_role(words, L, A, "mentor", {}, "student") is landau_source
    flipped = None if landau_source is None else not landau_source
    assert source_role(words, A, L, "mentor", {}, "student") is flipped


def test_the_passive_agent_is_the_relation_s_target():
    words = object_words("Was Alexei Abrikosov trained by Lev Landau?")
    passive = {"mentor": frozenset({"lev", "landau"})}  # "trained" means mentor, its agent after "by"
    assert source_role(words, L, A, "mentor", passive, None) is False
    assert source_role(words, A, L, "mentor", passive, None) is True


@pytest.mark.parametrize("question, source", [
    ("Who did Lev Landau mentor?", False),  # his students: backwards over mentor
    ("Whom did Lev Landau mentor?", False),
    ("Who was Lev Landau the mentor of?", False),
    ("Who was Lev Landau a student of?", True),  # his mentors, by the inverse's name
    ("Who did Lev Landau study under?", True),  # a word that means the inverse's name
    ("Who was Lev Landau mentored by?", True),  # a passive
    ("Who mentored Lev Landau?", None),  # the asked thing is the subject: said by other rules
    ("Who were the students of Lev Landau?", None),
])
def test_the_named_thing_s_role_against_a_fronted_asked_thing(question, source):
    words = object_words(question)
    assert fronted(words) == (source is not None or "students" in question)
    assert asked_role(words, L, "mentor", "student", {"study": {"student"}}) is source


def test_a_join_that_takes_a_name_in_the_other_role_goes_against_the_way():
    words = object_words("Did Lev Landau mentor Alexei Abrikosov?")
    landaus_mentor = Candidate(LANDAU, (Hop("mentor", True, "laureate"),), COUNT, join=(ABRIKOSOV, ()))
    landaus_student = Candidate(LANDAU, (Hop("mentor", False, "laureate"),), COUNT, join=(ABRIKOSOV, ()))
    abrikosovs_mentor = Candidate(LANDAU, (), COUNT, join=(ABRIKOSOV, (Hop("mentor", True, "laureate"),)))
    assert roles_against(landaus_mentor, words)
    assert not roles_against(landaus_student, words) and not roles_against(abrikosovs_mentor, words)
    assert not roles_against(landaus_mentor, None)  # roles not read
    alone = Candidate(LANDAU, (Hop("mentor", True, "laureate"),), COUNT)
    assert not roles_against(alone, words)  # one start, no thing asked: its role is relation_voice's
    fronted_ = object_words("Who did Lev Landau mentor?")
    assert roles_against(alone, fronted_)  # his mentors, where he is the mentor
    assert not roles_against(Candidate(LANDAU, (Hop("mentor", False, "laureate"),), COUNT), fronted_)


def _mentors(graph) -> dict[str, set[str]]:
    rows = graph.store.query("MATCH (a:laureate)-[:rel_mentor]->(b) RETURN a.name AS a, b.name AS b")
    found: dict[str, set[str]] = {}
    for row in rows:
        found.setdefault(row["a"], set()).add(row["b"])
    return found


def test_who_did_x_mentor_reads_x_s_students(nobel_graph):
    """A laureate with both mentors and students, asked each way with the asked thing fronted:
    the answer is the set the graph holds that way (readings alone)."""
    mentors = _mentors(nobel_graph)
    students: dict[str, set[str]] = {}
    for student, theirs in mentors.items():
        for mentor in theirs:
            students.setdefault(mentor, set()).add(student)
    names = [r["n"] for r in nobel_graph.store.query("MATCH (l:laureate) RETURN l.name AS n")]
    person = sorted(p for p in mentors if p in students and names.count(p) == 1 and p.isascii())[0]
    discriminate = Discriminate(nobel_graph)
    for question, expected in ((f"Who did {person} mentor?", students[person]),
                               (f"Who was {person} a student of?", mentors[person])):
        answer = discriminate.answer(question, StepLog())
        assert answer is not None and set(answer[0].split(", ")) == expected, question


def _pairs(graph, n: int) -> list[tuple[str, str]]:
    """(student, mentor) pairs of laureates the graph holds one way only, both names unique."""
    rows = graph.store.query("MATCH (a:laureate)-[:rel_mentor]->(b:laureate) RETURN a.name AS a, b.name AS b")
    edges = {(r["a"], r["b"]) for r in rows}
    names = [r["n"] for r in graph.store.query("MATCH (l:laureate) RETURN l.name AS n")]
    return sorted((a, b) for a, b in edges if (b, a) not in edges and names.count(a) == names.count(b) == 1)[:n]


def test_yes_no_says_which_way_a_relation_runs(nobel_graph):
    """Each statement asked both ways round: the graph says yes one way and no the other."""
    discriminate = Discriminate(nobel_graph)
    forms = ["Did {mentor} mentor {student}?", "Was {student} a student of {mentor}?",
             "Was {mentor} the mentor of {student}?"]
    pairs = _pairs(nobel_graph, 2)
    assert len(pairs) == 2
    for student, mentor in pairs:
        for form in forms:
            right = discriminate.answer(form.format(student=student, mentor=mentor), StepLog())
            wrong = discriminate.answer(form.format(student=mentor, mentor=student), StepLog())
            assert (right[0], wrong[0]) == ("yes", "no"), (form, student, mentor)


def test_a_yes_no_join_may_take_paths_its_start_lacks(nobel_graph):
    """A laureate with no student joins another by the student hop nodes of its type have: the
    reading exists (it reads nothing, which says no); with lever "type-paths" off it is not
    offered."""
    lacking = [(s, m) for s, m in _pairs(nobel_graph, 40) if not nobel_graph.store.query(
        "MATCH (a:laureate)<-[:rel_mentor]-(:laureate) WHERE a.name = $n RETURN a LIMIT 1", {"n": s})]
    student, mentor = lacking[0]
    question = f"Did {student} mentor {mentor}?"
    own = Start.named("laureate", "name", student).bound

    def students_hop(readings) -> bool:
        sides = [(c.start, c.hops) for c in readings if c.join] + [c.join for c in readings if c.join]
        return any(start.bound == own and hops[:1] == (Hop("mentor", False, "laureate"),) for start, hops in sides)

    assert students_hop(Readings(nobel_graph).candidates(question))
    assert not students_hop(Readings(nobel_graph, levers=LEVERS - {"type-paths"}).candidates(question))


def test_two_names_that_share_a_word_are_two_things(nobel_graph):
    """"Marie Curie" and "Pierre Curie" are bound from different words (`Start.said_alike`):
    a yes/no question joins them, and says what the graph says."""
    marie = Start.named("laureate", "name", "Marie Curie", "m")
    pierre = Start.named("laureate", "name", "Pierre Curie", "p")
    family = Start.anchored("laureate", (), frozenset({"curie"}))
    assert not marie.said_alike(pierre) and marie.said_alike(family)
    assert not marie.said_alike(Start("prize", (), "prize"))  # every prize: bound from no words
    shared = "MATCH (a:laureate)<-[:rel_laureate]-(:prize)-[:rel_laureate]->(b:laureate) " \
             "WHERE a.name = $a AND b.name = $b RETURN count(*) AS c"
    discriminate = Discriminate(nobel_graph)
    for other in ("Pierre Curie", "Irène Joliot-Curie"):
        holds = nobel_graph.store.query(shared, {"a": "Marie Curie", "b": other})[0]["c"] > 0
        answer = discriminate.answer(f"Did Marie Curie share a prize with {other}?", StepLog())
        assert answer is not None and answer[0] == ("yes" if holds else "no"), other


def test_a_noun_at_the_end_of_a_copular_question_is_no_verb():
    """ "What is the family name of the 1935 physics laureate?" ends on the relation's noun, with
    the start's words before it: a noun phrase, not "Who did X mentor?"."""
    words = object_words("What is the family name of the 1935 physics laureate?")
    assert asked_role(words, frozenset({"1935", "physics"}), "laureate", None) is None


@pytest.fixture(scope="module")
def follows(verbs_world):
    """The verb world (FOLLOWS: Person -> Person, named by a verb) with one person who follows
    another that does not follow them back."""
    from glm_dspy.modules.discriminate import Discriminate

    graph, nodes, edges = verbs_world
    name = {row["id"]: row["name"] for row in nodes["Person"]}
    pairs = set(edges["FOLLOWS"])
    a, b = next((a, b) for a, b in sorted(pairs) if (b, a) not in pairs)
    followed = sorted(name[t] for s, t in pairs if s == a)
    return Discriminate(graph, confidence=None), name[a], name[b], followed


def test_a_relation_named_by_a_verb_has_its_subject_at_the_source(follows):
    """"Does X follow Y?" is X -FOLLOWS-> Y, "Who does X follow?" X's FOLLOWS edges: a verb's
    roles are the noun's turned ("Did X mentor Y?" is Y's mentor X)."""
    from glm_dspy.runs.steps import StepLog

    program, follower, followed_one, followed = follows
    assert program.judge(f"Does {follower} follow {followed_one}?", StepLog()).answer == "yes"
    assert program.judge(f"Does {followed_one} follow {follower}?", StepLog()).answer == "no"
    assert sorted(program.judge(f"Who does {follower} follow?", StepLog()).answer.split(", ")) == followed
