"""The snippet executor: plain snippets work, errors come back as "<Type>: <message> (line N)",
and every hostile snippet ends as an error result while the same executor keeps working.

One module-wide executor (timeout 1 s) serves the hostile cases in order, so each case also
checks recovery after the kills and respawns of the cases before it.
"""

import json
import os
import signal
import threading
import time

import psutil
import pytest

from glm_dspy.executor import ExecResult, SnippetExecutor
from glm_dspy.executor.fence import strip_code_fence
from glm_dspy.executor.policy import guarded_getattr, guarded_getitem, guarded_write
from glm_dspy.executor.printer import OutputLimitError, PrintCollector
from glm_dspy.executor.protocol import observation_paths, restore_observations
from glm_dspy.retrieval.observation import Observation
from glm_dspy.graphs.deadline import remaining_s

TIMEOUT_S = 1.0
NEIGHBOURS = {"p1": ["a1", "a2", "a3"], "p2": ["a2", "a3", "a4"]}


def node_degree(node_id, neighbour_type="author"):
    return len(NEIGHBOURS.get(node_id, []))


def neighbour_check(node_id, neighbour_type):
    return NEIGHBOURS[node_id]


def node_info(node_ids):
    return "\n".join(f"[Node:{node_id}]" for node_id in node_ids)


def broken(node_id):
    raise ValueError(f"node {node_id!r} does not exist")


def returns_object():
    return object()


class GraphDatabaseError(Exception):
    pass


def database_down():
    raise GraphDatabaseError("connection lost")


def missing(node_id):
    return Observation(f"no node with id {node_id!r}")


FUNCTIONS = {"NodeDegree": node_degree, "NeighbourCheck": neighbour_check, "NodeInfo": node_info,
             "Broken": broken, "ReturnsObject": returns_object, "DatabaseDown": database_down,
             "Missing": missing, "Feature": lambda: "Person node x has no feature 'y'",
             "Nested": lambda: {"a": [1, Observation("gone")], "b": "kept"},
             "Huge": lambda: "x" * 2 * 2**20, "Remaining": remaining_s,
             "Types": lambda value, others=(), **kwargs: [type(v).__name__ for v in (value, *others, *kwargs.values())]}


@pytest.fixture(scope="module")
def executor():
    with SnippetExecutor(FUNCTIONS, timeout_s=TIMEOUT_S, memory_mb=256) as snippet_executor:
        yield snippet_executor


def assert_healthy(executor):
    result = executor.run("print(sum([1, 2, 3]))")
    assert (result.output, result.error) == ("6\n", None)


@pytest.mark.parametrize("code, output, num_calls", [
    ("x = 0\nfor i in range(5):\n    if i % 2:\n        x += i\n    else:\n        continue\n"
     "print(x)", "4\n", 0),
    ("print([i * i for i in range(4) if i])", "[1, 4, 9]\n", 0),
    ("common = set(NeighbourCheck('p1', 'author')) & set(NeighbourCheck('p2', 'author'))\n"
     "print(sorted(common))", "['a2', 'a3']\n", 2),
    ("a = set(NeighbourCheck('p1', 'author'))\n"
     "print(sorted(a.intersection(NeighbourCheck('p2', 'author'))))", "['a2', 'a3']\n", 2),
    ("degrees = [NodeDegree(p) for p in ['p1', 'p2', 'p3']]\nprint(sum(degrees) / len(degrees))",
     "2\n", 3),
    ("d = {'b': 2, 'a': 1}\nfor k, v in sorted(d.items(), key=lambda kv: kv[1]):\n"
     "    print(k, v)", "a 1\nb 2\n", 0),
    ("counts = {}\nfor n in ['x', 'y', 'x']:\n    counts[n] = counts.get(n, 0)\n"
     "    counts[n] += 1\nprint(counts)", "{'x': 2, 'y': 1}\n", 0),
    ("m = [[0, 0], [0, 0]]\nm[1][0] += 5\nm[0] += [7]\nprint(m)", "[[0, 0, 7], [5, 0]]\n", 0),
    ("print(NodeInfo(['a1', 'a2']))", "[Node:a1]\n[Node:a2]\n", 1),
    ("print(NodeDegree(node_id='p1', neighbour_type='author'))", "3\n", 1),
    ("def top(ids):\n    print('in top')\n    return max(ids, key=NodeDegree)\nprint(top(['p1']))",
     "in top\np1\n", 1),
    ("a, (b, c) = 1, (2, 3)\nprint(a + b + c, ', '.join(str(i) for i in range(3)), sep='|')",
     "6|0, 1, 2\n", 0),
    ("```python\nprint('fenced')\n```", "fenced\n", 0),
    ("print(sorted({'b', 'a'}), end='')\nprint(str.lower('X'), dict.fromkeys(['k']))",
     "['a', 'b']x {'k': None}\n", 0),
    ("try:\n    Broken('x')\nexcept ValueError as e:\n    print('caught', e.args[0])",
     "caught Broken: node 'x' does not exist\n", 1),
    ("print(round(2014.6, 0), 7 / 2, 6 / 2, [1.0])", "2015 3.5 3 [1.0]\n", 0),  # an integral float prints as an int
    ("", "", 0),
])
def test_normal_snippets(executor, code, output, num_calls):
    result = executor.run(code)
    assert (result.output, result.error, result.num_calls) == (output, None, num_calls)
    assert result.is_ok and result.duration_s < TIMEOUT_S


