"""How a graph function reads its arguments, and what it answers when they are not what it takes.

Every graph function but RetrieveNode takes one id or a list of ids (glm_dspy/retrieval/retriever.py).
`read_ids` turns that argument into the items a function answers for, in order: each item is
an id to look up (a str) or the `Observation` that stands in the result where that item's
answer would be. An item is an observation when it is one already (an earlier call's message
passed on: it travels on unchanged, so the first problem reaches the final print) or when it
is no id (a number, a dict, a vertex chunk). An argument that holds no ids at all (a dict, a
number, a list of lists, an earlier call's message in place of the whole argument) is one
Observation for the whole call, which says what was passed and what to pass instead.

Every message quotes a passed value through `shown` (a short repr), never in full.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from glm_dspy.retrieval.observation import Observation
from glm_dspy.graphs.node_info import CHUNK_OPENING

MAX_SHOWN_CHARS = 60  # of an argument quoted back in an observation
MAX_NAMES_SHOWN = 24  # valid names listed in an observation; a larger schema's nearest ones (PQL: 726 relations)
ID_SOURCES = "ids come from RetrieveNode(text) or NeighbourCheck(ids, neighbour_type)"
COUNTING = ("over a list, sum(NodeDegree(ids, t)) counts with repeats and "
            "len(NeighbourCheck(ids, t)) counts distinct neighbours")


def shown(value: Any) -> str:
    """`value`'s repr for an observation, cut after MAX_SHOWN_CHARS characters (a str's own)."""
    if isinstance(value, str):
        value = str(value)  # an Observation's repr is a plain str's
        return repr(value) if len(value) <= MAX_SHOWN_CHARS else repr(value[:MAX_SHOWN_CHARS]) + "..."
    text = f"{value!r:.{MAX_SHOWN_CHARS + 1}}"
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + "..."


def closest_name(name: str, valid: list[str]) -> str | None:
    """The valid name `name` most likely meant ('prizes', 'Prize', 'birth city' -> ...), or None."""
    if len(name) > 2 * max(map(len, valid), default=0):
        return None  # difflib's ratio is at most 2 * len(valid name) / (sum of lengths): never the cutoff
    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    if key in valid:
        return key
    matches = difflib.get_close_matches(key, valid, n=1, cutoff=0.75)
    return matches[0] if matches else None


def names_shown(name: str, valid: list[str]) -> str:
    """`valid` as an observation lists it: whole, or on a large schema the MAX_NAMES_SHOWN most
    like `name` (by spelling) and how many more there are."""
    if len(valid) <= MAX_NAMES_SHOWN:
        return str(valid)
    key = name.strip().lower().replace(" ", "_")
    nearest = sorted(valid, key=lambda v: -difflib.SequenceMatcher(None, key, v).ratio())[:MAX_NAMES_SHOWN]
    return f"{sorted(nearest)} and {len(valid) - MAX_NAMES_SHOWN} more"


@dataclass(slots=True)
class IdArgs:
    """A function's ids argument: `items` in the argument's order; `is_list`: it was a list."""

    items: list[str | Observation]  # an id to look up, or that item's answer
    is_list: bool

    def __post_init__(self) -> None:
        assert self.is_list or len(self.items) == 1, self


def _what(value: Any) -> str:
    if type(value) in (list, tuple):
        return f"a list {shown(value)}"
    return f"{type(value).__name__} {shown(value)}"


def _chunk_item(function: str, text: str, is_id: Callable[[str], bool]) -> Observation:
    head = text[len(CHUNK_OPENING):].split(" ", 1)[0].split("\n", 1)[0]
    its_id = f"; its node's id is {shown(head)}" if head and is_id(head) else ""
    return Observation(f"{function} got NodeInfo's text (a vertex chunk {shown(text)}), not an id{its_id}; "
                       "use RetrieveNode(...) or NeighbourCheck(...) to get ids")


def _item(function: str, value: Any, is_id: Callable[[str], bool]) -> str | Observation:
    if isinstance(value, Observation):
        return value
    if isinstance(value, str):
        return _chunk_item(function, value, is_id) if value.startswith(CHUNK_OPENING) else value
    return Observation(f"{function} got {_what(value)}, not an id; {ID_SOURCES}")


def read_ids(function: str, ids: Any, max_ids: int, is_id: Callable[[str], bool]) -> IdArgs | Observation:
    """`ids` (one id or a list of ids) as `IdArgs`, or one Observation for the whole call.
    `is_id(text)`: whether a node has that id. ValueError past `max_ids` ids."""
    if isinstance(ids, Observation):
        return Observation(f"{function} got no ids: its argument is an earlier call's message: {ids}")
    if type(ids) not in (list, tuple):
        if isinstance(ids, str):
            return IdArgs([_item(function, ids, is_id)], is_list=False)
        hint = " (pass list(d) for its keys)" if isinstance(ids, dict) else ""
        return Observation(f"{function} needs an id or a list of ids, got {_what(ids)}{hint}; {ID_SOURCES}")
    if len(ids) > max_ids:
        raise ValueError(f"at most {max_ids} ids per call, got {len(ids)}; pass a slice "
                         f"such as ids[:{max_ids}], or loop over slices of {max_ids}")
    if any(type(i) in (list, tuple) for i in ids):
        return Observation(f"{function} got a list of lists {shown(ids)}; flatten it: "
                           f"[i for ids in lists for i in ids] (NeighbourCheck(ids, t) already "
                           "returns one flat list)")
    return IdArgs([_item(function, i, is_id) for i in ids], is_list=True)


def name_problem(function: str, name: Any, what: str) -> Observation | None:
    """An Observation if `name` (a feature or neighbour type, `what`) is no string."""
    if isinstance(name, str) and not isinstance(name, Observation):
        return None
    return Observation(f"{function} needs a {what} name (a string), got {_what(name)}")
