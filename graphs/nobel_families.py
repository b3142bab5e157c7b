"""Question template families over the Nobel graph (`glm_dspy.graphs.nobel`); `glm_dspy.graphs.nobel_templates` instantiates them.

A family is a question template and the Cypher that answers it, for every row of its
`candidates` query. Each candidates row names the family's entities by id in columns `a`
(and `b`), and may carry a plain value `category` (a prize category, not a node). In
`question`, `{a}`/`{b}` become the entities' names and `{category}` the value; in `cypher`
they become string literals of the ids and the value (`glm_dspy.graphs.literal`), so no name is
ever spliced into a query. `max_values` is 1 for extremes: their Cypher returns every entity
tied at the extreme, so a tie (more than one value) drops the candidate rather than picking
one arbitrarily. Relations follow `glm_dspy.graphs.nobel`: laureate -prize-> prize -laureate->,
laureate -institution-> institution -laureate->, laureate -birth_city-> city -born_laureate->,
institution -city-> city -institution->, city -country-> country -city->, student -mentor->
mentor -student-> student.
"""

from __future__ import annotations

from dataclasses import dataclass

from glm_dspy.graphs.questions import TIERS
from glm_dspy.graphs.synthetic_questions import MAX_LIST_ANSWER


@dataclass(frozen=True, slots=True)
class Family:
    """One template family. Invariants: slug is unique among FAMILIES and safe in a qid
    (lowercase letters and `_`); tier is one of TIERS; the templates use only the
    placeholders their candidates query returns."""

    slug: str
    tier: str
    question: str
    candidates: str
    cypher: str
    max_values: int = MAX_LIST_ANSWER

    def __post_init__(self):
        assert self.slug.replace("_", "").isalpha() and self.slug.islower(), f"family slug {self.slug!r}"
        assert self.tier in TIERS, f"family {self.slug}: tier {self.tier!r} is not one of {TIERS}"
        assert 1 <= self.max_values <= MAX_LIST_ANSWER, f"family {self.slug}: max_values {self.max_values}"
        for key in ("{a}", "{b}", "{category}"):
            assert (key in self.question) == (key in self.cypher), f"family {self.slug}: {key} in only one template"


# candidates queries shared by several families
LAUREATES_WITH_PRIZE = "MATCH (n:laureate)-[:rel_prize]->(:prize) RETURN DISTINCT n.id AS a"
PRIZES = "MATCH (n:prize) RETURN n.id AS a"
MENTORS = "MATCH (n)-[:rel_student]->() RETURN DISTINCT n.id AS a"
STUDENTS = "MATCH (n)-[:rel_mentor]->() RETURN DISTINCT n.id AS a"
BIRTH_CITIES = "MATCH (n:city)-[:rel_born_laureate]->() RETURN DISTINCT n.id AS a"
INSTITUTIONS = "MATCH (n:institution)-[:rel_laureate]->() RETURN DISTINCT n.id AS a"
BIRTH_COUNTRIES = "MATCH (n:country)-[:rel_city]->(:city)-[:rel_born_laureate]->() RETURN DISTINCT n.id AS a"
INSTITUTION_COUNTRIES = "MATCH (n:country)-[:rel_city]->(:city)-[:rel_institution]->() RETURN DISTINCT n.id AS a"
L = "MATCH (l:laureate {{id: {a}}})"  # the named laureate
P = "MATCH (p:prize {{id: {a}}})"

