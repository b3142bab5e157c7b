"""graphs/cypher/ranked.py and ranked_candidates.py on the real Nobel graph (no LLM): readings
that order a path's end nodes by a date or year on the path, or group them by a value, read what
the same rows, ranked in Python, say."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from glm_dspy.graphs.cypher import gate
from glm_dspy.graphs.cypher.condition import Condition
from glm_dspy.graphs.cypher.value_index import ValueIndex
from glm_dspy.graphs.cypher.candidate import Hop, Start
from glm_dspy.graphs.cypher.candidates import readings_of
from glm_dspy.graphs.cypher.ranked import MONTHS, Group, Key, Order
from glm_dspy.graphs.cypher.ranked_candidates import ranked_readings
from glm_dspy.graphs.store import GraphStore


@pytest.fixture(scope="module")
def store(nobel_db):
    return GraphStore.open(nobel_db)


@pytest.fixture(scope="module")
def index(store):
    return ValueIndex.build(store, store.schema)


CHEMISTRY = Start.anchored("prize", (Condition("category", "=", "Chemistry"),))
TO_LAUREATE = (Hop("laureate", True, "laureate"),)


@pytest.fixture(scope="module")
def rows(store):
    """(prize year, laureate name, birth date) of every chemistry prize's laureate."""
    return [(r["y"], r["n"], r["b"]) for r in store.query(
        "MATCH (p:prize)-[:rel_laureate]->(l:laureate) WHERE p.category = 'Chemistry' "
        "RETURN p.year AS y, l.name AS n, l.birth_date AS b")]


def _read(store, candidate) -> list:
    assert gate(candidate.cypher).text == candidate.cypher  # a reading is a query the gate passes
    return [next(iter(row.values())) for row in store.read(candidate.cypher).rows]


def test_an_order_reads_every_end_node_tied_at_the_top(store, rows, index):
    plain = readings_of(store.schema, CHEMISTRY, [TO_LAUREATE])
    ranked = ranked_readings(store.schema, index, plain, descending=False, most=None)
    by_year = next(c for c in ranked if c.order.key == Key("a", 0, "prize", "year") and c.returns == "name")
    first = min(y for y, _, _ in rows)
    assert sorted(_read(store, by_year)) == sorted({n for y, n, _ in rows if y == first})
    assert by_year.words().endswith("name, the first by prize year")
    last = next(c for c in ranked_readings(store.schema, index, plain, descending=True, most=None)
                if c.order.key == Key("a", 1, "laureate", "birth_date") and c.returns == "birth_date")
    assert _read(store, last) == [max(b for _, _, b in rows if b)]


def test_only_dates_and_years_order_and_nothing_ranks_unless_asked(store, index):
    plain = readings_of(store.schema, CHEMISTRY, [TO_LAUREATE])
    ranked = ranked_readings(store.schema, index, plain, descending=True, most=None)
    keys = {c.order.key.feature for c in ranked}
    assert {"year", "date_awarded", "birth_date", "death_date"} <= keys
    assert not keys & {"amount", "amount_adjusted", "name", "category"}  # an amount is a number, not a time
    assert ranked_readings(store.schema, index, plain, descending=None, most=None) == []


def test_a_group_reads_the_part_of_a_date_the_most_end_nodes_share(store, rows, index):
    plain = readings_of(store.schema, CHEMISTRY, [TO_LAUREATE])
    ranked = ranked_readings(store.schema, index, plain, descending=None, most=True)
    month = next(c for c in ranked if c.group == Group(Key("a", 1, "laureate", "birth_date"), "month", date=True))
    months = Counter(MONTHS[int(b[5:7]) - 1] for _, n, b in set(rows) if b and b[5:7] != "00")
    top = max(months.values())
    assert _read(store, month) == [min(m for m, k in months.items() if k == top)]  # ties: the smaller key
    decade = next(c for c in ranked if c.group == Group(Key("a", 0, "prize", "year"), "decade"))
    decades = Counter(f"{str(y)[:3]}0s" for y, n, _ in set(rows))
    assert _read(store, decade) == [max(decades, key=lambda d: (decades[d], -int(d[:4])))]
    fewest = next(c for c in ranked_readings(store.schema, index, plain, descending=None, most=False)
                  if c.group == Group(Key("a", 0, "prize", "year"), "decade", fewest=True))
    assert _read(store, fewest) == [min(decades, key=lambda d: (decades[d], int(d[:4])))]
    assert "the decade of prize year with the most laureate" in decade.words()


