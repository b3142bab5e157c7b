"""`autofix`: the repairs GLM makes to a failing snippet itself, without an LLM call.

Asked to repair its own snippet from the code and the error, the 0.5B Act agent copied the
failing snippet verbatim in 68 of 97 repairs on two 60-question dev samples and fixed it in
about 1 (docs/benchmarks.md, "Repairs"). The mistakes behind many failures are mechanical,
though, and the graph's schema is enough to undo them. Each rule rewrites the snippet's AST:

* an undefined name close to one the snippet can use: a variable it assigns (`citation` ->
  `citations`), a graph function or a builtin (`RetrieveNodes` -> `RetrieveNode`);
* a feature or neighbour-type argument the graph does not have, close to one it has
  (`"prizes"` -> `"prize"`, `"birth city"` -> `"birth_city"`);
* `NodeInfo(ids, name)`, which takes one argument: `NodeInfo(NeighbourCheck(ids, name))` for a
  neighbour type, `NodeFeature(ids, name)` for a feature, else `NodeInfo(ids)`.

A rewrite only fixes the form of the snippet; whether it then prints a real result is up
to the executor, as for any snippet. `autofix` returns None when no rule applies.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterable

from glm_dspy.executor.policy import SAFE_BUILTINS
from glm_dspy.graph_arguments import closest_name

GRAPH_FUNCTIONS = ("RetrieveNode", "NodeInfo", "NodeFeature", "NodeDegree", "NeighbourCheck")
SNIPPET_NAMES = (*GRAPH_FUNCTIONS, "print", *SAFE_BUILTINS)  # what a snippet may call without defining it
NAMED_FUNCTIONS = ("NodeFeature", "NodeDegree", "NeighbourCheck")  # (ids, name): a feature or neighbour type
CALLABLE_CUTOFF = 0.6  # MentorCheck -> NeighbourCheck is 0.64
VARIABLE_CUTOFF = 0.75


def autofix(code: str, features: Iterable[str], neighbour_types: Iterable[str]) -> str | None:
    """`code` with its mechanical mistakes undone (module docstring), or None if it has none
    that a rule fixes (or does not parse). `features` and `neighbour_types`: all the graph's."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    fixer = _Fixer(_defined_names(tree), set(features), set(neighbour_types))
    tree = ast.fix_missing_locations(fixer.visit(tree))
    return ast.unparse(tree) if fixer.changed else None


def _defined_names(tree: ast.AST) -> set[str]:
    """The names the snippet binds: assignment, loop and comprehension targets, def and its arguments."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
            if isinstance(node, ast.FunctionDef):
                names.add(node.name)
            names.update(arg.arg for arg in node.args.args + node.args.kwonlyargs)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


class _Fixer(ast.NodeTransformer):
    def __init__(self, defined: set[str], features: set[str], neighbour_types: set[str]):
        self.variables = sorted(defined)
        self.known = defined | set(SNIPPET_NAMES)
        self.callables = sorted(self.known)
        self.features, self.neighbour_types = features, neighbour_types
        self.names = sorted(features | neighbour_types)
        self.changed = False

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Name) and node.func.id not in self.known:
            if match := difflib.get_close_matches(node.func.id, self.callables, n=1, cutoff=CALLABLE_CUTOFF):
                node.func = ast.Name(match[0], ast.Load())
                self.changed = True
        node = self.generic_visit(node)
        function = node.func.id if isinstance(node.func, ast.Name) else None
        if function in NAMED_FUNCTIONS and len(node.args) == 2 and _is_text(node.args[1]):
            name = node.args[1].value
            if name not in self.names and (guess := closest_name(name, self.names)):
                node.args[1] = ast.Constant(guess)
                self.changed = True
        if function == "NodeInfo" and len(node.args) == 2:
            return self._node_info(node)
        return node

    def _node_info(self, node: ast.Call) -> ast.Call:
        """NodeInfo(ids, name) -> what the second argument asked for (module docstring)."""
        ids, name = node.args
        self.changed = True
        text = name.value if _is_text(name) else None
        if text is not None and text not in self.names:
            text = closest_name(text, self.names)
        if text in self.neighbour_types:
            neighbours = ast.Call(ast.Name("NeighbourCheck", ast.Load()), [ids, ast.Constant(text)], [])
            return ast.Call(ast.Name("NodeInfo", ast.Load()), [neighbours], [])
        if text in self.features:
            return ast.Call(ast.Name("NodeFeature", ast.Load()), [ids, ast.Constant(text)], [])
        return ast.Call(ast.Name("NodeInfo", ast.Load()), [ids], [])

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if isinstance(node.ctx, ast.Load) and node.id not in self.known:
            if match := difflib.get_close_matches(node.id, self.variables, n=1, cutoff=VARIABLE_CUTOFF):
                self.changed = True
                return ast.Name(match[0], ast.Load())
        return node


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)
