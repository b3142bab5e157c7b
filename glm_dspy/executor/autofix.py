"""`autofix`: the repairs GLM makes to a failing snippet itself, without an LLM call.

Asked to repair its own snippet from the code and the error, the 0.5B Act agent copied the
failing snippet verbatim in 68 of 97 repairs on two 60-question dev samples and fixed it in
about 1 (docs/benchmarks.md, "The Python Act's levers"). The mistakes behind many failures are mechanical,
though, and the graph's schema is enough to undo them. Each rule rewrites the snippet's AST:

* an undefined name close to one the snippet can use: a variable it assigns (`citation` ->
  `citations`), a graph function or a builtin (`RetrieveNodes` -> `RetrieveNode`);
* a feature or neighbour-type argument the graph does not have, close to one it has in
  spelling (`"prizes"` -> `"prize"`, `"birth city"` -> `"birth_city"`) or, given a
  `NameMatcher`, in meaning (`"husband"` -> `"spouse"`, `"award"` -> `"prize"`): the graph's
  name nearest by the RetrieveNode embedder, when it is near enough and clearly nearer than
  the next one (SEMANTIC_MIN, SEMANTIC_MARGIN; a mapping can still be wrong, "teacher" ->
  "student" is refused only by the margin);
* given a `detour` (the graph's schema and the type of the entity the snippet retrieved), a
  neighbour type or feature the retrieved entity lacks but has one step further through exactly
  one of its relations: `NeighbourCheck(author, "venue")` -> `NeighbourCheck(NeighbourCheck(author,
  "paper"), "venue")`; only on a variable the snippet binds to `RetrieveNode(...)` alone (or on
  that call itself), the one whose type is known;
* `len(NodeInfo(ids))`, the length of a text: `len(ids)`, the number of nodes;
* `NodeInfo(ids, name)`, which takes one argument: `NodeInfo(NeighbourCheck(ids, name))` for a
  neighbour type, `NodeFeature(ids, name)` for a feature, else `NodeInfo(ids)`.

A rewrite only fixes the form of the snippet; whether it then prints a real result is up
to the executor, as for any snippet. `autofix` returns None when no rule applies.
"""

from __future__ import annotations

import ast
import difflib
from collections import Counter
from collections.abc import Callable, Collection, Iterable

import numpy as np

from glm_dspy.executor.policy import SAFE_BUILTINS
from glm_dspy.retrieval.arguments import closest_name

GRAPH_FUNCTIONS = ("RetrieveNode", "NodeInfo", "NodeFeature", "NodeDegree", "NeighbourCheck")
SNIPPET_NAMES = (*GRAPH_FUNCTIONS, "print", *SAFE_BUILTINS)  # what a snippet may call without defining it
NAMED_FUNCTIONS = ("NodeFeature", "NodeDegree", "NeighbourCheck")  # (ids, name): a feature or neighbour type
CALLABLE_CUTOFF = 0.6  # MentorCheck -> NeighbourCheck is 0.64
VARIABLE_CUTOFF = 0.75


SEMANTIC_MIN = 0.6  # cosine of the nearest name ("husband" ~ "spouse" 0.87, "mother" ~ "parents" 0.67)
SEMANTIC_MARGIN = 0.1  # over the second nearest ("university": institution 0.73, student 0.65: refused)


class NameMatcher:
    """The graph name nearest in meaning to a name it does not have, by an embedder (`encode(texts)`)."""

    def __init__(self, names: Iterable[str], embedder):
        self.names = sorted(set(names))
        self.embedder = embedder
        self._vectors = _unit(embedder.encode([_words(n) for n in self.names])) if len(self.names) > 1 else None

    def __call__(self, name: str) -> str | None:
        if self._vectors is None or not name.strip():
            return None
        scores = self._vectors @ _unit(self.embedder.encode([_words(name)]))[0]
        first, second = np.argsort(-scores)[:2]
        if scores[first] >= SEMANTIC_MIN and scores[first] - scores[second] >= SEMANTIC_MARGIN:
            return self.names[first]
        return None

    def nearest(self, text: str, k: int, within: Collection[str] | None = None) -> list[str]:
        """The `k` names (of `within`, where given) nearest `text` in meaning, the nearest first."""
        if self._vectors is None:
            return [n for n in self.names if within is None or n in within][:k]
        scores = self._vectors @ _unit(self.embedder.encode([_words(text)]))[0]
        ranked = (self.names[i] for i in np.argsort(-scores))
        return [n for n in ranked if within is None or n in within][:k]


