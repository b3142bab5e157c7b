"""The whole security policy of the snippet executor, in one readable place.

A snippet is compiled by RestrictedPython 9 with `SnippetPolicy` and run with the globals from
`make_globals`. Invariants:

- The only names a snippet can reach are `SAFE_BUILTINS`, the graph functions it is given and its
  own variables. Every name starting with `_` is rejected at compile time, so the guard hooks
  (`_getattr_`, `_getitem_`, ...) and `__builtins__` cannot be named or rebound.
- Every attribute read `a.b` becomes `_getattr_(a, "b")`, which allows only the names in
  `ALLOWED_ATTRIBUTES[type(a)]` (exact type; plain data methods, never `format`/`format_map`,
  never anything that reaches a frame, code object, class or module). Attribute writes and
  deletes are rejected at compile time: no snippet object has attributes worth writing.
- Item access refuses string keys starting with `_` (defence in depth: `dict.get` does not
  check it, and no dict a snippet can reach holds anything but its own or JSON data); item
  writes go only to lists and dicts. `d[k] += v` is allowed (RestrictedPython forbids it).
- There are no imports, classes, generators (`yield`) or async code; no file, OS or network
  builtin exists, so the worker's process limits (see worker.py) are a backstop, not the policy.
- `print` writes to one `PrintCollector` per run, also from inside functions the snippet defines.
"""

import ast
import builtins
import operator
import re
import sys
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from RestrictedPython import RestrictingNodeTransformer, compile_restricted_exec
from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence
from RestrictedPython.transformer import IOPERATOR_TO_STR, copy_locations

from glm_dspy.executor.printer import PrintCollector
from glm_dspy.retrieval.observation import Observation

SNIPPET_FILENAME = "<snippet>"

SAFE_EXCEPTIONS: dict[str, type[Exception]] = {
    cls.__name__: cls
    for cls in (Exception, ArithmeticError, AssertionError, AttributeError, IndexError, KeyError,
                LookupError, NameError, RecursionError, RuntimeError, StopIteration, TypeError,
                ValueError, ZeroDivisionError)
}

_SAFE_BUILTIN_NAMES = (
    "abs", "all", "any", "bool", "chr", "dict", "divmod", "enumerate", "filter", "float",
    "frozenset", "int", "isinstance", "iter", "len", "list", "map", "max", "min", "next", "ord",
    "pow", "range", "repr", "reversed", "round", "set", "sorted", "str", "sum", "tuple", "zip",
)
# graphs/node_info.py CHUNK_OPENING (tests/test_executor.py checks): the worker does not import the graph modules
VERTEX_CHUNK_OPENING = "[Node:"


def _len(obj: Any) -> int:
    """len, except on NodeInfo's text: its length in characters is never what a snippet wants
    (`len(NodeInfo(NeighbourCheck(x, "prize")))` printed 216 as a count of prizes)."""
    if isinstance(obj, str) and obj.startswith(VERTEX_CHUNK_OPENING):
        raise TypeError("len() of NodeInfo's text counts its characters; count nodes with "
                        "len(NeighbourCheck(ids, neighbour_type)) or NodeDegree(id, neighbour_type)")
    return len(obj)


SAFE_BUILTINS: dict[str, Any] = {
    "None": None, "True": True, "False": False,
    **{name: getattr(builtins, name) for name in _SAFE_BUILTIN_NAMES},
    "len": _len,
    **SAFE_EXCEPTIONS,
}

_STR_METHODS = frozenset({
    "capitalize", "casefold", "center", "count", "endswith", "find", "index", "isalnum",
    "isalpha", "isdecimal", "isdigit", "islower", "isnumeric", "isspace", "istitle", "isupper",
    "join", "ljust", "lower", "lstrip", "partition", "removeprefix", "removesuffix", "replace",
    "rfind", "rindex", "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines",
    "startswith", "strip", "swapcase", "title", "upper", "zfill",
})
_LIST_METHODS = frozenset({"append", "clear", "copy", "count", "extend", "index", "insert", "pop",
                           "remove", "reverse", "sort"})
_DICT_METHODS = frozenset({"clear", "copy", "fromkeys", "get", "items", "keys", "pop", "popitem",
                           "setdefault", "update", "values"})
