"""The Nobel laureates graph (Nobel Prize API dump + the mentorship tree of kuzudb/dspy-kuzu-demo).

Node types and ids (ids are unique across types by their prefixes):
    laureate     l<nobel id>         name, full_name, given_name, family_name, gender,
                                     birth_date, death_date, motivation (one per prize)
    scholar      s<n>                name (mentors/students who are not laureates)
    prize        prize_<cat>_<year>  name, category, year, amount, amount_adjusted, date_awarded
    institution  inst_<slug>         name, city, country (affiliation at the time of a prize)
    city         city_<slug>         name, country
    country      country_<slug>      name, continent
Relations (named by the neighbour an agent asks for; both directions stored):
    laureate -prize-> prize -laureate-> laureate; laureate -institution-> institution -laureate->
    laureate; laureate -birth_city-> city -born_laureate-> laureate; institution -city-> city
    -institution-> institution; city -country-> country -city-> city; student -mentor-> mentor
    and mentor -student-> student (laureates and scholars).
Dates are ISO strings as in the source ("1943-00-00" means the year only).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pyarrow as pa

from glm_dspy.graphs.grbench import feature_column
from glm_dspy.graphs.graph_data import EdgeList, GraphData, NodeTable

CATEGORY_SLUGS = {"Physiology or Medicine": "medicine", "Economic Sciences": "economics"}


def slug(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", text.lower()).strip("_") or "unknown"


class _Builder:
    """Collects nodes (first write wins per id) and directed edges, then emits GraphData."""

    def __init__(self):
        self.nodes: dict[str, dict[str, dict]] = defaultdict(dict)
        self.edges: dict[tuple[str, str, str], set[tuple[str, str]]] = defaultdict(set)

    def node(self, type_name: str, node_id: str, **features) -> str:
        self.nodes[type_name].setdefault(node_id, features)
        return node_id

    def link(self, relation: str, inverse: str, src: tuple[str, str], dst: tuple[str, str]) -> None:
        self.edges[(relation, src[0], dst[0])].add((src[1], dst[1]))
        self.edges[(inverse, dst[0], src[0])].add((dst[1], src[1]))

    def graph(self) -> GraphData:
        tables = {}
        for type_name, nodes in self.nodes.items():
            ids = sorted(nodes)
            keys = sorted({k for f in nodes.values() for k in f})
            columns = {"id": pa.array(ids, pa.string())}
            columns |= {k: feature_column([nodes[i].get(k) for i in ids]) for k in keys}
            tables[type_name] = NodeTable(type_name, pa.table(columns))
        edge_lists = []
        for (relation, src_type, dst_type), pairs in sorted(self.edges.items()):
            src, dst = zip(*sorted(pairs))
            edge_lists.append(EdgeList(relation, src_type, dst_type,
                                       pa.table({"src": pa.array(src, pa.string()), "dst": pa.array(dst, pa.string())})))
        return GraphData(tables, edge_lists)


def _place(b: _Builder, city: str | None, country: str | None, continent: str | None) -> str | None:
    if not city:
        return None
    country_id = None
    if country:
        country_id = b.node("country", f"country_{slug(country)}", name=country, continent=continent)
    city_id = b.node("city", f"city_{slug(city)}_{slug(country or '')}", name=city, country=country)
    if country_id:
        b.link("country", "city", ("city", city_id), ("country", country_id))
    return city_id


def nobel_graph(data_dir: Path | str) -> GraphData:
    """Build the Nobel graph from `nobel.json` and `mentorship_merged.json` in `data_dir`."""
    data_dir = Path(data_dir)
    laureates = json.loads((data_dir / "nobel.json").read_text())
    b = _Builder()
    by_id: dict[str, dict] = {}
    for person in laureates:  # the dump lists a few laureates twice: merge their prizes
        known = by_id.setdefault(person["id"], {**person, "prizes": []})
        for prize in person["prizes"]:
            if prize not in known["prizes"]:
                known["prizes"].append(prize)
    for person in by_id.values():
        prizes = sorted(person["prizes"], key=lambda p: (p["awardYear"], p["category"]))
        laureate = b.node("laureate", f"l{person['id']}", name=person["knownName"], full_name=person["fullName"],
                          given_name=person["givenName"], family_name=person["familyName"], gender=person["gender"],
                          birth_date=person["birthDate"], death_date=person["deathDate"],
                          motivation=[p["motivation"] for p in prizes])
        me = ("laureate", laureate)
        birth = _place(b, person["birthPlaceCityNow"], person["birthPlaceCountryNow"], person["birthPlaceContinent"])
        if birth:
            b.link("birth_city", "born_laureate", me, ("city", birth))
        for prize in prizes:
            category = prize["category"]
            prize_id = b.node("prize", f"prize_{CATEGORY_SLUGS.get(category, slug(category))}_{prize['awardYear']}",
                              name=f"Nobel Prize in {category} {prize['awardYear']}", category=category,
                              year=int(prize["awardYear"]), amount=prize["prizeAmount"],
                              amount_adjusted=prize["prizeAmountAdjusted"], date_awarded=prize["dateAwarded"])
            b.link("prize", "laureate", me, ("prize", prize_id))
            for aff in prize["affiliations"]:
                inst = b.node("institution", f"inst_{slug(aff['nameNow'])}_{slug(aff['cityNow'] or '')}",
                              name=aff["nameNow"], city=aff["cityNow"], country=aff["countryNow"])
                b.link("institution", "laureate", me, ("institution", inst))
                city = _place(b, aff["cityNow"], aff["countryNow"], aff["continent"])
                if city:
                    b.link("city", "institution", ("institution", inst), ("city", city))
    _mentorship(b, json.loads((data_dir / "mentorship_merged.json").read_text()))
    return b.graph()


def _mentorship(b: _Builder, records: list[dict]) -> None:
    def person(entry: dict) -> tuple[str, str]:
        if entry["type"] == "laureate":
            if entry["id"] not in b.nodes["laureate"]:
                b.node("laureate", entry["id"], name=entry["name"])  # mentorship names a laureate we lack
            return ("laureate", entry["id"])
        return ("scholar", b.node("scholar", entry["id"], name=entry["name"]))

    for record in records:
        for child in record["children"]:
            for parent in record["parents"]:
                b.link("mentor", "student", person(child), person(parent))
