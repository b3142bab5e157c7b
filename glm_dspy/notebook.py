"""The Reason agent's notebook: retrieved facts in retrieval order.

Invariant: the notebook only grows, and its text is the blocks joined by a blank line, so
the text after n blocks is a prefix of the text after n+1 blocks. A block is a snippet's
printed output verbatim — a vertex chunk stays byte-identical to every other retrieval of
the same vertex, which is what lets its KV-cache blocks be shared across steps and queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SEPARATOR = "\n\n"


@dataclass(slots=True)
class Notebook:
    blocks: list[str] = field(default_factory=list)

    def append(self, block: str) -> None:
        block = block.strip()
        assert block, "an empty retrieval adds nothing to the notebook"
        self.blocks.append(block)

    @property
    def text(self) -> str:
        return SEPARATOR.join(self.blocks)

    def __len__(self) -> int:
        return len(self.blocks)