def test_an_end_s_own_name_groups_the_nodes_one_hop_before_it(store, index):
    """"Which laureate won the most chemistry prizes?": the laureates the chemistry prizes reach,
    each counted by the prizes that reach it (not by itself: every end is one end)."""
    plain = readings_of(store.schema, CHEMISTRY, [TO_LAUREATE])
    ranked = ranked_readings(store.schema, index, plain, descending=None, most=True)
    top = next(c for c in ranked if c.group == Group(Key("a", 1, "laureate", "name"), None, before=True))
    prizes = Counter(r["n"] for r in store.query(
        "MATCH (p:prize)-[:rel_laureate]->(l:laureate) WHERE p.category = 'Chemistry' RETURN DISTINCT p.id AS p, l.name AS n"))
    most = max(prizes.values())
    assert most > 1 and _read(store, top) == [min(n for n, k in prizes.items() if k == most)]
    assert top.words().endswith("the laureate name with the most prize")


def test_a_named_start_is_one_node_and_is_not_ranked(store, index):
    (row,) = store.query("MATCH (l:laureate {name: 'Marie Curie'}) RETURN l.id AS id")
    curie = Start.named("laureate", "name", "Marie Curie", row["id"])
    plain = readings_of(store.schema, curie, [(Hop("laureate", False, "prize"),)])
    ranked = ranked_readings(store.schema, index, plain, descending=False, most=True)
    assert ranked and all(c.order is None or c.order.key.at == 1 for c in ranked)
    assert all(c.group is None or c.group.key.at == 1 for c in ranked)
    first = next(c for c in ranked if c.order and c.order.key.feature == "year" and c.returns == "name")
    assert _read(store, first) == ["Nobel Prize in Physics 1903"]


def test_an_order_over_a_joined_path_keys_on_either_path(store, index):
    women = Start.anchored("laureate", (Condition("gender", "=", "female"),))
    plain = [c for c in readings_of(store.schema, CHEMISTRY, [TO_LAUREATE], (women, ())) if c.returns == "name"]
    ranked = ranked_readings(store.schema, index, plain, descending=False, most=None)
    first = next(c for c in ranked if c.order.key == Key("a", 0, "prize", "year") and c.returns == "name")
    expected = store.query("MATCH (p:prize)-[:rel_laureate]->(l:laureate) WHERE p.category = 'Chemistry' "
                           "AND l.gender = 'female' RETURN l.name AS n ORDER BY p.year LIMIT 1")[0]["n"]
    assert _read(store, first) == [expected]


def test_a_number_feature_is_a_year_only_where_every_value_could_be_one(index):
    assert ("prize", "year") in index.years and ("prize", "amount") not in index.years


def test_a_reading_that_meets_a_time_is_not_ranked_again(store, index):
    from glm_dspy.graphs.cypher.value_meets import ValueMeet

    (row,) = store.query("MATCH (l:laureate {name: 'Marie Curie'}) RETURN l.id AS id")
    curie = Start.named("laureate", "name", "Marie Curie", row["id"])
    met = [replace(c, meets=ValueMeet(curie, (), "birth_date", "birth_date"))
           for c in readings_of(store.schema, Start("laureate", (), "laureate"), [()])]
    assert ranked_readings(store.schema, index, met, descending=False, most=True) == []  # every laureate: no start
