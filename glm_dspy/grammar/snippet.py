"""The grammar of Act's snippets on one graph: Python the executor runs, naming only the graph's own names.

vLLM's structured outputs (xgrammar, GBNF-style EBNF) decode Act's reply under this grammar,
so a snippet can only call the five graph functions, the executor's builtins
(`glm_dspy.executor.policy.SAFE_BUILTINS`) and the methods the policy allows, and every
feature name (NodeFeature's second argument) and neighbour type (NeighbourCheck's and
NodeDegree's) is one the graph has. Free text is allowed where free text belongs: string
literals elsewhere (RetrieveNode's argument, comparisons, separators).

The language, a subset of what the executor accepts (but for two things Python rejects at
compile time, which the executor reports as a SyntaxError: a keyword used as a variable name,
`break`/`continue` outside a loop):
* statements, one per line: `target = expr`, `name op= expr`, `name[expr] = expr`, a call
  (`print(...)`, `names.add(x)`), `pass`/`break`/`continue`; `for target in expr:` and
  `if`/`elif`/`else` with bodies indented by 4 spaces, nested at most `max_depth` deep;
* expressions: names, numbers, strings, lists/tuples/sets/dicts and their comprehensions,
  generator arguments (`sum(1 for x in xs)`), calls, methods (called or passed, as in
  `key=counts.get`), subscripts and slices, the arithmetic, set, comparison and boolean
  operators, `x if c else y`, `lambda a: expr`;
* PEP 8 spacing: one space around `=`, binary operators and after commas, none inside
  brackets. `act_grammar` puts DSPy's field markers around it (`[[ ## code ## ]]` ...
  `[[ ## completed ## ]]`, glm_dspy/grammar/reply.py), so the ChatAdapter parses it as it is.

What the executor accepts and the grammar leaves out, on purpose: `def`, `while`, `try`,
`with`, `return`, `del`, comments and blank lines (a lookup needs none of them, and `while`
is how snippets hang); f-strings (Python 3.11 forbids the snippet's own quote inside `{}`,
so they would need a second copy of the expression grammar; a printed result needs no
formatting); a feature name or neighbour type held in a variable (the argument must be the
literal, or it could not be checked). Keywords are not subtracted from identifiers because an
EBNF identifier rule cannot subtract words.
"""

from __future__ import annotations


from glm_dspy.executor.policy import ALLOWED_ATTRIBUTES, SAFE_BUILTINS
from glm_dspy.grammar.ebnf import choice, literal
from glm_dspy.grammar.reply import reply_grammar
from glm_dspy.graphs.schema import GraphSchema

DEFAULT_MAX_DEPTH = 3  # for / if bodies nested inside each other; the demos need 2
INDENT = "    "

# called by name: the safe builtins that are functions, and print (the executor's collector)
CALLABLE_BUILTINS = tuple(sorted({name for name, value in SAFE_BUILTINS.items() if callable(value)
                                  and not (isinstance(value, type) and issubclass(value, BaseException))}
                                 | {"print"}))
METHODS = tuple(sorted({name for names in ALLOWED_ATTRIBUTES.values() for name in names}))
COMPARISONS = ("==", "!=", "<=", ">=", "<", ">", "in", "not in", "is not", "is")
AUGMENTED = ("+=", "-=", "*=", "/=", "//=", "%=")


def quoted_choice(names) -> str:
    """Any of `names` as a Python string literal, in double or single quotes."""
    names = sorted(names)
    return "(" + " | ".join(literal(q + n + q) for q in ('"', "'") for n in names) + ")"


