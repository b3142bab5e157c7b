"""Whether a query may run (the read-only gate, Kuzu's EXPLAIN) and can answer its question, and
running it on the read-only database under the store's limits."""

from __future__ import annotations

import re

from glm_dspy.modules.text2cypher.facts import NUMBER, question_names
from glm_dspy.graphs.cypher import CypherSyntaxError, QueryRefused, gate
from glm_dspy.graphs.cypher.plan import plan_of
from glm_dspy.graphs.cypher.syntax import Literal, walk
from glm_dspy.graphs.cypher.typecheck import problems
from glm_dspy.graphs.deadline import DeadlinePassed
from glm_dspy.graphs.literal import text_literal
from glm_dspy.graphs.store import QueryLimit, ReadResult


def read_only_problem(cypher: str) -> str | None:
    """Why `cypher` may not run for a question (graphs/cypher/gate.py decides on its parse: one
    reading statement, allow-listed functions), or None."""
    try:
        gate(cypher)
    except (QueryRefused, CypherSyntaxError) as error:
        return str(error)
    return None


def _canonical(cypher: str) -> str:
    """The text a query that passes the gate runs as (graphs/cypher/printer.py); else as written,
    for validation to say why it cannot run."""
    try:
        return gate(cypher).text
    except (QueryRefused, CypherSyntaxError):
        return cypher


TYPE_PROBLEM = "the query can match nothing in this graph"


def _holds(value, number: str) -> bool:
    """Whether a literal's value says `number` (digits): the number itself, or a string with it
    not inside a longer number (`'1844'`, `'Physics 1921'`, not `'18440'`)."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        return value == int(number)
    return re.search(rf"(?<!\d){number}(?!\d)", value) is not None


class Validation:
    """Text2Cypher's validation and execution stages: every query the module writes or rewrites
    runs through `run` (or `execute`). Reads `graph` (its store) and `ground`; asks Names for
    `exact_name`."""

    def validate(self, cypher: str, question: str | None = None) -> str | None:
        """Why `cypher` cannot run (the read-only gate on its parse, then Kuzu's EXPLAIN of the
        gated text; nothing else runs), or cannot answer `question` (`unnamed`,
        `unsaid_number`); None if neither."""
        try:
            self.graph.store.explain(cypher)
        except QueryRefused as error:
            return f"the query may not run: {error}"
        except CypherSyntaxError as error:
            return f"the query does not parse: {error}"
        except DeadlinePassed:
            raise
        except Exception as error:  # noqa: BLE001 - Kuzu's parser and binder errors are RuntimeErrors
            return f"Kuzu cannot run it: {str(error).strip().splitlines()[0][:300]}"
        if (problem := self.type_problem(cypher)) is not None:
            return problem
        if question is None or not self.ground:
            return None
        return self.unnamed(cypher, question) or self.unsaid_number(cypher, question)

    def type_problem(self, cypher: str) -> str | None:
        """Why the query can match nothing in this graph, read from its plan and the schema
        (graphs/cypher/typecheck.py: a hop the node it stands on does not have, a property its
        node's type lacks), or None. Such a query would read no rows, or count 0, for a reason
        the graph states: that is an error to resolve, never an answer."""
        try:
            found = problems(plan_of(gate(cypher).tree), self.graph.schema)
        except (QueryRefused, CypherSyntaxError):
            return None  # EXPLAIN ran the gated text: not reached
        return f"{TYPE_PROBLEM}: {'; '.join(found)}" if found else None

    def unnamed(self, cypher: str, question: str) -> str | None:
        """Why a query that holds no string at all cannot answer a question about a node the graph
        has by that very name, or None. A small model sometimes drops the name ("Who were the
        students of Augustin Walther?" -> `MATCH (m:laureate)-[:rel_student]->(s) RETURN s.name`,
        everyone's students); the repair is told which name to match, and how."""
        try:
            tree = gate(cypher).tree
        except (QueryRefused, CypherSyntaxError):
            return None  # EXPLAIN ran the gated text: not reached
        if any(isinstance(node, Literal) and isinstance(node.value, str) for node in walk(tree)):
            return None
        named = [exact for name in question_names(question) if (exact := self.exact_name(name)) is not None]
        if not named:
            return None
        feature, stored = named[0]
        return (f"the query matches no node by name, but the question asks about "
                f"{' and '.join(repr(name) for _, name in named[:3])}: match each by name, "
                f"e.g. {{{feature}: {text_literal(stored)}}}")

    def unsaid_number(self, cypher: str, question: str) -> str | None:
        """Why a query that holds none of the numbers its question says cannot answer it, or None.
        "How many papers did Asian Conference on Algorithms publish in 2024?" written without
        `WHERE p.year = 2024` counted every year's; the repair is told the number and the graph's
        number features."""
        said = list(dict.fromkeys(NUMBER.findall(question)))
        if not said:
            return None
        try:
            values = [node.value for node in walk(gate(cypher).tree) if isinstance(node, Literal)]
        except (QueryRefused, CypherSyntaxError):
            return None  # EXPLAIN ran the gated text: not reached
        if any(_holds(value, number) for value in values for number in said):
            return None
        types = self.graph.schema.node_types.items()
        numeric = [(t, f) for t, node_type in types for f, kind in node_type.features.items()
                   if kind.startswith(("INT", "UINT", "DOUBLE", "FLOAT"))]
        dates = [(t, f) for t, node_type in types for f, kind in node_type.features.items()
                 if kind == "STRING" and f.endswith("date")]
        hints = [f"{t}.{f} = {said[0]}" for t, f in sorted(numeric, key=lambda pair: "year" not in pair[1])][:4] \
            + [f"{t}.{f} STARTS WITH '{said[0]}'" for t, f in dates][:2]
        return (f"the question says {' and '.join(said[:3])}, but the query does not use it: filter on it with "
                f"WHERE" + (f", e.g. on {' or '.join(hints)}" if hints else ""))

    def execute(self, cypher: str) -> tuple[list[dict] | None, str | None]:
        """(rows, None), or (None, why not): `run`'s rows."""
        result, problem = self.run(cypher)
        return (result.rows if result is not None else None), problem

    def run(self, cypher: str) -> tuple[ReadResult | None, str | None]:
        """(what was read, None), or (None, why not): the gated query (`GraphStore.read`) under
        its time, row and byte limits; a result cut at a limit says so in `truncated`."""
        try:
            return self.graph.store.read(cypher), None
        except QueryRefused as error:
            return None, f"the query may not run: {error}"
        except CypherSyntaxError as error:
            return None, f"the query does not parse: {error}"
        except DeadlinePassed:
            raise
        except QueryLimit as error:
            return None, f"{error}; write a simpler one"
        except Exception as error:  # noqa: BLE001 - Kuzu's binder and runtime errors
            return None, str(error).strip().splitlines()[0][:300]
