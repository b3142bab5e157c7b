"""The shapes of query the passes over a chain recognise, read off the tree: one MATCH of one
chain of hops, and a RETURN of one node's one property.

`single_chain` is the tree's reading of what glm_dspy/modules/cypher_paths.py's `Chain` reads:
a chain of directed hops, each along one relationship table, with nothing on the hop itself
(no variable length, no properties); its nodes may be anything.
"""

from __future__ import annotations

from glm_dspy.graphs.cypher.syntax import Match, PatternPart, Projection, Property, Query, Return, Variable, walk

END = "glm_end"  # the variable a pass binds a chain's last node to, where that node has none
FRESH = ("b", "x", END)  # the variables a pass binds a node to, the first the query does not use


def single_chain(tree: Query) -> PatternPart | None:
    """The pattern of a query `MATCH <chain> RETURN ...`: one part, one MATCH (not optional, no
    WHERE) of one pattern (no path variable) of at least one hop, each directed and along one
    relationship table; else None."""
    if len(tree.parts) != 1 or len(tree.parts[0].clauses) != 2:
        return None
    match = tree.parts[0].clauses[0]
    if not isinstance(match, Match) or match.optional or match.where is not None or len(match.patterns) != 1:
        return None
    part = match.patterns[0]
    if part.variable is not None or not part.rels:
        return None
    if any(len(rel.types) != 1 or rel.direction == "both" or rel.length is not None or rel.properties
           for rel in part.rels):
        return None
    return part


def one_property(projection: Projection) -> tuple[str, str] | None:
    """(variable, key) of a projection of one `v.key` and nothing more (no alias, `*`, order, skip
    or limit; DISTINCT or not), else None."""
    if projection.star or projection.order or projection.skip is not None or projection.limit is not None \
            or len(projection.items) != 1 or projection.items[0][1] is not None:
        return None
    returned = projection.items[0][0]
    if not isinstance(returned, Property) or not isinstance(returned.subject, Variable):
        return None
    return returned.subject.name, returned.key


def final_return(tree: Query) -> Return:
    """The RETURN of the query's last part."""
    return tree.parts[-1].clauses[-1]


def fresh_variable(*nodes, among: tuple[str, ...] = FRESH) -> str:
    """The first of `among` that no variable, alias or pattern in `nodes` (a tree, clauses) names."""
    used = set()
    for node in (found for top in nodes for found in walk(top)):
        if isinstance(node, Variable):
            used.add(node.name)
        elif isinstance(node, Projection):
            used.update(alias for _, alias in node.items if alias)
        elif getattr(node, "variable", None):  # patterns, UNWIND, quantifiers
            used.add(node.variable)
    return next(name for name in among if name not in used)


__all__ = ["END", "FRESH", "single_chain", "one_property", "final_return", "fresh_variable"]
