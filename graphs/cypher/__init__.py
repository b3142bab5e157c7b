"""Cypher as a structure: lexer, parser, syntax tree, printer and the read-only gate.

    from glm_dspy.graphs.cypher import gate
    gated = gate("MATCH (l:laureate {name: 'Marie Curie'}) RETURN l.birth_date")
    gated.text   # the canonical query that runs; gated.tree the parsed plan

Every query a model wrote, or a pass changed, runs only as `gate(...).text` (graphs/store.py's
`run_read_query`). The same parse is what query passes and plans work on.
"""

from glm_dspy.graphs.cypher.errors import CypherSyntaxError, QueryRefused
from glm_dspy.graphs.cypher.gate import GatedQuery, gate, gate_tree
from glm_dspy.graphs.cypher.parser import parse
from glm_dspy.graphs.cypher.printer import print_expression, print_pattern, print_query

__all__ = ["CypherSyntaxError", "QueryRefused", "GatedQuery", "gate", "gate_tree", "parse", "print_query",
           "print_expression", "print_pattern"]