@pytest.mark.parametrize("code, error", [
    ("x = 1\nprint(y)", "NameError: name 'y' is not defined (line 2)"),
    ("x = 1\n\nz = x / 0", "ZeroDivisionError: division by zero (line 3)"),
    ("x = [1,\nprint(x)", "SyntaxError: '[' was never closed (line 1)"),
    ("if True:\nprint(1)", "SyntaxError: expected an indented block after 'if' statement on "
                           "line 1 (line 2)"),
    ("def f(n):\n    return 1 / n\nf(0)", "ZeroDivisionError: division by zero (line 2)"),
    ("print('a')\nBroken('n7')", "ValueError: Broken: node 'n7' does not exist (line 2)"),
    ("ReturnsObject()", "RuntimeError: ReturnsObject returned a value that is not JSON: "
                        "object is not JSON serializable (line 1)"),
    ("NeighbourCheck('nope', 'author')", "KeyError: \"NeighbourCheck: 'nope'\" (line 1)"),
    ("raise ValueError", "ValueError: raised without a message (line 1)"),
    ("x = 1\nDatabaseDown()", "RuntimeError: DatabaseDown: connection lost (GraphDatabaseError) "
                              "(line 2)"),
    ("Huge()", "ValueError: Huge returned 2.0 MB, more than the 1 MB one call may return; "
               "ask for less per call (line 1)"),
])
def test_error_text(executor, code, error):
    result = executor.run(code)
    assert result.error == error
    assert not result.is_ok


def test_output_before_an_error_is_kept(executor):
    result = executor.run("print('before')\n1 / 0")
    assert result.output == "before\n"
    assert result.error == "ZeroDivisionError: division by zero (line 2)"


