"""Expressions of reading Cypher, loosest first, as Kuzu 0.11.3's grammar binds them
(`src/antlr4/Cypher.g4`): OR, XOR, AND, NOT, comparisons, arithmetic, postfix operators (IS
NULL, IN, STARTS WITH, subscripts, property lookups), atoms (literals, lists, maps, CASE,
function calls, quantifiers, EXISTS/COUNT subqueries and pattern predicates). A subquery's or a
pattern predicate's patterns are the clause parser's (graphs/cypher/parser.py `pattern_part`).
"""

from __future__ import annotations

from glm_dspy.graphs.cypher.errors import CypherSyntaxError, refused_clause
from glm_dspy.graphs.cypher.syntax import (Binary, Case, Cast, FunctionCall, Index, IsNull, ListLiteral, Literal,
                                           MapLiteral, PatternPredicate, Property, Quantifier, Slice, Subquery, Unary,
                                           Variable)
from glm_dspy.graphs.cypher.token_reader import TokenReader

# clauses and statements Kuzu has that a question may not run: refused by name
NOT_READING = ("CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "ALTER", "COPY", "LOAD", "CALL",
               "INSTALL", "UNINSTALL", "UPDATE", "FORCE", "ATTACH", "USE", "EXPORT", "IMPORT", "CHECKPOINT",
               "BEGIN", "COMMIT", "ROLLBACK", "EXPLAIN", "PROFILE", "COMMENT", "FOREACH")
COMPARISONS = ("=", "<>", "!=", "<", "<=", ">", ">=")
# keywords that may follow an expression (an operator's, a clause's next part, the next reading clause):
# a NOT_READING word before one is a variable (`RETURN set AS x`, `WITH set WHERE set > 1`); the
# printer quotes such a name (`set`), so what runs can never read it as the clause
AFTER_EXPRESSION = ("AS", "AND", "OR", "XOR", "IS", "IN", "STARTS", "ENDS", "CONTAINS", "ORDER", "SKIP", "LIMIT",
                    "UNION", "RETURN", "THEN", "ELSE", "END", "WHEN", "ASC", "DESC", "ASCENDING", "DESCENDING",
                    "WHERE", "MATCH", "OPTIONAL", "UNWIND", "WITH")