_FROZENSET_METHODS = frozenset({"copy", "difference", "intersection", "isdisjoint", "issubset",
                                "issuperset", "symmetric_difference", "union"})
_SET_METHODS = _FROZENSET_METHODS | {"add", "clear", "difference_update", "discard",
                                     "intersection_update", "pop", "remove",
                                     "symmetric_difference_update", "update"}
_INT_METHODS = frozenset({"bit_length"})

# Keyed by exact type; a type object itself (e.g. `str.lower`, `dict.fromkeys`) gets its own row.
ALLOWED_ATTRIBUTES: dict[type, frozenset[str]] = {
    str: _STR_METHODS, Observation: _STR_METHODS, list: _LIST_METHODS, dict: _DICT_METHODS, set: _SET_METHODS,
    frozenset: _FROZENSET_METHODS, tuple: frozenset({"count", "index"}),
    int: _INT_METHODS, bool: _INT_METHODS, float: frozenset({"is_integer"}),
    range: frozenset({"start", "stop", "step", "count", "index"}),
}
_EXCEPTION_ATTRIBUTES = frozenset({"args"})
_ALL_ALLOWED_NAMES = frozenset().union(*ALLOWED_ATTRIBUTES.values(), _EXCEPTION_ATTRIBUTES)
_HINTS = {"format": "use an f-string instead", "format_map": "use an f-string instead"}


def _allowed_attributes(obj: Any) -> frozenset[str]:
    if type(obj) is type:
        return ALLOWED_ATTRIBUTES.get(obj, frozenset())
    if isinstance(obj, BaseException):
        return _EXCEPTION_ATTRIBUTES
    return ALLOWED_ATTRIBUTES.get(type(obj), frozenset())


def guarded_getattr(obj: Any, name: str) -> Any:
    allowed = _allowed_attributes(obj)
    if type(name) is not str or name not in allowed:
        kind = obj.__name__ if type(obj) is type else type(obj).__name__
        hint = _HINTS.get(name) or (f"allowed: {', '.join(sorted(allowed))}" if allowed
                                    else "it has no attributes snippets may use")
        raise AttributeError(f"attribute {name!r} of {kind} is not allowed in snippets; {hint}")
    if name == "join" and isinstance(obj, str):
        return _join_of(obj)
    return getattr(obj, name)


def _join_of(separator: str) -> Callable[[Any], str]:
    """`separator.join`, except for two mistakes a snippet makes when it takes one value for a list:
    joining a graph function's message raises its own TypeError (Observation.__iter__: the
    message) instead of str.join's "can only join an iterable"; joining a plain str gives the str
    itself, as a list of that one value would, not its characters ("R, e, v, ..."): NodeFeature
    of one id returns one value where the snippet expected the list of a list of ids."""
    def join(items: Any) -> str:
        if isinstance(items, Observation):
            iter(items)
        if isinstance(items, str):
            return str.__str__(items)
        return separator.join(items)

    return join


def guarded_getitem(obj: Any, key: Any) -> Any:
    if isinstance(key, str) and key.startswith("_"):
        raise KeyError(f"keys starting with '_' are not allowed in snippets: {key!r}")
    return obj[key]


def guarded_write(obj: Any) -> Any:
    if type(obj) in (list, dict):
        return obj
    raise TypeError(f"'{type(obj).__name__}' object does not support item assignment in snippets")


_INPLACE_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow,
    "<<=": operator.ilshift, ">>=": operator.irshift, "|=": operator.ior, "^=": operator.ixor,
    "&=": operator.iand, "@=": operator.imatmul,
}


def guarded_inplacevar(op: str, target: Any, value: Any) -> Any:
    return _INPLACE_OPERATORS[op](target, value)


def guarded_augitem(op: str, obj: Any, key: Any, value: Any) -> None:
    """`obj[key] op= value`. Unlike Python, `value` is evaluated before `obj[key]` is read."""
    guarded_write(obj)[key] = guarded_inplacevar(op, guarded_getitem(obj, key), value)