HOSTILE = {
    # attribute and name escapes: rejected at compile time
    "mro_subclasses": ("().__class__.__mro__[1].__subclasses__()", "PolicyError"),
    "func_globals": ("f = lambda: 0\ng = f.__globals__", "PolicyError"),
    "func_code": ("def f():\n    return 1\nc = f.__code__.co_consts", "PolicyError"),
    "builtins_name": ("b = __builtins__['open']", "PolicyError"),
    "dunder_import": ("__import__('os').system('id')", "PolicyError"),
    "import_os": ("import os\nos.system('id')", "PolicyError"),
    "from_import": ("from os import system", "PolicyError"),
    "gi_frame": ("g = (i for i in [1])\nf = g.gi_frame.f_back.f_globals", "PolicyError"),
    "tb_frame": ("try:\n    1/0\nexcept Exception as e:\n    f = e.__traceback__.tb_frame",
                 "PolicyError"),
    "with_traceback": ("try:\n    1/0\nexcept Exception as e:\n    e.with_traceback(None)",
                       "PolicyError"),
    "cr_frame": ("async def f():\n    pass\nf().cr_frame", "PolicyError"),
    "format_escape": ("print('{0.__class__}'.format(1))", "PolicyError"),
    "format_map_escape": ("print('{x.__class__}'.format_map({'x': 1}))", "PolicyError"),
    "format_via_type": ("print(str.format('{0.__class__}', 1))", "PolicyError"),
    "fstring_escape": ("print(f'{(1).__class__}')", "PolicyError"),
    "mro_method": ("m = str.mro()", "PolicyError"),
    "eval": ("eval('1+1')", "PolicyError"),
    "exec": ("exec('x = 1')", "PolicyError"),
    "breakpoint": ("breakpoint()", "PolicyError"),
    "class_def": ("class A:\n    pass", "PolicyError"),
    "yield": ("def g():\n    yield 1", "PolicyError"),
    "attribute_write": ("f = lambda: 0\nf.x = 1", "PolicyError"),
    "guard_name": ("_getattr_(1, 'real')", "PolicyError"),
    "open_read": ("print(open('/etc/passwd').read())", "PolicyError"),
    "match_class_pattern": ("match 1:\n    case int(real=r):\n        pass", "PolicyError"),
    # escapes the guards stop at run time
    "builtins_item": ("k = '__' + 'builtins__'\nx = {}[k]", "KeyError"),
    "runtime_attribute": ("x = len.split", "AttributeError"),
    "exception_args_only": ("try:\n    1/0\nexcept Exception as e:\n    e.args.index(0)",
                            "ValueError"),
    # dangerous builtins that do not exist
    "getattr": ("getattr(1, 'real')", "NameError"),
    "type": ("t = type(1)", "NameError"),
    "vars": ("v = vars()", "NameError"),
    "globals": ("g = globals()", "NameError"),
    "locals": ("l = locals()", "NameError"),
    "dir": ("d = dir()", "NameError"),
    "compile": ("c = compile('1', 's', 'eval')", "NameError"),
    "open_write": ("f = open('/tmp/glm_executor_pwned', 'w')", "NameError"),
    "input": ("x = input()", "NameError"),
    "help": ("help(len)", "NameError"),
    "exit": ("exit()", "NameError"),
    "quit": ("quit()", "NameError"),
    "raise_system_exit": ("raise SystemExit(0)", "NameError"),
    "print_to_file": ("print('x', file=None)", "TypeError"),
    # values that cannot cross to the parent
    "set_argument": ("NodeDegree({'p1'})", "TypeError"),
    "function_argument": ("NodeDegree(lambda: 1)", "TypeError"),
    "huge_argument": ("NodeDegree('a' * 20 * 2**20)", "ValueError"),
    # CPU, memory, recursion and output bounds
    "while_true": ("while True:\n    pass", "TimeoutError"),
    "big_power": ("x = 10**10**8", "TimeoutError"),
    "c_level_sum": ("x = sum(range(10**12))", "TimeoutError"),
    "calls_forever": ("while True:\n    NodeDegree('p1')", "TimeoutError"),
    "deep_recursion": ("def f(n):\n    return f(n + 1)\nf(0)", "RecursionError"),
    "string_bomb": ("s = 'a' * 10**10", "MemoryError"),
    # fills 256 MB in ~0.15 s; on a heavily loaded machine the deadline may come first
    "list_growth_bomb": ("x = []\nwhile True:\n    x.append('a' * 10**6)",
                         ("MemoryError", "TimeoutError")),
    "format_spec_bomb": ("s = f'{1:>{10**10}}'", "MemoryError"),
    "print_loop": ("for i in range(10**6):\n    print(i)", "OutputLimitError"),
    "swallowed_output_limit": ("for i in range(10**4):\n    try:\n        print(i)\n"
                               "    except:\n        pass", "OutputLimitError"),
    "nested_parentheses": ("x = " + "(" * 500 + ")" * 500, "SyntaxError"),
    "long_expression": ("x = " + "+".join(["1"] * 1000), "SyntaxError"),
    "deep_unary": ("x = " + "-" * 100000 + "1", "SyntaxError"),
    "null_byte": ("x = 1\x00", "SyntaxError"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_snippet_is_an_error_and_executor_recovers(executor, name):
    code, error_types = HOSTILE[name]
    error_types = error_types if isinstance(error_types, tuple) else (error_types,)
    started = time.monotonic()
    result = executor.run(code)
    assert time.monotonic() - started < TIMEOUT_S + 1.0
    assert result.error is not None, result
    assert result.error.startswith(tuple(f"{t}: " for t in error_types)), result.error
    assert len(result.output) <= 4000
    assert_healthy(executor)
    assert not os.path.exists("/tmp/glm_executor_pwned")


def test_timeout_text_and_output_cap(executor):
    assert executor.run("while True:\n    pass").error == "TimeoutError: snippet exceeded 1.0 s"
    result = executor.run("print('x' * 5000)")
    assert result.output == "x" * 4000
    assert result.error.endswith("(line 1)")


@pytest.mark.parametrize("sig, error", [
    (signal.SIGKILL, "RuntimeError: the snippet worker was killed (out of memory, or from outside)"),
    (signal.SIGSEGV, "RuntimeError: the snippet worker died with SIGSEGV"),
    (signal.SIGXCPU, "TimeoutError: snippet exceeded its CPU-time limit"),  # the rlimit backstop
], ids=["SIGKILL", "SIGSEGV", "SIGXCPU"])
def test_worker_killed_during_a_graph_call_is_an_error_then_respawned(sig, error):
    before = {child.pid for child in psutil.Process().children()}

    def kill_worker():
        for child in psutil.Process().children():
            if child.pid not in before:
                os.kill(child.pid, sig)
        return 1

    with SnippetExecutor({"KillWorker": kill_worker}, timeout_s=TIMEOUT_S) as snippet_executor:
        result = snippet_executor.run("print('start')\nKillWorker()")
        assert (result.output, result.error, result.num_calls) == ("", error, 1)
        assert_healthy(snippet_executor)


def test_deadline_counts_time_spent_in_graph_calls():
    with SnippetExecutor({"Slow": lambda: time.sleep(0.3)}, timeout_s=TIMEOUT_S) as slow_executor:
        started = time.monotonic()
        result = slow_executor.run("for i in range(10):\n    Slow()")
        assert result.error == "TimeoutError: snippet exceeded 1.0 s"
        assert result.num_calls in (3, 4) and time.monotonic() - started < TIMEOUT_S + 2.0


def test_a_worker_that_cannot_start_is_a_clear_exception(monkeypatch):
    monkeypatch.setattr("sys.executable", "/bin/false")
    with SnippetExecutor(FUNCTIONS) as broken_executor:
        with pytest.raises(RuntimeError, match="could not start the snippet worker"):
            broken_executor.run("print(1)")


def test_concurrent_runs_share_a_pool():
    results = {}

    def run(executor, i):
        results[i] = executor.run(f"x = NodeDegree('p{i % 2 + 1}')\nprint({i}, x)")

    with SnippetExecutor(FUNCTIONS, timeout_s=5.0, num_workers=2) as snippet_executor:
        threads = [threading.Thread(target=run, args=(snippet_executor, i)) for i in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert {i: r.output for i, r in results.items()} == {i: f"{i} 3\n" for i in range(6)}


def test_close_is_idempotent_and_final():
    snippet_executor = SnippetExecutor(FUNCTIONS)
    assert snippet_executor.run("print(1)").output == "1\n"
    snippet_executor.close()
    snippet_executor.close()
    with pytest.raises(RuntimeError, match="after close"):
        snippet_executor.run("print(1)")


@pytest.mark.parametrize("obj, name", [
    ((i for i in []), "gi_frame"), (ValueError(), "with_traceback"), ("x", "format"),
    ("x", "format_map"), (str, "format"), (str, "mro"), (1, "__class__"), (len, "__self__"),
    ([].append, "__self__"), (ValueError, "args"), (PrintCollector(10), "text"),
])
def test_getattr_guard_refuses(obj, name):
    with pytest.raises(AttributeError, match="not allowed in snippets"):
        guarded_getattr(obj, name)


def test_item_and_write_guards():
    assert guarded_getitem({"a": 1}, "a") == 1
    with pytest.raises(KeyError):
        guarded_getitem({"_id": 1}, "_id")
    with pytest.raises(TypeError):
        guarded_write((1, 2))
    assert guarded_write([1]) == [1]


def test_print_collector_keeps_the_first_max_chars():
    printer = PrintCollector(5)
    printer._call_print("abc")
    with pytest.raises(OutputLimitError):
        printer._call_print("defg")
    assert (printer.text(), printer.overflowed) == ("abc\nd", True)


@pytest.mark.parametrize("code, stripped", [
    ("```python\nx = 1\n```", "x = 1"),
    ("\n```py\nx = 1\ny = 2\n```\n", "x = 1\ny = 2"),
    ("```\nx = 1", "x = 1"),
    ("    x = 1\n    y = 2\n", "x = 1\ny = 2\n"),
    ("x = '```'", "x = '```'"),
])
def test_strip_code_fence(code, stripped):
    assert strip_code_fence(code) == stripped


def test_exec_result_checks_its_fields():
    assert ExecResult(output="", error=None, duration_s=0.0, num_calls=0).is_ok
    with pytest.raises(AssertionError):
        ExecResult(output="", error="", duration_s=0.0, num_calls=0)


def test_calls_are_recorded_with_their_values(executor):
    result = executor.run("print(NodeDegree('p1', 'author'))\ntry:\n    Broken('x')\nexcept ValueError:\n"
                          "    pass\nprint(NeighbourCheck('p1', 'author'))")
    assert result.calls == (("NodeDegree", 3), ("Broken", None), ("NeighbourCheck", ["a1", "a2", "a3"]))


@pytest.mark.parametrize("code, output, is_observation_only", [
    ("print(Missing('x'))", "no node with id 'x'\n", True),
    ("print(Feature())", "Person node x has no feature 'y'\n", False),  # a value, whatever it says
    ("print(Missing('x'))\nprint(NodeDegree('p1'))", "no node with id 'x'\n3\n", False),
    ("print('name:', Missing('x'))", "name: no node with id 'x'\n", True),
    ("m = Missing('x')\nprint(f'name: {m}!')", "name: no node with id 'x'!\n", True),
    ("print([Missing('a'), Missing('b')])", "[\"no node with id 'a'\", \"no node with id 'b'\"]\n", True),
    ("v = Nested()\nprint(v['a'][1])", "gone\n", True),
    ("v = Nested()\nprint(v['b'], v['a'][0])", "kept 1\n", False),
    ("m = Missing('x')\nprint(isinstance(m, str), m.startswith('no node'), m[:2])", "True True no\n", False),
    ("print()\nprint(Missing('x'), end='')\nprint(' ')", "\nno node with id 'x' \n", True),
    ("m = Missing('x')", "", False),
    ("print(NodeDegree(Missing('x')))", "0\n", False),
    # an observation passed on reaches the function as one, so it can tell it from an id
    ("print(Types(Missing('x'), ['id', Missing('y')], k=Missing('z')))",
     "['Observation', 'str', 'Observation', 'Observation']\n", False),
    ("print(Types(f\"{Missing('x')}\"))", "['str']\n", False),
    ("a = [1]\na.append(a)\na.append(a)\nprint(a)", "[1, [...], [...]]\n", False),
])
def test_observations_keep_their_type_through_the_worker(executor, code, output, is_observation_only):
    result = executor.run(code)
    assert (result.output, result.error, result.is_observation_only) == (output, None, is_observation_only)


def test_calls_keep_the_observation_type(executor):
    result = executor.run("Missing('x')\nFeature()")
    assert [type(value) for _, value in result.calls] == [Observation, str]


@pytest.mark.parametrize("value, paths", [
    (Observation("a"), [[]]),
    (["a", Observation("b"), [Observation("c")]], [[1], [2, 0]]),
    ({"k": [1, Observation("d")], "s": "plain"}, [["k", 1]]),
    ("plain", []),
])
def test_observation_paths_round_trip(value, paths):
    assert observation_paths(value) == paths
    restored = restore_observations(json.loads(json.dumps(value)), paths)
    assert restored == value and observation_paths(restored) == paths


@pytest.mark.parametrize("value, paths", [("a", [[0]]), (["a", 1], [[1]]), ({"k": "v"}, [["j"]]), ([], [5]),
                                           (["a"], [[0, 0]]), (1, [[]])])
def test_an_observation_path_that_leads_to_no_string_is_refused(value, paths):
    with pytest.raises(ValueError, match="leads to no string"):
        restore_observations(value, paths)


def test_a_graph_call_sees_the_snippets_deadline(executor):
    result = executor.run("print(0 < Remaining() <= 1.0)")
    assert (result.output, result.error) == ("True\n", None)
    assert remaining_s() is None  # only while the call runs



def test_len_of_a_vertex_chunk_is_an_error_that_says_how_to_count(executor):
    from glm_dspy.executor.policy import VERTEX_CHUNK_OPENING
    from glm_dspy.graphs.node_info import CHUNK_OPENING

    assert VERTEX_CHUNK_OPENING == CHUNK_OPENING
    result = executor.run("print(len(NodeInfo(['a1', 'a2'])))")
    assert not result.is_ok and result.error.startswith("TypeError: len() of NodeInfo's text counts its characters")
    assert executor.run("print(len('abc'), len([1, 2]))").output == "3 2\n"