class ExpressionParser(TokenReader):
    def pattern_part(self):
        """A pattern (a subquery's, a pattern predicate's): the clause parser's."""
        raise NotImplementedError

    def where(self):
        if not self.at_word("WHERE"):
            return None
        self.advance()
        return self.expression()

    def properties(self) -> tuple:
        with self.nested():  # a level of its own: else a level of `{x: {x: ...}}` costs ~16 Python frames
            self.expect("{")
            items = []
            while not self.at("}"):
                if items:
                    self.expect(",")
                key = self.name("a property name")
                self.expect(":")
                items.append((key, self.expression()))
            self.expect("}")
            return tuple(items)

    def expression(self):
        with self.nested():
            return self.binary_chain(("OR",), self.xor)

    def xor(self):
        return self.binary_chain(("XOR",), self.conjunction)

    def conjunction(self):
        return self.binary_chain(("AND",), self.negation)

    def binary_chain(self, words, operand):
        left = operand()
        while self.at_word(*words):
            op = str(self.advance().value).upper()
            left = Binary(op, left, operand())
        return left

    def negation(self):
        if self.at_word("NOT"):
            self.advance()
            with self.nested():
                return Unary("NOT", self.negation())
        return self.comparison()

    def comparison(self):
        left = self.additive()
        if self.at(*COMPARISONS):
            op = str(self.advance().value)
            left = Binary("<>" if op == "!=" else op, left, self.additive())
            if self.at(*COMPARISONS):
                raise self.error("comparisons do not chain (write a < b AND b < c)")
        return left

    def additive(self):
        left = self.multiplicative()
        while self.at("+", "-"):
            op = str(self.advance().value)
            left = Binary(op, left, self.multiplicative())
        return left

    def multiplicative(self):
        left = self.power()
        while self.at("*", "/", "%"):
            op = str(self.advance().value)
            left = Binary(op, left, self.power())
        return left

    def power(self):
        left = self.postfix_operators()
        while self.at("^"):
            self.advance()
            left = Binary("^", left, self.postfix_operators())
        return left

    def postfix_operators(self):
        """String, list and null operators after a unary expression (oC_StringListNullOperatorExpression)."""
        left = self.unary()
        if self.at_word("STARTS", "ENDS"):
            op = str(self.advance().value).upper() + " WITH"
            self.expect_word("WITH")
            return Binary(op, left, self.property_lookups())
        if self.at_word("CONTAINS") or self.at("=~"):
            op = "=~" if self.at("=~") else "CONTAINS"
            self.advance()
            return Binary(op, left, self.property_lookups())
        if self.at_word("IS"):
            self.advance()
            negated = self.at_word("NOT")
            if negated:
                self.advance()
            self.expect_word("NULL")
            return IsNull(left, negated)
        while self.at_word("IN") or self.at("["):
            if self.at_word("IN"):
                self.advance()
                left = Binary("IN", left, self.property_lookups())
            else:
                left = self.subscript(left)
        return left

    def subscript(self, subject):
        with self.nested():
            return self._subscript(subject)

    def _subscript(self, subject):
        self.expect("[")
        start = None if self.at("..", ":") else self.expression()
        if self.at("..", ":"):
            neo4j = self.at("..")
            self.advance()
            end = None if self.at("]") else self.expression()
            self.expect("]")
            if neo4j and start is not None:
                # Neo4j's [a..b] counts from 0 and leaves b out; Kuzu's [a:b] counts from 1 and keeps b
                start = Literal(start.value + 1) if isinstance(start, Literal) and isinstance(start.value, int) \
                    and not isinstance(start.value, bool) and start.value >= 0 else Binary("+", start, Literal(1))
            return Slice(subject, start, end)
        self.expect("]")
        return Index(subject, start)

    def unary(self):
        if self.at("-"):
            self.advance()
            with self.nested():
                operand = self.unary()
            if isinstance(operand, Literal) and isinstance(operand.value, (int, float)) \
                    and not isinstance(operand.value, bool):
                return Literal(-operand.value)
            return Unary("-", operand)
        return self.property_lookups()

    def property_lookups(self):
        subject = self.atom()
        while self.at("."):
            self.advance()
            if self.at("*"):
                raise self.error("property wildcards (.*) are not supported")
            subject = Property(subject, self.name("a property name"))
        return subject

    def atom(self):
        token = self.token
        if token.kind in ("string", "integer", "float"):
            self.advance()
            return Literal(token.value)
        if token.is_word("TRUE", "FALSE"):
            self.advance()
            return Literal(str(token.value).upper() == "TRUE")
        if token.is_word("NULL"):
            self.advance()
            return Literal(None)
        if self.at("$"):
            raise self.error("parameters ($name) are not supported: write the value")
        if self.at("["):
            return self.list_literal()
        if self.at("{"):
            return MapLiteral(self.properties())
        if self.at("("):
            return self.parenthesised_once()
        if token.is_word("CASE"):
            with self.nested():
                return self.case()
        if token.is_word("EXISTS", "COUNT") and self.peek().value == "{":
            with self.nested():
                return self.subquery()
        if token.kind == "name" and self.peek().kind == "op" and self.peek().value == "(":
            with self.nested():
                return self.function_call()
        if token.kind in ("name", "quoted_name"):
            if token.kind == "name" and str(token.value).upper() in NOT_READING and not self._ends_expression(1):
                raise refused_clause(str(token.value))  # `SET l.x`, `LOAD FROM`: a clause, not a variable
            self.advance()
            return Variable(str(token.value))
        if token.kind == "end":
            raise self.error("the query ends in the middle of an expression")
        raise self.error("expected an expression")

    def _ends_expression(self, ahead: int) -> bool:
        """Whether the token `ahead` can follow a finished expression (Kuzu's grammar): an operator,
        the end, or a keyword that goes on after one (`AS`, `AND`, `ORDER`, ...)."""
        token = self.peek(ahead)
        return token.kind in ("op", "end") or token.is_word(*AFTER_EXPRESSION)

    def list_literal(self):
        with self.nested():  # as a map's, a list's own level (`[[[...]]]`)
            self.expect("[")
            items = []
            while not self.at("]"):
                if items:
                    self.expect(",")
                items.append(self.expression())
            self.expect("]")
            return ListLiteral(tuple(items))

    def parenthesised_once(self):
        """`parenthesised` at this token, parsed once: its tree (or its error's message) is kept by
        position, so trying a pattern first and an expression after stays linear in the query's
        length (else each nesting level is read twice, and 16 levels of `({x: (...)})` take seconds).
        An error is raised anew each time from its message: a raised error kept in a local of this
        frame would be a reference cycle (error, traceback, frame) for the garbage collector."""
        start = self.i
        if start not in self.parenthesised_at:
            try:
                with self.nested():
                    self.parenthesised_at[start] = (self.parenthesised(), self.i)
            except CypherSyntaxError as error:
                self.parenthesised_at[start] = (str(error), None)
        found, end = self.parenthesised_at[start]
        if end is None:
            raise CypherSyntaxError(found)
        self.i = end
        return found

    def parenthesised(self):
        """`( expression )`, or a pattern used as a predicate: `(a)-[:r]->(:b)`."""
        start = self.i
        try:
            part = self.pattern_part()
        except CypherSyntaxError:
            part = None
        if part is not None and part.rels:
            return PatternPredicate(part)
        self.i = start
        self.expect("(")
        inner = self.expression()
        self.expect(")")
        return inner

    def case(self):
        self.expect_word("CASE")
        subject = None if self.at_word("WHEN") else self.expression()
        whens = []
        while self.at_word("WHEN"):
            self.advance()
            condition = self.expression()
            self.expect_word("THEN")
            whens.append((condition, self.expression()))
        if not whens:
            raise self.error("CASE needs at least one WHEN ... THEN")
        default = None
        if self.at_word("ELSE"):
            self.advance()
            default = self.expression()
        self.expect_word("END")
        return Case(subject, tuple(whens), default)

    def subquery(self):
        kind = str(self.advance().value).upper()
        self.expect("{")
        self.expect_word("MATCH")
        patterns = [self.pattern_part()]
        while self.at(","):
            self.advance()
            patterns.append(self.pattern_part())
        where = self.where()
        self.expect("}")
        return Subquery(kind, tuple(patterns), where)

    def function_call(self):
        name = str(self.advance().value)
        self.expect("(")
        upper = name.upper()
        if upper in ("ALL", "ANY", "NONE", "SINGLE") and self.token.kind in ("name", "quoted_name") \
                and self.peek().is_word("IN"):
            variable = self.name()
            self.expect_word("IN")
            source = self.expression()
            if not self.at_word("WHERE"):
                raise self.error(f"{upper}(x IN list WHERE ...) needs its WHERE")
            where = self.where()
            self.expect(")")
            return Quantifier(upper, variable, source, where)
        if upper == "COUNT" and self.at("*"):
            self.advance()
            self.expect(")")
            return FunctionCall(name, star=True)
        if upper == "CAST":
            operand = self.expression()
            if self.at_word("AS"):
                self.advance()
                type_name = self.name("a type name")
            else:
                self.expect(",")
                if self.token.kind != "string":
                    raise self.error("CAST(x, 'TYPE') needs the type as a string")
                type_name = str(self.advance().value)
            self.expect(")")
            return Cast(operand, type_name)
        distinct = self.at_word("DISTINCT")
        if distinct:
            self.advance()
        args = []
        while not self.at(")"):
            if args:
                self.expect(",")
            if self.token.kind == "name" and self.peek().value in (":", "-") and self.peek(2).value in ("=", ">"):
                raise self.error("named and lambda arguments are not supported")
            args.append(self.expression())
        self.expect(")")
        return FunctionCall(name, tuple(args), distinct)


__all__ = ["ExpressionParser", "NOT_READING", "COMPARISONS"]
