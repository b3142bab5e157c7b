"""Tokens to a syntax tree (graphs/cypher/syntax.py): a recursive-descent parser of reading Cypher.

The grammar is Kuzu 0.11.3's (`src/antlr4/Cypher.g4` in kuzu's sources) cut down to the reading
clauses; a clause outside it is refused by name (`QueryRefused`: "COPY is not allowed ..."), any
other text it cannot read is a `CypherSyntaxError` with line and column. Exactly one statement
is read (one trailing ';' is allowed). Nesting is bounded (token_reader.MAX_DEPTH levels, each at
most ~9 Python frames), so no input can exhaust the parser's stack; a parenthesis is parsed once
(expression_parser.py `parenthesised_once`), so the time is linear in the tokens.
"""

from __future__ import annotations

from glm_dspy.graphs.cypher.errors import CypherSyntaxError, QueryRefused, refused_clause
from glm_dspy.graphs.cypher.expression_parser import NOT_READING, ExpressionParser
from glm_dspy.graphs.cypher.syntax import (Match, NodePattern, PatternPart, Projection, Query, RelPattern, Return,
                                           SingleQuery, Unwind, With)

RECURSIONS = ("SHORTEST", "TRAIL", "ACYCLIC")


def parse(text: str) -> Query:
    """The syntax tree of `text`, one reading query; raises CypherSyntaxError or QueryRefused."""
    return _Parser(text).query()