FAMILIES = [
    # ---- single hop: a feature of the named entity, or its direct neighbours ---------------
    Family("birth_date", "single_hop", "When was {a} born?", LAUREATES_WITH_PRIZE,
           L + " WHERE NOT l.birth_date CONTAINS '-00' RETURN l.birth_date"),
    Family("death_date", "single_hop", "When did {a} die?", LAUREATES_WITH_PRIZE,
           L + " WHERE NOT l.death_date CONTAINS '-00' RETURN l.death_date"),
    Family("full_name", "single_hop", "What is the full name of the laureate {a}?", LAUREATES_WITH_PRIZE,
           L + " WHERE l.full_name <> l.name RETURN l.full_name"),
    Family("prize_amount", "single_hop", "What was the prize amount of the {a}?", PRIZES, P + " RETURN p.amount"),
    Family("prize_date", "single_hop", "On what date was the {a} awarded?", PRIZES,
           P + " WHERE NOT p.date_awarded CONTAINS '-00' RETURN p.date_awarded"),
    Family("prize_years", "single_hop", "In which year did {a} receive a Nobel Prize?", LAUREATES_WITH_PRIZE,
           L + "-[:rel_prize]->(p:prize) RETURN DISTINCT p.year"),
    Family("prize_categories", "single_hop", "In which category did {a} receive a Nobel Prize?",
           LAUREATES_WITH_PRIZE, L + "-[:rel_prize]->(p:prize) RETURN DISTINCT p.category"),
    Family("birth_city", "single_hop", "In which city was {a} born?", LAUREATES_WITH_PRIZE,
           L + "-[:rel_birth_city]->(c:city) RETURN c.name"),
    Family("prizes", "single_hop", "Which Nobel Prize did {a} receive?", LAUREATES_WITH_PRIZE,
           L + "-[:rel_prize]->(p:prize) RETURN p.name"),
    Family("institutions", "single_hop", "Which institution was {a} affiliated with when receiving the Nobel Prize?",
           LAUREATES_WITH_PRIZE, L + "-[:rel_institution]->(i:institution) RETURN i.name"),
    Family("mentors", "single_hop", "Who were the mentors of {a}?", STUDENTS,
           "MATCH (s {{id: {a}}})-[:rel_mentor]->(m) RETURN m.name"),
    Family("students", "single_hop", "Who were the students of {a}?", MENTORS,
           "MATCH (m {{id: {a}}})-[:rel_student]->(s) RETURN s.name"),
    Family("prize_laureates", "single_hop", "Who received the {a}?", PRIZES,
           P + "-[:rel_laureate]->(l:laureate) RETURN l.name"),
    Family("city_born_laureates", "single_hop", "Which laureates were born in {a}?", BIRTH_CITIES,
           "MATCH (c:city {{id: {a}}})-[:rel_born_laureate]->(l:laureate) RETURN l.name"),
    Family("institution_city", "single_hop", "In which city is {a} located?", INSTITUTIONS,
           "MATCH (i:institution {{id: {a}}})-[:rel_city]->(c:city) RETURN c.name"),
    # ---- multi hop: paths through prizes, affiliations, places and mentorship --------------
    Family("mentor_prizes", "multi_hop", "Which Nobel Prizes did the mentors of {a} receive?", STUDENTS,
           "MATCH (s {{id: {a}}})-[:rel_mentor]->(m:laureate)-[:rel_prize]->(p:prize) RETURN DISTINCT p.name"),
    Family("mentor_birth_cities", "multi_hop", "In which cities were the Nobel laureate mentors of {a} born?",
           STUDENTS, "MATCH (s {{id: {a}}})-[:rel_mentor]->(m:laureate)-[:rel_birth_city]->(c:city) "
                     "RETURN DISTINCT c.name"),
    Family("colaureates", "multi_hop", "Who shared a Nobel Prize with {a}?", LAUREATES_WITH_PRIZE,
           L + "-[:rel_prize]->(:prize)-[:rel_laureate]->(o:laureate) WHERE o.id <> l.id RETURN DISTINCT o.name"),
    Family("birth_country", "multi_hop", "In which country was {a} born?", LAUREATES_WITH_PRIZE,
           L + "-[:rel_birth_city]->(:city)-[:rel_country]->(k:country) RETURN k.name"),
    Family("birth_continent", "multi_hop", "On which continent was {a} born?", LAUREATES_WITH_PRIZE,
           L + "-[:rel_birth_city]->(:city)-[:rel_country]->(k:country) RETURN k.continent"),
    Family("institution_country", "multi_hop",
           "In which country is the institution {a} was affiliated with when receiving the Nobel Prize?",
           LAUREATES_WITH_PRIZE, L + "-[:rel_institution]->(:institution)-[:rel_city]->(:city)"
                                     "-[:rel_country]->(k:country) RETURN DISTINCT k.name"),
    Family("student_prizes", "multi_hop", "Which Nobel Prizes were received by students of {a}?", MENTORS,
           "MATCH (m {{id: {a}}})-[:rel_student]->(:laureate)-[:rel_prize]->(p:prize) RETURN DISTINCT p.name"),
    Family("city_laureate_prizes", "multi_hop", "Which Nobel Prizes were received by laureates born in {a}?",
           BIRTH_CITIES, "MATCH (c:city {{id: {a}}})-[:rel_born_laureate]->(:laureate)-[:rel_prize]->(p:prize) "
                         "RETURN DISTINCT p.name"),
    Family("prize_birth_cities", "multi_hop", "In which cities were the laureates of the {a} born?", PRIZES,
           P + "-[:rel_laureate]->(:laureate)-[:rel_birth_city]->(c:city) RETURN DISTINCT c.name"),
    Family("prize_institutions", "multi_hop",
           "Which institutions were the laureates of the {a} affiliated with when receiving it?", PRIZES,
           P + "-[:rel_laureate]->(:laureate)-[:rel_institution]->(i:institution) RETURN DISTINCT i.name"),
    Family("institution_prizes", "multi_hop", "Which Nobel Prizes were received by laureates affiliated with {a}?",
           INSTITUTIONS, "MATCH (i:institution {{id: {a}}})-[:rel_laureate]->(:laureate)-[:rel_prize]->(p:prize) "
                         "RETURN DISTINCT p.name"),
    Family("grand_mentors", "multi_hop", "Who were the mentors of the mentors of {a}?", STUDENTS,
           "MATCH (s {{id: {a}}})-[:rel_mentor]->()-[:rel_mentor]->(g) RETURN DISTINCT g.name"),
    Family("same_birth_city", "multi_hop", "Which other laureates were born in the same city as {a}?",
           LAUREATES_WITH_PRIZE, L + "-[:rel_birth_city]->(:city)-[:rel_born_laureate]->(o:laureate) "
                                     "WHERE o.id <> l.id RETURN DISTINCT o.name"),
    # ---- aggregation: counts, extremes, set operations --------------------------------------
    Family("prize_count", "aggregation", "How many Nobel Prizes did {a} receive?", LAUREATES_WITH_PRIZE,
           L + "-[:rel_prize]->(p:prize) RETURN count(DISTINCT p)"),
    Family("student_count", "aggregation", "How many students did {a} have?", MENTORS,
           "MATCH (m {{id: {a}}})-[:rel_student]->(s) RETURN count(DISTINCT s)"),
    Family("prize_laureate_count", "aggregation", "How many laureates shared the {a}?", PRIZES,
           P + "-[:rel_laureate]->(l:laureate) RETURN count(DISTINCT l)"),
    Family("country_born_count", "aggregation", "How many laureates were born in {a}?", BIRTH_COUNTRIES,
           "MATCH (k:country {{id: {a}}})-[:rel_city]->(:city)-[:rel_born_laureate]->(l:laureate) "
           "RETURN count(DISTINCT l)"),
    Family("institution_laureate_count", "aggregation",
           "How many laureates were affiliated with {a} when they received the Nobel Prize?", INSTITUTIONS,
           "MATCH (i:institution {{id: {a}}})-[:rel_laureate]->(l:laureate) RETURN count(DISTINCT l)"),
    Family("laureate_student_count", "aggregation", "How many of the students of {a} received a Nobel Prize?",
           MENTORS, "MATCH (m {{id: {a}}})-[:rel_student]->(s:laureate)-[:rel_prize]->(:prize) "
                    "RETURN count(DISTINCT s)"),
    Family("country_first_laureate", "aggregation",
           "Who was the first laureate born in {a} to receive a Nobel Prize?", BIRTH_COUNTRIES,
           "MATCH (k:country {{id: {a}}})-[:rel_city]->(:city)-[:rel_born_laureate]->(:laureate)"
           "-[:rel_prize]->(p:prize) WITH k, min(p.year) AS first "
           "MATCH (k)-[:rel_city]->(:city)-[:rel_born_laureate]->(l:laureate)-[:rel_prize]->(p:prize) "
           "WHERE p.year = first RETURN DISTINCT l.name", max_values=1),
    Family("institution_first_laureate", "aggregation",
           "Who was the first laureate affiliated with {a} to receive a Nobel Prize?", INSTITUTIONS,
           "MATCH (i:institution {{id: {a}}})-[:rel_laureate]->(:laureate)-[:rel_prize]->(p:prize) "
           "WITH i, min(p.year) AS first MATCH (i)-[:rel_laureate]->(l:laureate)-[:rel_prize]->(p:prize) "
           "WHERE p.year = first RETURN DISTINCT l.name", max_values=1),
    Family("country_top_institution", "aggregation",
           "Which institution in {a} had the most laureates affiliated with it at the time of their prize?",
           INSTITUTION_COUNTRIES,
           "MATCH (k:country {{id: {a}}})-[:rel_city]->(:city)-[:rel_institution]->(i:institution)"
           "-[:rel_laureate]->(l:laureate) WITH i, count(DISTINCT l) AS num_laureates "
           "WITH collect({{name: i.name, n: num_laureates}}) AS rows, max(num_laureates) AS top "
           "UNWIND rows AS row WITH row, top WHERE row.n = top RETURN row.name", max_values=1),
    Family("city_eldest_laureate", "aggregation", "Which laureate born in {a} was born first?", BIRTH_CITIES,
           "MATCH (c:city {{id: {a}}})-[:rel_born_laureate]->(l:laureate) WHERE NOT l.birth_date CONTAINS '-00' "
           "WITH c, min(l.birth_date) AS first MATCH (c)-[:rel_born_laureate]->(l:laureate) "
           "WHERE l.birth_date = first RETURN l.name", max_values=1),
    Family("shared_mentors", "aggregation", "Which mentors did {a} and {b} have in common?",
           "MATCH (s:laureate)-[:rel_mentor]->()<-[:rel_mentor]-(t:laureate) WHERE s.id < t.id "
           "RETURN DISTINCT s.id AS a, t.id AS b",
           "MATCH ({{id: {a}}})-[:rel_mentor]->(m)<-[:rel_mentor]-({{id: {b}}}) RETURN DISTINCT m.name"),
    Family("country_category_laureates", "aggregation",
           "Which laureates born in {a} received the Nobel Prize in {category}?",
           "MATCH (n:country)-[:rel_city]->(:city)-[:rel_born_laureate]->(:laureate)-[:rel_prize]->(p:prize) "
           "RETURN DISTINCT n.id AS a, p.category AS category",
           "MATCH (k:country {{id: {a}}})-[:rel_city]->(:city)-[:rel_born_laureate]->(l:laureate)"
           "-[:rel_prize]->(:prize {{category: {category}}}) RETURN DISTINCT l.name"),
    Family("institution_category_count", "aggregation",
           "How many laureates affiliated with {a} received the Nobel Prize in {category}?",
           "MATCH (n:institution)-[:rel_laureate]->(:laureate)-[:rel_prize]->(p:prize) "
           "RETURN DISTINCT n.id AS a, p.category AS category",
           "MATCH (i:institution {{id: {a}}})-[:rel_laureate]->(l:laureate)-[:rel_prize]->(:prize "
           "{{category: {category}}}) RETURN count(DISTINCT l)"),
    Family("colaureates_with_mentor", "aggregation",
           "Which laureates who shared a Nobel Prize with {a} also had a mentor?", LAUREATES_WITH_PRIZE,
           L + "-[:rel_prize]->(:prize)-[:rel_laureate]->(o:laureate)-[:rel_mentor]->() WHERE o.id <> l.id "
               "RETURN DISTINCT o.name"),
]
assert len({f.slug for f in FAMILIES}) == len(FAMILIES), "family slugs must be unique"
