"""Hand-written questions over the Nobel graph (`glm_dspy.graphs.nobel`), with answers computed by Cypher.

Each question keeps the Cypher that derives its answer on the loaded graph, so every answer
can be re-derived: `python -m glm_dspy.graphs.nobel_questions [--db DIR] [--out FILE]` runs them all
and rewrites `datasets/nobel/questions.jsonl` (`glm_dspy.graphs.questions` JSON Lines with "tier" and
"cypher" set). Without --db it loads a fresh
database (no RetrieveNode index) under a temporary directory.

Entities are named in questions by their `name` feature and matched in Cypher by id.
Answers are rendered by `answer_from_rows` (all values, sorted, joined with ", "). Argmax
questions were checked to have a unique maximum; their ORDER BY still ends with a name so
the result is deterministic. The builder refuses an empty answer or one longer than
MAX_LIST_ANSWER values.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

from glm_dspy.graphs.questions import Question, write_questions
from glm_dspy.graphs.synthetic_questions import MAX_LIST_ANSWER, answer_from_rows

QUESTIONS_FILE = Path(__file__).resolve().parent.parent / "datasets" / "nobel" / "questions.jsonl"


class Spec(NamedTuple):
    slug: str
    tier: str
    question: str
    cypher: str


SPECS = [
    # ---- single hop: one node's features or its direct neighbours --------------------------
    Spec("curie_birth_date", "single_hop", "When was Marie Curie born?",
         "MATCH (l:laureate {id: 'l6'}) RETURN l.birth_date"),
    Spec("einstein_death_date", "single_hop", "When did Albert Einstein die?",
         "MATCH (l:laureate {id: 'l26'}) RETURN l.death_date"),
    Spec("bohr_birth_city", "single_hop", "In which city was Niels Bohr born?",
         "MATCH (:laureate {id: 'l27'})-[:rel_birth_city]->(c:city) RETURN c.name"),
    Spec("curie_prizes", "single_hop", "Which Nobel Prizes did Marie Curie receive?",
         "MATCH (:laureate {id: 'l6'})-[:rel_prize]->(p:prize) RETURN p.name"),
    Spec("pauling_categories", "single_hop", "In which prize categories did Linus Pauling receive a Nobel Prize?",
         "MATCH (:laureate {id: 'l217'})-[:rel_prize]->(p:prize) RETURN p.category"),
    Spec("physics_1903_laureates", "single_hop", "Who received the Nobel Prize in Physics 1903?",
         "MATCH (:prize {id: 'prize_physics_1903'})-[:rel_laureate]->(l:laureate) RETURN l.name"),
    Spec("economics_2022_laureates", "single_hop", "Who received the Nobel Prize in Economic Sciences 2022?",
         "MATCH (:prize {id: 'prize_economics_2022'})-[:rel_laureate]->(l:laureate) RETURN l.name"),
    Spec("feynman_institution", "single_hop",
         "Which institution was Richard P. Feynman affiliated with when he received the Nobel Prize?",
         "MATCH (:laureate {id: 'l86'})-[:rel_institution]->(i:institution) RETURN i.name"),
    Spec("zeilinger_institutions", "single_hop",
         "Which institutions was Anton Zeilinger affiliated with when he received the Nobel Prize?",
         "MATCH (:laureate {id: 'l1014'})-[:rel_institution]->(i:institution) RETURN i.name"),
    Spec("fermi_mentors", "single_hop", "Who were the mentors of Enrico Fermi?",
         "MATCH (:laureate {id: 'l46'})-[:rel_mentor]->(m) RETURN m.name"),
    Spec("sutherland_mentor", "single_hop", "Who was the mentor of Earl W. Sutherland, Jr.?",
         "MATCH (:laureate {id: 'l397'})-[:rel_mentor]->(m) RETURN m.name"),
    Spec("cori_students", "single_hop", "Who were the students of Carl Cori?",
         "MATCH (:laureate {id: 'l343'})-[:rel_student]->(s) RETURN s.name"),
    Spec("chemistry_1911_amount", "single_hop", "What was the prize amount of the Nobel Prize in Chemistry 1911?",
         "MATCH (p:prize {id: 'prize_chemistry_1911'}) RETURN p.amount"),
    Spec("physics_1921_date", "single_hop", "On what date was the Nobel Prize in Physics 1921 awarded?",
         "MATCH (p:prize {id: 'prize_physics_1921'}) RETURN p.date_awarded"),
    Spec("todd_full_name", "single_hop", "What is the full name of the laureate Lord Todd?",
         "MATCH (l:laureate {id: 'l221'}) RETURN l.full_name"),
    Spec("prague_laureates", "single_hop", "Which laureates were born in Prague?",
         "MATCH (:city {id: 'city_prague_czech_republic'})-[:rel_born_laureate]->(l:laureate) RETURN l.name"),
    Spec("fermi_institute_city", "single_hop",
         "In which city is the Enrico Fermi Institute, University of Chicago located?",
         "MATCH (:institution {id: 'inst_enrico_fermi_institute_university_of_chicago_chicago_il'})"
         "-[:rel_city]->(c:city) RETURN c.name"),
    # ---- multi hop: paths through prizes, affiliations, places and mentors -----------------
    Spec("sutherland_mentor_prize", "multi_hop", "Which Nobel Prize did the mentor of Earl W. Sutherland, Jr. receive?",
         "MATCH (:laureate {id: 'l397'})-[:rel_mentor]->(m:laureate)-[:rel_prize]->(p:prize) RETURN p.name"),
    Spec("fermi_laureate_mentor_birth_city", "multi_hop",
         "Enrico Fermi had one mentor who was a Nobel laureate; in which city was that mentor born?",
         "MATCH (:laureate {id: 'l46'})-[:rel_mentor]->(m:laureate)-[:rel_birth_city]->(c:city) RETURN c.name"),
    Spec("bardeen_1956_colaureates", "multi_hop",
         "Who shared the Nobel Prize in Physics 1956 with John Bardeen?",
         "MATCH (:laureate {id: 'l66'})-[:rel_prize]->(p:prize {id: 'prize_physics_1956'})"
         "-[:rel_laureate]->(o:laureate) WHERE o.id <> 'l66' RETURN o.name"),
    Spec("curie_colaureates", "multi_hop", "Which laureates shared a Nobel Prize with Marie Curie?",
         "MATCH (:laureate {id: 'l6'})-[:rel_prize]->(:prize)-[:rel_laureate]->(o:laureate) "
         "WHERE o.id <> 'l6' RETURN DISTINCT o.name"),
    Spec("chemistry_in_einstein_year", "multi_hop",
         "Who received the Nobel Prize in Chemistry in the year Albert Einstein received his Nobel Prize?",
         "MATCH (:laureate {id: 'l26'})-[:rel_prize]->(p:prize) "
         "MATCH (q:prize {category: 'Chemistry'})-[:rel_laureate]->(o:laureate) WHERE q.year = p.year "
         "RETURN o.name"),
    Spec("feynman_institution_country", "multi_hop",
         "In which country is the institution Richard P. Feynman was affiliated with at the time of his prize?",
         "MATCH (:laureate {id: 'l86'})-[:rel_institution]->(:institution)-[:rel_city]->(:city)"
         "-[:rel_country]->(k:country) RETURN DISTINCT k.name"),
    Spec("rutherford_chemistry_students", "multi_hop",
         "Which of Ernest Rutherford's students received the Nobel Prize in Chemistry?",
         "MATCH (:laureate {id: 'l167'})-[:rel_student]->(s:laureate)-[:rel_prize]->(:prize {category: 'Chemistry'}) "
         "RETURN DISTINCT s.name"),
    Spec("curie_students_prizes", "multi_hop", "Which Nobel Prizes were received by students of Marie Curie?",
         "MATCH (:laureate {id: 'l6'})-[:rel_student]->(:laureate)-[:rel_prize]->(p:prize) RETURN DISTINCT p.name"),
    Spec("chandrasekhar_birth_continent", "multi_hop", "On which continent was Subrahmanyan Chandrasekhar born?",
         "MATCH (:laureate {id: 'l122'})-[:rel_birth_city]->(:city)-[:rel_country]->(k:country) RETURN k.continent"),
    Spec("cambridge_medicine_laureates", "multi_hop",
         "Which laureates affiliated with the University of Cambridge received the Nobel Prize in "
         "Physiology or Medicine?",
         "MATCH (:institution {id: 'inst_university_of_cambridge_cambridge'})-[:rel_laureate]->(l:laureate)"
         "-[:rel_prize]->(:prize {category: 'Physiology or Medicine'}) RETURN DISTINCT l.name"),
    Spec("bohr_students_born_usa", "multi_hop", "Which of Niels Bohr's students were born in the USA?",
         "MATCH (:laureate {id: 'l27'})-[:rel_student]->(s)-[:rel_birth_city]->(:city)"
         "-[:rel_country]->(:country {id: 'country_usa'}) RETURN DISTINCT s.name"),
    Spec("pauling_students_prizes", "multi_hop", "Which Nobel Prizes were received by students of Linus Pauling?",
         "MATCH (:laureate {id: 'l217'})-[:rel_student]->(:laureate)-[:rel_prize]->(p:prize) RETURN DISTINCT p.name"),
    Spec("glashow_colaureate_institutions", "multi_hop",
         "Which institutions were Sheldon Glashow's co-laureates affiliated with when they received the prize?",
         "MATCH (:laureate {id: 'l113'})-[:rel_prize]->(:prize)-[:rel_laureate]->(o:laureate)"
         "-[:rel_institution]->(i:institution) WHERE o.id <> 'l113' RETURN DISTINCT i.name"),
    Spec("tiselius_grand_mentors", "multi_hop", "Who were the mentors of Arne Tiselius's mentor?",
         "MATCH (:laureate {id: 'l208'})-[:rel_mentor]->()-[:rel_mentor]->(g) RETURN DISTINCT g.name"),
    Spec("thomson_mentor", "multi_hop", "Which Nobel laureate mentored both Ernest Rutherford and Niels Bohr?",
         "MATCH (:laureate {id: 'l167'})-[:rel_mentor]->(m:laureate)<-[:rel_mentor]-(:laureate {id: 'l27'}) "
         "RETURN m.name"),
    Spec("prague_laureates_prizes", "multi_hop", "Which Nobel Prizes were received by laureates born in Prague?",
         "MATCH (:city {id: 'city_prague_czech_republic'})-[:rel_born_laureate]->(:laureate)"
         "-[:rel_prize]->(p:prize) RETURN DISTINCT p.name"),
    # ---- aggregation: counts, extremes -----------------------------------------------------
    Spec("sanger_prize_count", "aggregation", "How many Nobel Prizes did Frederick Sanger receive?",
         "MATCH (:laureate {id: 'l222'})-[:rel_prize]->(p:prize) RETURN count(p)"),
    Spec("poland_birth_count", "aggregation", "How many laureates were born in Poland?",
         "MATCH (l:laureate)-[:rel_birth_city]->(:city)-[:rel_country]->(:country {id: 'country_poland'}) "
         "RETURN count(DISTINCT l)"),
    Spec("bohr_student_count", "aggregation", "How many students did Niels Bohr have?",
         "MATCH (:laureate {id: 'l27'})-[:rel_student]->(s) RETURN count(DISTINCT s)"),
    Spec("usa_top_institution", "aggregation",
         "Which institution in the USA had the most laureates affiliated with it at the time of their prize?",
         "MATCH (:country {id: 'country_usa'})<-[:rel_country]-(:city)-[:rel_institution]->(i:institution)"
         "-[:rel_laureate]->(l:laureate) WITH i, count(DISTINCT l) AS num_laureates "
         "RETURN i.name ORDER BY num_laureates DESC, i.name LIMIT 1"),
    Spec("uk_top_institution", "aggregation",
         "Which institution in the United Kingdom had the most laureates affiliated with it "
         "at the time of their prize?",
         "MATCH (:country {id: 'country_united_kingdom'})<-[:rel_country]-(:city)-[:rel_institution]->(i:institution)"
         "-[:rel_laureate]->(l:laureate) WITH i, count(DISTINCT l) AS num_laureates "
         "RETURN i.name ORDER BY num_laureates DESC, i.name LIMIT 1"),
    Spec("sweden_top_institution", "aggregation",
         "Which institution in Sweden had the most laureates affiliated with it at the time of their prize?",
         "MATCH (:country {id: 'country_sweden'})<-[:rel_country]-(:city)-[:rel_institution]->(i:institution)"
         "-[:rel_laureate]->(l:laureate) WITH i, count(DISTINCT l) AS num_laureates "
         "RETURN i.name ORDER BY num_laureates DESC, i.name LIMIT 1"),
    Spec("top_birth_city", "aggregation", "In which city were the most laureates born?",
         "MATCH (c:city)-[:rel_born_laureate]->(l:laureate) WITH c, count(DISTINCT l) AS num_laureates "
         "RETURN c.name ORDER BY num_laureates DESC, c.name LIMIT 1"),
    Spec("top_laureate_mentor", "aggregation", "Which Nobel laureate had the most students?",
         "MATCH (m:laureate)-[:rel_student]->(s) WITH m, count(DISTINCT s) AS num_students "
         "RETURN m.name ORDER BY num_students DESC, m.name LIMIT 1"),
    Spec("rutherford_laureate_student_count", "aggregation",
         "How many of Ernest Rutherford's students received a Nobel Prize?",
         "MATCH (:laureate {id: 'l167'})-[:rel_student]->(s:laureate)-[:rel_prize]->(:prize) "
         "RETURN count(DISTINCT s)"),
    Spec("bohr_oldest_laureate_student", "aggregation",
         "Which of Niels Bohr's students who received a Nobel Prize was born first?",
         "MATCH (:laureate {id: 'l27'})-[:rel_student]->(s:laureate)-[:rel_prize]->(:prize) "
         "WITH DISTINCT s RETURN s.name ORDER BY s.birth_date, s.name LIMIT 1"),
    Spec("women_physics_count", "aggregation", "How many women received the Nobel Prize in Physics?",
         "MATCH (l:laureate {gender: 'female'})-[:rel_prize]->(:prize {category: 'Physics'}) "
         "RETURN count(DISTINCT l)"),
    Spec("first_economics_year", "aggregation", "In which year was the Nobel Prize in Economic Sciences first awarded?",
         "MATCH (p:prize {category: 'Economic Sciences'}) RETURN min(p.year)"),
    Spec("africa_birth_count", "aggregation", "How many laureates were born in Africa?",
         "MATCH (l:laureate)-[:rel_birth_city]->(:city)-[:rel_country]->(:country {continent: 'Africa'}) "
         "RETURN count(DISTINCT l)"),
    Spec("stanford_physics_count", "aggregation",
         "How many Nobel laureates in Physics were affiliated with Stanford University at the time of their prize?",
         "MATCH (:institution {id: 'inst_stanford_university_stanford_ca'})-[:rel_laureate]->(l:laureate)"
         "-[:rel_prize]->(:prize {category: 'Physics'}) RETURN count(DISTINCT l)"),
    Spec("japan_first_laureate", "aggregation", "Who was the first laureate born in Japan to receive a Nobel Prize?",
         "MATCH (l:laureate)-[:rel_birth_city]->(:city)-[:rel_country]->(:country {id: 'country_japan'}) "
         "MATCH (l)-[:rel_prize]->(p:prize) RETURN l.name ORDER BY p.year, l.name LIMIT 1"),
    Spec("economics_2022_count", "aggregation", "How many laureates shared the Nobel Prize in Economic Sciences 2022?",
         "MATCH (:prize {id: 'prize_economics_2022'})-[:rel_laureate]->(l:laureate) RETURN count(l)"),
]


def compute_questions(store) -> list[Question]:
    """Run every spec's Cypher on `store` (a `glm_dspy.graphs.store.GraphStore`) and return the questions, in SPECS order."""
    questions = []
    for number, spec in enumerate(SPECS, 1):
        qid = f"nobel-{number:02d}-{spec.slug}"
        rows = store.query(spec.cypher)
        num_values = sum(len(v) if isinstance(v, list) else 1 for row in rows for v in row.values())
        if not 1 <= num_values <= MAX_LIST_ANSWER or any(v is None for row in rows for v in row.values()):
            raise ValueError(f"{qid}: its Cypher returned {rows!r}; a question needs 1 to {MAX_LIST_ANSWER} "
                             "non-null values: fix the Cypher or the question in graphs/nobel_questions.py")
        questions.append(Question(qid, spec.question, answer_from_rows(rows), tier=spec.tier, cypher=spec.cypher))
    return questions


def load_fresh_database(db_dir: Path | str) -> Path:
    """Load the Nobel graph (no RetrieveNode index: Cypher needs none) into a new directory `db_dir`."""
    from glm_dspy.graphs.data_dir import data_dir
    from glm_dspy.graphs.load import load_graph
    from glm_dspy.graphs.nobel import nobel_graph

    return load_graph(nobel_graph(data_dir() / "nobel"), db_dir, name="nobel").db_dir


def main(argv: list[str] | None = None) -> int:
    from glm_dspy.graphs.store import GraphStore

    parser = argparse.ArgumentParser(prog="python -m glm_dspy.graphs.nobel_questions", description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, help="an existing Nobel database (default: load a fresh one)")
    parser.add_argument("--out", type=Path, default=QUESTIONS_FILE, help=f"output file (default: {QUESTIONS_FILE})")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="nobel-questions-") as tmp:
        db_dir = args.db or load_fresh_database(Path(tmp) / "db")
        store = GraphStore.open(db_dir)
        questions = compute_questions(store)
        del store  # closes the database before its temporary directory goes
    write_questions(questions, args.out)
    print(f"wrote {len(questions)} questions to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
