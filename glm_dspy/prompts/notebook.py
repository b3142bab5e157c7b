"""The Reason agent's notebook: retrieved facts in retrieval order.

Invariant: the notebook only grows, and its text is the blocks joined by a blank line, so
the text after n blocks is a prefix of the text after n+1 blocks. A block says what was
asked and what came back (`retrieval_block`); a vertex chunk names its own node, so it goes
in verbatim, byte-identical to every other retrieval of the same vertex, which is what lets
its KV-cache blocks be shared across steps and queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from glm_dspy.graphs.node_info import CHUNK_OPENING

SEPARATOR = "\n\n"


def retrieval_block(request: str, output: str) -> str:
    """The notebook block for a snippet that printed `output` for `request`.

        death date of Niels Bohr -> 1962-11-18           a value: the request names it
        [Node:l27 {...}] [neighbours:...]                 a vertex chunk: verbatim

    A bare value ("1962-11-18") says nothing about which entity or feature it belongs to, and
    the small model then asked for it again; the label lets Reason accept it at once. A chunk
    names its node itself; labelling it too (a trailing "(asked: ...)" line) made the 0.5B
    model answer chunk questions worse and copy its demos' requests (a Nobel eval, f22a301).
    """
    request, output = " ".join(request.split()), output.strip()
    assert request and output, "a block needs both what was asked and what came back"
    if output.startswith(CHUNK_OPENING):
        return output
    return f"{request} -> {output}" if "\n" not in output else f"{request} ->\n{output}"


@dataclass(slots=True)
class Notebook:
    """Blocks in retrieval order; `outputs` holds every output added, so the same retrieval
    (the same chunk asked for in other words) goes in once."""

    blocks: list[str] = field(default_factory=list)
    outputs: set[str] = field(default_factory=set)

    def add(self, request: str, output: str) -> bool:
        """Add what `request` retrieved (`retrieval_block`); False if that output is already in."""
        output = output.strip()
        if output in self.outputs:
            return False
        self.outputs.add(output)
        self.blocks.append(retrieval_block(request, output))
        return True

    def append(self, block: str) -> None:
        """Add a block as it is (a note, or a block built elsewhere)."""
        block = block.strip()
        assert block, "an empty retrieval adds nothing to the notebook"
        self.blocks.append(block)

    @property
    def retrieved_text(self) -> str:
        """What the graph returned, without the requests (what an answer may be grounded in)."""
        return "\n".join(sorted(self.outputs))

    @property
    def text(self) -> str:
        return SEPARATOR.join(self.blocks)

    def __len__(self) -> int:
        return len(self.blocks)
