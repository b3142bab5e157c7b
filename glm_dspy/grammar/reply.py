"""The grammar of a whole agent reply in DSPy's ChatAdapter layout, from the signature's output fields.

    [[ ## finished ## ]]
    True

    [[ ## answer ## ]]
    1962

    [[ ## missing_information ## ]]


    [[ ## completed ## ]]

Each output field, in signature order, gets its header, a space or a newline, and a value: a `Literal[...]` field
one of its values, a `bool` field `True` or `False`, any other field one line of free text
(possibly empty), unless the caller gives the field a rule of its own (`field_rules`, written with
glm_dspy/grammar/ebnf.py's pieces). Closed sets are thus decided by decoding, not by
parsing afterwards, and the reply always parses.
"""

from __future__ import annotations

from typing import Literal, get_args, get_origin

from glm_dspy.grammar.ebnf import choice, literal

LINE_RULE = "line ::= [^\\n]*"
# after a header, a value starts on the next line or, as small models often write it, on the same
# line after a space; forcing one of the two pushes a model off its own layout and changes its answer
SEPARATOR = '(" " | "\\n")'


def value_rule(name: str, annotation) -> str:
    """The EBNF for one output field's value, by its type."""
    if annotation is bool:
        return choice(("True", "False"))
    if get_origin(annotation) is Literal:
        values = get_args(annotation)
        assert all(isinstance(v, str) for v in values), f"{name}: only Literal[str, ...] has a grammar, got {values}"
        return choice(values)
    return "line"


def reply_grammar(signature, *, field_rules: dict[str, str] | None = None, rules: list[str] = ()) -> str:
    """The grammar of a reply to `signature`: `field_rules` maps a field to the rule name of its
    value, defined in `rules`; the other fields get `value_rule`."""
    field_rules = field_rules or {}
    unknown = set(field_rules) - set(signature.output_fields)
    assert not unknown, f"{sorted(unknown)} are not output fields of {signature.__name__}"
    parts = []
    for index, (name, field) in enumerate(signature.output_fields.items()):
        header = ("\n\n" if index else "") + f"[[ ## {name} ## ]]"
        parts += [literal(header), SEPARATOR, field_rules.get(name) or value_rule(name, field.annotation)]
    parts.append(literal("\n\n[[ ## completed ## ]]"))
    line = [LINE_RULE] if "line" in parts else []
    return "\n".join([f"root ::= {' '.join(parts)}", *line, *rules]) + "\n"
