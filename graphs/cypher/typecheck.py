"""Type-check a plan (graphs/cypher/plan.py) against the graph's schema: what each node can be,
whether each hop can leave the node it stands on, whether each property belongs to its node.

`node_types` narrows every node variable to the node types it can have: its labels where it
has some, else any; then, hop by hop until nothing changes, to the types a hop's relations can
join (arc consistency over the schema's (source, target) pairs). `problems` says, in words a
repair can act on, where that leaves a node with no type at all (a relation the node does not
have, a label the graph does not have) and which property no type of its node has. A query
with a problem would read no rows for a reason the graph states: never an answer of 0.

Names are compared as Kuzu's catalog does, without regard to case. Relations are the schema's
names (`birth_city`); a query writes their tables (`rel_birth_city`, graphs/schema.py).
"""

from __future__ import annotations

from glm_dspy.graphs.cypher.plan import Plan, PlanHop
from glm_dspy.graphs.schema import REL_PREFIX, GraphSchema


def _key(name: str) -> str:
    return name.lower()


class SchemaIndex:
    """The schema by lower-cased name: node types, each relation's (source, target) pairs."""

    def __init__(self, schema: GraphSchema):
        self.schema = schema
        self.types = {_key(name): name for name in schema.node_types}
        self.relations = {_key(REL_PREFIX + name): name for name in schema.relations}
        self.all_pairs = {(s, d) for pairs in schema.relations.values() for s, d in pairs}

    def type_name(self, label: str) -> str | None:
        return self.types.get(_key(label))

    def relation(self, table: str) -> str | None:
        return self.relations.get(_key(table)) or self.relations.get(_key(REL_PREFIX + table))

    def pairs(self, hop: PlanHop) -> set[tuple[str, str]]:
        if not hop.relations:
            return set(self.all_pairs)
        found = set()
        for table in hop.relations:
            relation = self.relation(table)
            if relation is not None:
                found.update(map(tuple, self.schema.relations[relation]))
        return found

    def leaving(self, type_name: str) -> list[str]:
        """`rel_x (to t)` for every relation that leaves a node of `type_name`."""
        return [f"{REL_PREFIX}{r} (to {d})" for r, pairs in sorted(self.schema.relations.items())
                for s, d in pairs if s == type_name]

    def features(self, type_name: str) -> list[str]:
        return ["id", *self.schema.node_types[type_name].features]


def node_types(plan: Plan, schema: GraphSchema | SchemaIndex) -> dict[str, set[str]]:
    """Each node variable's possible types (empty: it can be none)."""
    index = schema if isinstance(schema, SchemaIndex) else SchemaIndex(schema)
    domains = {}
    for name, node in plan.nodes.items():
        labelled = {index.type_name(label) for label in node.labels}
        domains[name] = set(index.types.values()) if not node.labels else {t for t in labelled if t}
    changed = True
    while changed:
        changed = False
        for hop in plan.hops:
            if hop.variable_length:  # any number of hops: no pair constrains its ends
                continue
            pairs = index.pairs(hop)
            if hop.undirected:
                pairs |= {(d, s) for s, d in pairs}
            sources = {s for s, d in pairs if s in domains[hop.source] and d in domains[hop.target]}
            targets = {d for s, d in pairs if s in domains[hop.source] and d in domains[hop.target]}
            if sources != domains[hop.source] or targets != domains[hop.target]:
                domains[hop.source], domains[hop.target] = sources, targets
                changed = True
    return domains


def problems(plan: Plan, schema: GraphSchema) -> list[str]:
    """Why the query cannot match anything in this graph, hop by hop and property by property;
    [] when every node can have a type and every property read belongs to one."""
    index = SchemaIndex(schema)
    found: list[str] = []
    for node in plan.nodes.values():
        for label in node.labels:
            if index.type_name(label) is None:
                found.append(f"the graph has no node table {label} (node tables: {', '.join(schema.node_types)})")
    for hop in plan.hops:
        for table in hop.relations:
            if index.relation(table) is None:
                found.append(f"the graph has no relationship table {table}")
    if found:
        return found
    before = {name: (set(index.types.values()) if not node.labels else {index.type_name(x) for x in node.labels})
              for name, node in plan.nodes.items()}
    domains = node_types(plan, index)
    for hop in plan.hops:
        if domains[hop.source] and domains[hop.target]:
            continue
        found.append(_hop_problem(hop, before, index))
        break  # one broken hop empties every domain: the first says where
    if found:
        return found
    for variable, key in dict.fromkeys(plan.properties):
        types = domains.get(variable)
        if not types:
            continue
        if not any(_key(key) in map(_key, index.features(t)) for t in types):
            shown = sorted(types)[:3]
            found.append(f"{variable}.{key}: a {' or '.join(shown)} node has no property {key} "
                         f"(properties: {', '.join(index.features(shown[0]))})")
    return found


def _hop_problem(hop: PlanHop, before: dict[str, set[str]], index: SchemaIndex) -> str:
    written = ", ".join(hop.relations) or "any relationship"
    pairs = sorted(index.pairs(hop))
    joins = "; ".join(f"{s} -> {d}" for s, d in pairs[:6]) or "nothing"
    source_types = sorted(t for t in before[hop.source] if t)
    if len(source_types) == 1:
        leaving = index.leaving(source_types[0])
        return (f"{written} does not join {hop.source} ({source_types[0]}) to {hop.target} as written: it joins "
                f"{joins}; a {source_types[0]} node has {', '.join(leaving[:8]) or 'no relationship'}")
    target_types = sorted(t for t in before[hop.target] if t)
    return (f"{written} does not join {hop.source} ({' or '.join(source_types[:3])}) to {hop.target} "
            f"({' or '.join(target_types[:3])}): it joins {joins}")


__all__ = ["SchemaIndex", "node_types", "problems"]