def guarded_apply(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return function(*args, **kwargs)


class SnippetPolicy(RestrictingNodeTransformer):
    """RestrictedPython's default policy, narrowed (imports, classes, yield, attribute writes,
    attributes outside the allowlist) and widened by one safe form, `d[k] += v`."""

    def _deny(self, node: ast.AST, message: str) -> ast.AST:
        self.error(node, message)
        return node

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> ast.AST:
        return self._deny(node, "import statements are not allowed; use the graph functions "
                                "and builtins that are already defined")

    visit_ImportFrom = visit_Import

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return self._deny(node, "class definitions are not allowed; use dicts and functions")

    def visit_Yield(self, node: ast.Yield | ast.YieldFrom) -> ast.AST:
        return self._deny(node, "yield is not allowed; build and return a list instead")

    visit_YieldFrom = visit_Yield

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if not isinstance(node.ctx, ast.Load):
            return self._deny(node, f"assigning or deleting attribute {node.attr!r} is not allowed")
        if not node.attr.startswith("_") and node.attr not in _ALL_ALLOWED_NAMES:
            hint = _HINTS.get(node.attr, "only plain str/list/dict/set/tuple methods are allowed")
            return self._deny(node, f"attribute {node.attr!r} is not allowed in snippets; {hint}")
        return super().visit_Attribute(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        target = node.target
        if not isinstance(target, ast.Subscript) or isinstance(target.slice, ast.Slice):
            return super().visit_AugAssign(node)
        op = type(node.op)
        call = ast.Call(func=ast.Name("_augitem_", ast.Load()),
                        args=[ast.Constant(IOPERATOR_TO_STR[op]), self.visit(target.value),
                              self.visit(target.slice), self.visit(node.value)],
                        keywords=[])
        new_node = ast.Expr(value=call)
        copy_locations(new_node, node)  # also fills the new children's locations
        return new_node


@dataclass(slots=True)
class SnippetCompileError(Exception):
    """Why a snippet did not compile: `type_name` is "SyntaxError" for code Python cannot parse
    and "PolicyError" for code the policy forbids; `line` is 1-based or None."""
    type_name: str
    message: str
    line: int | None

    def __post_init__(self) -> None:
        assert self.type_name in ("SyntaxError", "PolicyError"), self.type_name


_COMPILE_RECURSION_LIMIT = 4000
_TOO_DEEP = "the code is nested too deeply to compile; split long expressions into statements"
_RP_ERROR = re.compile(r"^Line (\d+|None): (.*)$", re.DOTALL)


def compile_snippet(code: str) -> types.CodeType:
    """Parse and compile `code` under `SnippetPolicy`; raises SnippetCompileError."""
    try:
        tree = ast.parse(code, SNIPPET_FILENAME, "exec")
    except SyntaxError as exc:
        raise SnippetCompileError("SyntaxError", exc.msg, exc.lineno) from None
    except ValueError as exc:  # NUL bytes
        raise SnippetCompileError("SyntaxError", str(exc), None) from None
    except (RecursionError, MemoryError):
        raise SnippetCompileError("SyntaxError", _TOO_DEEP, None) from None
    recursion_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_COMPILE_RECURSION_LIMIT)  # the policy visitor recurses ~4 frames/level
    try:
        result = compile_restricted_exec(tree, SNIPPET_FILENAME, policy=SnippetPolicy)
    except (RecursionError, MemoryError):
        raise SnippetCompileError("SyntaxError", _TOO_DEEP, None) from None
    finally:
        sys.setrecursionlimit(recursion_limit)
    if result.errors:
        match = _RP_ERROR.match(result.errors[0])
        line_text, message = match.groups() if match else ("None", result.errors[0])
        line = None if line_text == "None" else int(line_text)
        raise SnippetCompileError("PolicyError", message.rstrip("."), line)
    assert result.code is not None
    return result.code


def make_globals(functions: Mapping[str, Callable[..., Any]], printer: PrintCollector) -> dict:
    """A fresh namespace for one run: safe builtins, guard hooks and the graph functions."""
    for name in functions:
        assert name.isidentifier() and not name.startswith("_"), f"bad function name {name!r}"
    return {
        "__builtins__": SAFE_BUILTINS,
        "__name__": "snippet",
        "_getattr_": guarded_getattr,
        "_getitem_": guarded_getitem,
        "_getiter_": iter,
        "_write_": guarded_write,
        "_inplacevar_": guarded_inplacevar,
        "_augitem_": guarded_augitem,
        "_apply_": guarded_apply,
        "_unpack_sequence_": guarded_unpack_sequence,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
        "_print_": lambda _getattr=None: printer,
        **functions,
    }