class _Parser(ExpressionParser):
    """Statements, clauses and patterns (expressions: graphs/cypher/expression_parser.py)."""

    def query(self) -> Query:
        if self.token.kind == "end":
            raise CypherSyntaxError("the query is empty")
        parts, union_all = [self.single_query()], []
        while self.at_word("UNION"):
            self.advance()
            is_all = self.at_word("ALL")
            if is_all:
                self.advance()
            union_all.append(is_all)
            parts.append(self.single_query())
        if self.at(";"):
            self.advance()
        if self.token.kind != "end":
            if self.token.kind == "name" and str(self.token.value).upper() in NOT_READING:
                raise refused_clause(str(self.token.value))
            if self.tokens[self.i - 1].value == ";":
                raise QueryRefused("write exactly one statement: nothing may follow its ';'")
            raise self.error("unexpected text after the query's RETURN")
        return Query(tuple(parts), tuple(union_all))

    def single_query(self) -> SingleQuery:
        clauses = []
        while True:
            token = self.token
            if token.is_word("MATCH") or token.is_word("OPTIONAL"):
                clauses.append(self.match())
            elif token.is_word("UNWIND"):
                self.advance()
                expression = self.expression()
                self.expect_word("AS")
                clauses.append(Unwind(expression, self.name("a variable after AS")))
            elif token.is_word("WITH"):
                self.advance()
                projection = self.projection()
                clauses.append(With(projection, self.where()))
            elif token.is_word("RETURN"):
                self.advance()
                clauses.append(Return(self.projection()))
                return SingleQuery(tuple(clauses))
            elif token.kind == "name" and str(token.value).upper() in NOT_READING:
                raise refused_clause(str(token.value))
            elif token.kind == "end" or token.value == ";":
                raise self.error("the query ends without RETURN")
            else:
                raise self.error("expected MATCH, OPTIONAL MATCH, UNWIND, WITH or RETURN")

    def match(self) -> Match:
        optional = self.at_word("OPTIONAL")
        if optional:
            self.advance()
        self.expect_word("MATCH")
        patterns = [self.pattern_part()]
        while self.at(","):
            self.advance()
            patterns.append(self.pattern_part())
        if self.at_word("HINT"):
            raise refused_clause("HINT")
        return Match(tuple(patterns), self.where(), optional)

    def projection(self) -> Projection:
        distinct = self.at_word("DISTINCT")
        if distinct:
            self.advance()
        star, items = False, []
        if self.at("*"):
            self.advance()
            star = True
        if not star or self.at(","):
            if star:
                self.advance()
            items.append(self.projection_item())
            while self.at(","):
                self.advance()
                items.append(self.projection_item())
        order, skip, limit = [], None, None
        if self.at_word("ORDER"):
            self.advance()
            self.expect_word("BY")
            order.append(self.sort_item())
            while self.at(","):
                self.advance()
                order.append(self.sort_item())
        if self.at_word("SKIP"):
            self.advance()
            skip = self.expression()
        if self.at_word("LIMIT"):
            self.advance()
            limit = self.expression()
        return Projection(tuple(items), star, distinct, tuple(order), skip, limit)

    def projection_item(self) -> tuple:
        expression = self.expression()
        if self.at_word("AS"):
            self.advance()
            return expression, self.name("a name after AS")
        return expression, None

    def sort_item(self) -> tuple:
        expression = self.expression()
        if self.at_word("DESC", "DESCENDING"):
            self.advance()
            return expression, True
        if self.at_word("ASC", "ASCENDING"):
            self.advance()
        return expression, False

    def pattern_part(self) -> PatternPart:
        variable = None
        if self.token.kind in ("name", "quoted_name") and self.peek().value == "=" and self.peek().kind == "op":
            variable = self.name()
            self.advance()
        if self.at("(") and self.peek().kind == "op" and self.peek().value == "(":  # ((a)-->(b))
            self.advance()
            with self.nested():
                part = self.pattern_part()
            self.expect(")")
            return PatternPart(part.nodes, part.rels, variable)
        nodes, rels = [self.node_pattern()], []
        while self.at("-", "<"):
            rels.append(self.rel_pattern())
            nodes.append(self.node_pattern())
        return PatternPart(tuple(nodes), tuple(rels), variable)

    def node_pattern(self) -> NodePattern:
        self.expect("(")
        variable = self.name() if self.token.kind in ("name", "quoted_name") else None
        labels = []
        if self.at(":"):
            self.advance()
            labels.append(self.name("a label"))
            while self.at("|", ":"):
                self.advance()
                if self.at(":"):
                    self.advance()
                labels.append(self.name("a label"))
        properties = self.properties() if self.at("{") else ()
        self.expect(")")
        return NodePattern(variable, tuple(labels), properties)

    def rel_pattern(self) -> RelPattern:
        leftward = self.at("<")
        if leftward:
            self.advance()
        self.expect("-")
        variable, types, length, recursion, properties = None, [], None, None, ()
        if self.at("["):
            self.advance()
            if self.token.kind in ("name", "quoted_name"):
                variable = self.name()
            if self.at(":"):
                self.advance()
                types.append(self.name("a relationship type"))
                while self.at("|"):
                    self.advance()
                    if self.at(":"):
                        self.advance()
                    types.append(self.name("a relationship type"))
            if self.at("*"):
                self.advance()
                length, recursion = self.rel_length()
            if self.at("{"):
                properties = self.properties()
            self.expect("]")
        self.expect("-")
        rightward = self.at(">")
        if rightward:
            self.advance()
        if leftward and rightward:
            raise self.error("a relationship cannot point both ways")
        direction = "in" if leftward else "out" if rightward else "both"
        return RelPattern(variable, tuple(types), direction, length, recursion, properties)

    def rel_length(self) -> tuple:
        recursion = None
        if self.at_word("ALL") and self.peek().is_word("SHORTEST"):
            self.advance()
            self.advance()
            recursion = "ALL SHORTEST"
        elif self.at_word(*RECURSIONS):
            recursion = str(self.advance().value).upper()
        elif self.at_word("WSHORTEST"):
            raise self.error("weighted shortest paths are not supported")
        low = high = None
        if self.token.kind == "integer":
            low = high = self.advance().value
        if self.at(".."):
            self.advance()
            high = self.advance().value if self.token.kind == "integer" else None
        if self.at("("):
            raise self.error("recursive comprehensions are not supported")
        return (low, high), recursion
