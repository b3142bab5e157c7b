"""A condition on a start node's stored value, as the question states it: `a.<feature> <op>
<value>`, printed as a syntax tree (graphs/cypher/printer.py: values enter a query only as
literals there) and said in words for a reading.
"""

from __future__ import annotations

from dataclasses import dataclass

from glm_dspy.graphs.cypher.syntax import Binary, FunctionCall, IsNull, ListLiteral, Literal, Property, Variable

DECADE = "decade"
IN = "IN"
RANGE = "BETWEEN"  # (low, high): a year from low to high, both in; of a date's text, from low up to (not) high
ABSENT, PRESENT = "IS NULL", "IS NOT NULL"  # a feature the node lacks, or holds ("still alive": no death date)


@dataclass(frozen=True, slots=True)
class Condition:
    """`a.<feature> <op> <value>` on a start node; op is "=", "STARTS WITH" (a year's or a
    decade's dates), "CONTAINS" (words of a long text, lower case; of a list of texts, any of
    them), a bound (">=", ">", "<", "<=": since, after, before, until a year) or DECADE (a year's
    number in the decade `value`, 1990 for the 1990s) or IN (any value of a tuple: "physics,
    chemistry or medicine" said of one feature, a union) or RANGE (a year's number from low to
    high, both in; a date's text from the low year's to the high one's, which is the year after
    the last: "between 1901 and 2022") or ABSENT, PRESENT (the node lacks the
    feature, or holds it: "still alive" is no death date; no value)."""

    feature: str
    op: str
    value: str | int | tuple
    in_list: bool = False

    def __post_init__(self) -> None:
        assert (self.op in (IN, RANGE)) == isinstance(self.value, tuple), (self.op, self.value)
        assert (self.op in (ABSENT, PRESENT)) == (self.value is None), (self.op, self.value)

    @classmethod
    def union(cls, conditions: list["Condition"]) -> "Condition":
        """Any of the values of equal conditions on one feature."""
        assert len(conditions) >= 2 and all(c.op == "=" and c.feature == conditions[0].feature for c in conditions)
        return cls(conditions[0].feature, IN, tuple(c.value for c in conditions))

    @property
    def values(self) -> tuple:
        """The values it binds: a union's each, an absence's none, another's one."""
        return self.value if self.op in (IN, RANGE) else () if self.value is None else (self.value,)

    def expression(self, variable: str = "a") -> Binary:
        subject = Property(Variable(variable), self.feature)
        if self.value is None:
            return IsNull(subject, negated=self.op == PRESENT)
        if self.op == IN:
            return Binary(IN, subject, ListLiteral(tuple(Literal(v) for v in self.value)))
        if self.op == RANGE:
            low, high = self.value
            return Binary("AND", Binary(">=", subject, Literal(low)),
                          Binary("<" if isinstance(high, str) else "<=", subject, Literal(high)))
        if self.op == DECADE:
            return Binary("=", Binary("/", subject, Literal(10)), Literal(int(self.value) // 10))
        if self.op == "CONTAINS":
            if self.in_list:
                subject = FunctionCall("list_to_string", (Literal(" | "), subject))
            subject = FunctionCall("lower", (subject,))
        return Binary(self.op, subject, Literal(self.value))

    def words(self) -> str:
        if self.value is None:
            return f"{self.feature.replace('_', ' ')} is {'stated' if self.op == PRESENT else 'missing'}"
        said = {"STARTS WITH": "starts with", "CONTAINS": "mentions", ">=": "is at least", ">": "is after",
                "<": "is before", "<=": "is at most"}.get(self.op, "is")
        if self.op == DECADE:
            return f"{self.feature.replace('_', ' ')} is in the {self.value}s"
        if self.op == RANGE:
            low, high = self.value
            return f"{self.feature.replace('_', ' ')} is from {low} to {int(high) - 1 if isinstance(high, str) else high}"
        if self.op == IN:
            return f"{self.feature.replace('_', ' ')} is one of {', '.join(map(str, self.value))}"
        return f"{self.feature.replace('_', ' ')} {said} {self.value}"


__all__ = ["Condition", "DECADE", "IN", "RANGE", "ABSENT", "PRESENT"]