def expression_rules(features, neighbour_types) -> list[str]:
    """The rules of `expr` (and its parts), with NodeFeature / NeighbourCheck / NodeDegree
    arguments restricted to `features` / `neighbour_types`."""
    assert features and neighbour_types, "a graph with no features or no neighbour types has nothing to query"
    comparisons = " | ".join(literal(f" {op} ") for op in COMPARISONS)
    return [
        'expr ::= lambda_expr | conditional',
        'lambda_expr ::= "lambda " name (", " name)* ": " expr',
        'conditional ::= disjunction (" if " disjunction " else " expr)?',
        'disjunction ::= conjunction (" or " conjunction)*',
        'conjunction ::= negation (" and " negation)*',
        'negation ::= "not " negation | comparison',
        f'comparison ::= bitwise (({comparisons}) bitwise)*',
        'bitwise ::= sum ((" | " | " & " | " ^ ") sum)*',
        'sum ::= term ((" + " | " - ") term)*',
        'term ::= factor ((" * " | " / " | " // " | " % ") factor)*',
        'factor ::= "-" factor | primary',
        'primary ::= atom trailer*',
        'trailer ::= "[" subscript "]" | "." method ("(" arguments? ")")?',
        'subscript ::= expr | expr? ":" expr?',
        'atom ::= call | name | number | string | parenthesized | list_display | brace_display',
        'parenthesized ::= "(" expr ")" | "(" expr comprehension ")" | "(" expr ", " (expr (", " expr)*)? ")"',
        'list_display ::= "[]" | "[" expr comprehension "]" | "[" expr (", " expr)* "]"',
        'brace_display ::= "{}" | "{" expr comprehension "}" | "{" expr (", " expr)* "}" '
        '| "{" expr ": " expr comprehension "}" | "{" expr ": " expr (", " expr ": " expr)* "}"',
        'comprehension ::= (" for " target " in " disjunction (" if " disjunction)*)+',
        'call ::= graph_call | builtin "(" arguments? ")"',
        'graph_call ::= "RetrieveNode(" expr ")" | "NodeInfo(" expr ")" '
        '| "NodeFeature(" expr ", " feature ")" | "NeighbourCheck(" expr ", " neighbour_type ")" '
        '| "NodeDegree(" expr ", " neighbour_type ")"',
        f'feature ::= {quoted_choice(features)}',
        f'neighbour_type ::= {quoted_choice(neighbour_types)}',
        f'builtin ::= {choice(CALLABLE_BUILTINS)}',
        f'method ::= {choice(METHODS)}',
        'arguments ::= expr comprehension | argument (", " argument)*',
        'argument ::= name "=" expr | expr',
        'target ::= name (", " name)*',
        'name ::= [a-zA-Z] [a-zA-Z0-9_]*',
        'number ::= [0-9]+ ("." [0-9]+)?',
        r'string ::= "\"" ([^"\\\n] | "\\" [^\n])* "\"" | "' + "'" + r'" ([^'"'"r'\\\n] | "\\" [^\n])* "' + "'" + '"',
    ]


def statement_rules(max_depth: int) -> list[str]:
    """`block_0` (the top level) down to `block_<max_depth>`; compound statements only above the last level."""
    augmented = " | ".join(literal(f" {op} ") for op in AUGMENTED)
    rules = [
        'simple ::= target " = " expr | name "[" expr "]" " = " expr '
        f'| name ({augmented}) expr | name "[" expr "]" ({augmented}) expr '
        '| primary | "pass" | "break" | "continue"',
    ]
    for depth in range(max_depth + 1):
        here = literal(INDENT * depth)
        if depth < max_depth:
            inner = f"block_{depth + 1}"
            rules += [
                f'statement_{depth} ::= simple | for_{depth} | if_{depth}',
                f'for_{depth} ::= "for " target " in " expr ":" {inner}',
                f'if_{depth} ::= "if " expr ":" {inner} ("\\n" {here} "elif " expr ":" {inner})* '
                f'("\\n" {here} "else:" {inner})?',
            ]
        else:
            rules.append(f'statement_{depth} ::= simple')
        if depth > 0:
            rules.append(f'block_{depth} ::= ("\\n" {here} statement_{depth})+')
    return rules


def snippet_rules(features, neighbour_types, *, max_depth: int = DEFAULT_MAX_DEPTH) -> list[str]:
    """`program` (one snippet, no markers) and everything it uses."""
    assert max_depth >= 1, max_depth
    return ['program ::= statement_0 ("\\n" statement_0)*',
            *statement_rules(max_depth), *expression_rules(features, neighbour_types)]


def act_grammar(schema: GraphSchema, *, max_depth: int = DEFAULT_MAX_DEPTH) -> str:
    """The whole reply of Act on `schema`'s graph: its field markers around one snippet."""
    from glm_dspy.signatures import Act

    features, neighbour_types = schema.names()
    return reply_grammar(Act, field_rules={"code": "program"},
                         rules=snippet_rules(features, neighbour_types, max_depth=max_depth))
