"""Tokens to a syntax tree (graphs/cypher/syntax.py): a recursive-descent parser of reading Cypher.

The grammar is Kuzu 0.11.3's (`src/antlr4/Cypher.g4` in kuzu's sources) cut down to the reading
clauses; a clause outside it is refused by name (`QueryRefused`: "COPY is not allowed ..."), any
other text it cannot read is a `CypherSyntaxError` with line and column. Exactly one statement
is read (one trailing ';' is allowed). Nesting is bounded (MAX_DEPTH), so no input can exhaust
the parser's stack.
"""

from __future__ import annotations

from glm_dspy.graphs.cypher.errors import CypherSyntaxError, QueryRefused, refused_clause
from glm_dspy.graphs.cypher.lexer import Token, tokenize
from glm_dspy.graphs.cypher.syntax import (Binary, Case, Cast, FunctionCall, Index, IsNull, ListLiteral, Literal,
                                           MapLiteral, Match, NodePattern, PatternPart, PatternPredicate, Projection,
                                           Property, Quantifier, Query, RelPattern, Return, SingleQuery, Slice,
                                           Subquery, Unary, Unwind, Variable, With)

MAX_DEPTH = 64
# clauses and statements Kuzu has that a question may not run: refused by name
NOT_READING = ("CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "ALTER", "COPY", "LOAD", "CALL",
               "INSTALL", "UNINSTALL", "UPDATE", "FORCE", "ATTACH", "USE", "EXPORT", "IMPORT", "CHECKPOINT",
               "BEGIN", "COMMIT", "ROLLBACK", "EXPLAIN", "PROFILE", "COMMENT", "FOREACH")
COMPARISONS = ("=", "<>", "!=", "<", "<=", ">", ">=")
RECURSIONS = ("SHORTEST", "TRAIL", "ACYCLIC")


def parse(text: str) -> Query:
    """The syntax tree of `text`, one reading query; raises CypherSyntaxError or QueryRefused."""
    return _Parser(text).query()


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0
        self.depth = 0

    # ---- token helpers ---------------------------------------------------------------------
    @property
    def token(self) -> Token:
        return self.tokens[self.i]

    def peek(self, ahead: int = 1) -> Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def at(self, *ops: str) -> bool:
        return self.token.kind == "op" and self.token.value in ops

    def at_word(self, *words: str) -> bool:
        return self.token.is_word(*words)

    def advance(self) -> Token:
        token = self.token
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return token

    def error(self, message: str, token: Token | None = None) -> CypherSyntaxError:
        return CypherSyntaxError(message, self.text, (token or self.token).offset)

    def expect(self, op: str) -> Token:
        if not self.at(op):
            raise self.error(f"expected '{op}'")
        return self.advance()

    def expect_word(self, *words: str) -> Token:
        if not self.at_word(*words):
            raise self.error(f"expected {' or '.join(words)}")
        return self.advance()

    def name(self, what: str = "a name") -> str:
        if self.token.kind not in ("name", "quoted_name"):
            raise self.error(f"expected {what}")
        return str(self.advance().value)

    def nested(self):
        parser = self

        class _Depth:
            def __enter__(self):
                parser.depth += 1
                if parser.depth > MAX_DEPTH:
                    raise parser.error(f"the query nests deeper than {MAX_DEPTH} levels")

            def __exit__(self, *exc):
                parser.depth -= 1
        return _Depth()

    # ---- statements and clauses ------------------------------------------------------------
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

    def where(self):
        if not self.at_word("WHERE"):
            return None
        self.advance()
        return self.expression()

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

    # ---- patterns ----------------------------------------------------------------------------
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

    def properties(self) -> tuple:
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

    # ---- expressions, loosest first (Kuzu's precedence) --------------------------------------
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
            with self.nested():
                return self.parenthesised()
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
            if token.kind == "name" and str(token.value).upper() in NOT_READING:
                raise refused_clause(str(token.value))
            self.advance()
            return Variable(str(token.value))
        if token.kind == "end":
            raise self.error("the query ends in the middle of an expression")
        raise self.error("expected an expression")

    def list_literal(self):
        self.expect("[")
        items = []
        while not self.at("]"):
            if items:
                self.expect(",")
            items.append(self.expression())
        self.expect("]")
        return ListLiteral(tuple(items))

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
