"""A syntax tree (graphs/cypher/syntax.py) back to Cypher text: the only text of a model's query
that ever runs.

Canonical: keywords in capitals, one space between tokens, names bare where they can be
(`glm_dspy.graphs.literal.cypher_name`), every string written by `glm_dspy.graphs.literal.text_literal`, and
parentheses only where precedence needs them. So `print_query(parse(print_query(q)))` is
`print_query(q)`, and no comment, second statement or odd lexeme of the input survives.
"""

from __future__ import annotations

import math

from glm_dspy.graphs.cypher.syntax import (Binary, Case, Cast, FunctionCall, Index, IsNull, ListLiteral, Literal,
                                           MapLiteral, Match, NodePattern, PatternPart, PatternPredicate, Projection,
                                           Property, Quantifier, Query, RelPattern, Return, SingleQuery, Slice,
                                           Subquery, Unary, Unwind, Variable, With)
from glm_dspy.graphs.literal import cypher_name, text_literal

# binding strength, loosest first (Kuzu's grammar); atoms bind tightest
_PRECEDENCE = {"OR": 1, "XOR": 2, "AND": 3, "NOT": 4, "=": 5, "<>": 5, "<": 5, "<=": 5, ">": 5, ">=": 5,
               "+": 6, "-": 6, "*": 7, "/": 7, "%": 7, "^": 8, "STARTS WITH": 9, "ENDS WITH": 9,
               "CONTAINS": 9, "=~": 9, "IN": 9}
_ATOM = 11


def print_query(query: Query) -> str:
    text = _single(query.parts[0])
    for is_all, part in zip(query.union_all, query.parts[1:]):
        text += (" UNION ALL " if is_all else " UNION ") + _single(part)
    return text


def print_expression(expression) -> str:
    return _expression(expression)


def print_pattern(part: PatternPart) -> str:
    text = "".join(_node(node) + _rel(rel) for node, rel in zip(part.nodes, part.rels)) + _node(part.nodes[-1])
    return f"{cypher_name(part.variable)} = {text}" if part.variable else text


def _single(query: SingleQuery) -> str:
    return " ".join(_clause(clause) for clause in query.clauses)


def _clause(clause) -> str:
    if isinstance(clause, Match):
        text = ("OPTIONAL MATCH " if clause.optional else "MATCH ") + ", ".join(map(print_pattern, clause.patterns))
        return text + (f" WHERE {_expression(clause.where)}" if clause.where is not None else "")
    if isinstance(clause, Unwind):
        return f"UNWIND {_expression(clause.expression)} AS {cypher_name(clause.variable)}"
    if isinstance(clause, With):
        text = "WITH " + _projection(clause.projection)
        return text + (f" WHERE {_expression(clause.where)}" if clause.where is not None else "")
    if isinstance(clause, Return):
        return "RETURN " + _projection(clause.projection)
    raise TypeError(f"not a reading clause: {type(clause).__name__}")


def _projection(projection: Projection) -> str:
    items = ["*"] if projection.star else []
    items += [_expression(e) + (f" AS {cypher_name(alias)}" if alias else "") for e, alias in projection.items]
    text = ("DISTINCT " if projection.distinct else "") + ", ".join(items)
    if projection.order:
        text += " ORDER BY " + ", ".join(_expression(e) + (" DESC" if desc else "") for e, desc in projection.order)
    if projection.skip is not None:
        text += f" SKIP {_expression(projection.skip)}"
    if projection.limit is not None:
        text += f" LIMIT {_expression(projection.limit)}"
    return text


def _properties(properties) -> str:
    return "{" + ", ".join(f"{cypher_name(key)}: {_expression(value)}" for key, value in properties) + "}"


def _node(node: NodePattern) -> str:
    inside = cypher_name(node.variable) if node.variable else ""
    if node.labels:
        inside += ":" + ":".join(map(cypher_name, node.labels))  # Kuzu: (x:A:B) is A or B
    if node.properties:
        inside += (" " if inside else "") + _properties(node.properties)
    return f"({inside})"