def _words(name: str) -> str:
    return name.replace("_", " ").strip()


def _unit(vectors) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def autofix(code: str, features: Iterable[str], neighbour_types: Iterable[str],
            matcher: Callable[[str], str | None] | None = None,
            detour: Callable[[str, str], str | None] | None = None) -> str | None:
    """`code` with its mechanical mistakes undone (module docstring), or None if it has none
    that a rule fixes (or does not parse). `features` and `neighbour_types`: all the graph's;
    `matcher`: a `NameMatcher` over them, for names wrong in meaning rather than spelling;
    `detour(name, "feature" | "neighbour type")`: the one relation through which the retrieved
    entity reaches a name it lacks, else None."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    fixer = _Fixer(_defined_names(tree), set(features), set(neighbour_types), matcher, detour, _entity_names(tree))
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


def _entity_names(tree: ast.AST) -> set[str]:
    """The variables bound exactly once, by `name = RetrieveNode(...)`: each holds a retrieved entity."""
    bindings = Counter(node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store))
    return {node.targets[0].id for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and _is_retrieval(node.value) and bindings[node.targets[0].id] == 1}


def _is_retrieval(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "RetrieveNode"


class _Fixer(ast.NodeTransformer):
    def __init__(self, defined: set[str], features: set[str], neighbour_types: set[str],
                 matcher: Callable[[str], str | None] | None,
                 detour: Callable[[str, str], str | None] | None = None, entities: set[str] = frozenset()):
        self.matcher = matcher
        self.detour, self.entities = detour, entities
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
            if name not in self.names and (guess := self._name(name)):
                node.args[1] = ast.Constant(guess)
                self.changed = True
        if (function in ("NeighbourCheck", "NodeFeature") and len(node.args) == 2 and _is_text(node.args[1])
                and self.detour is not None and self._is_entity(node.args[0])):
            what = "feature" if function == "NodeFeature" else "neighbour type"
            if relation := self.detour(node.args[1].value, what):
                node.args[0] = ast.Call(ast.Name("NeighbourCheck", ast.Load()), [node.args[0], ast.Constant(relation)], [])
                self.changed = True
        if function == "NodeInfo" and len(node.args) == 2:
            return self._node_info(node)
        if (function == "len" and len(node.args) == 1 and isinstance(inner := node.args[0], ast.Call)
                and isinstance(inner.func, ast.Name) and inner.func.id == "NodeInfo" and len(inner.args) == 1):
            node.args = [inner.args[0]]  # len(NodeInfo(ids)) counts characters: len(ids) counts the nodes
            self.changed = True
        return node

    def _node_info(self, node: ast.Call) -> ast.Call:
        """NodeInfo(ids, name) -> what the second argument asked for (module docstring)."""
        ids, name = node.args
        self.changed = True
        text = name.value if _is_text(name) else None
        if text is not None and text not in self.names:
            text = self._name(text)
        if text in self.neighbour_types:
            neighbours = ast.Call(ast.Name("NeighbourCheck", ast.Load()), [ids, ast.Constant(text)], [])
            return ast.Call(ast.Name("NodeInfo", ast.Load()), [neighbours], [])
        if text in self.features:
            return ast.Call(ast.Name("NodeFeature", ast.Load()), [ids, ast.Constant(text)], [])
        return ast.Call(ast.Name("NodeInfo", ast.Load()), [ids], [])

    def _is_entity(self, node: ast.AST) -> bool:
        """Whether `node` is the retrieved entity: RetrieveNode(...), or a variable bound only to it."""
        return _is_retrieval(node) or isinstance(node, ast.Name) and node.id in self.entities

    def _name(self, name: str) -> str | None:
        """The graph's name for `name`: close in spelling, else (with a matcher) in meaning."""
        return closest_name(name, self.names) or (self.matcher(name) if self.matcher else None)

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if isinstance(node.ctx, ast.Load) and node.id not in self.known:
            if match := difflib.get_close_matches(node.id, self.variables, n=1, cutoff=VARIABLE_CUTOFF):
                self.changed = True
                return ast.Name(match[0], ast.Load())
        return node


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)