def _rel(rel: RelPattern) -> str:
    inside = cypher_name(rel.variable) if rel.variable else ""
    if rel.types:
        inside += ":" + "|".join(map(cypher_name, rel.types))
    if rel.length is not None:
        low, high = rel.length
        inside += "*" + (f" {rel.recursion} " if rel.recursion else "")
        if low is not None and low == high:
            inside += str(low)
        elif low is not None or high is not None:
            inside += f"{'' if low is None else low}..{'' if high is None else high}"
    if rel.properties:
        inside += " " + _properties(rel.properties)
    body = f"-[{inside}]-" if inside else "--"
    return {"out": f"{body}>", "in": f"<{body}", "both": body}[rel.direction]


def _precedence(expression) -> int:
    if isinstance(expression, Binary):
        return _PRECEDENCE[expression.op]
    if isinstance(expression, Unary):
        return 4 if expression.op == "NOT" else 10
    if isinstance(expression, IsNull):
        return 9
    if isinstance(expression, Literal) and isinstance(expression.value, (int, float)) \
            and not isinstance(expression.value, bool) and expression.value < 0:
        return 10
    return _ATOM


def _wrapped(expression, at_least: int) -> str:
    text = _expression(expression)
    return f"({text})" if _precedence(expression) < at_least else text


def _expression(e) -> str:
    if isinstance(e, Literal):
        return _literal(e.value)
    if isinstance(e, Variable):
        return cypher_name(e.name)
    if isinstance(e, Property):
        return f"{_wrapped(e.subject, _ATOM)}.{cypher_name(e.key)}"
    if isinstance(e, FunctionCall):
        if e.star:
            return f"{e.name}(*)"
        return f"{e.name}({'DISTINCT ' if e.distinct else ''}{', '.join(map(_expression, e.args))})"
    if isinstance(e, Cast):
        return f"CAST({_expression(e.operand)} AS {cypher_name(e.type_name)})"
    if isinstance(e, Unary):
        if e.op == "NOT":
            return f"NOT {_wrapped(e.operand, 4)}"
        return f"-{_wrapped(e.operand, 10)}"
    if isinstance(e, Binary):
        level = _PRECEDENCE[e.op]
        if level == 9:  # the right side of a string or list operator is an atom in Kuzu's grammar
            return f"{_wrapped(e.left, 10)} {e.op} {_wrapped(e.right, _ATOM)}"
        left_needs = level + 1 if level == 5 else level
        return f"{_wrapped(e.left, left_needs)} {e.op} {_wrapped(e.right, level + 1)}"
    if isinstance(e, IsNull):
        return f"{_wrapped(e.operand, 10)} IS {'NOT ' if e.negated else ''}NULL"
    if isinstance(e, ListLiteral):
        return "[" + ", ".join(map(_expression, e.items)) + "]"
    if isinstance(e, MapLiteral):
        return _properties(e.items)
    if isinstance(e, Index):
        return f"{_wrapped(e.subject, _ATOM)}[{_expression(e.index)}]"
    if isinstance(e, Slice):
        start = _expression(e.start) if e.start is not None else ""
        end = _expression(e.end) if e.end is not None else ""
        return f"{_wrapped(e.subject, _ATOM)}[{start}:{end}]"  # Kuzu 0.11.3 slices with ':' and rejects '..'
    if isinstance(e, Case):
        text = "CASE" + (f" {_expression(e.subject)}" if e.subject is not None else "")
        text += "".join(f" WHEN {_expression(c)} THEN {_expression(v)}" for c, v in e.whens)
        return text + (f" ELSE {_expression(e.default)}" if e.default is not None else "") + " END"
    if isinstance(e, Subquery):
        where = f" WHERE {_expression(e.where)}" if e.where is not None else ""
        return f"{e.kind} {{ MATCH {', '.join(map(print_pattern, e.patterns))}{where} }}"
    if isinstance(e, PatternPredicate):
        return print_pattern(e.part)
    if isinstance(e, Quantifier):
        return f"{e.kind}({cypher_name(e.variable)} IN {_expression(e.source)} WHERE {_expression(e.where)})"
    raise TypeError(f"not an expression: {type(e).__name__}")


def _literal(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"not a finite number: {value}")
        return repr(value).replace("e+", "e")  # Kuzu 0.11.3 reads 1e16, not 1e+16
    return text_literal(value)
