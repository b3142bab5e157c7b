"""A generated query's path, hop by hop: where a query that returned no rows went wrong.

A small model writes the right shape of path with a wrong relationship ("the releases of
Robin_Hood 's recording" -> `-[:rel_music_release_track_recording]->`, a table the graph has
but Robin Hood has not). `Chain.read(cypher)` splits a query's one MATCH pattern into its node
and relationship patterns; `Chain.prefix(i)` is the pattern of its first `i` hops, its last node
bound to a variable, so the store can be asked how far the path reaches and which
relationships leave the node where it stops (Text2Cypher.walk). Anything beyond one plain chain
(several patterns, variable-length or multi-label relationships) reads as None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

END = "glm_end"  # the variable a prefix binds its last node to, where that node has none
_STRING = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""
NODE = re.compile(r"\((?:[^()'\"]|" + _STRING + r")*\)")
RELATIONSHIP = re.compile(r"\s*(<?-)\[\s*(\w*)\s*:\s*`?(\w+)`?\s*\](->?)\s*")
NODE_HEAD = re.compile(r"\(\s*(\w*)\s*(?::\s*`?(\w+)`?)?")
# the pattern ends at the first clause keyword outside a string ("... with Noisy Supervision'" is a name)
MATCH = re.compile(r"^\s*MATCH\s+((?:[^'\"]|" + _STRING + r")*?)(\s+(?:WHERE|RETURN|WITH|ORDER|UNWIND|OPTIONAL|MATCH)\b.*)$",
                   re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True, slots=True)
class Hop:
    relation: str  # the relationship table, as written
    outgoing: bool  # (a)-[...]->(b), else (a)<-[...]-(b)
    span: tuple[int, int]  # of the table name in the query


@dataclass(frozen=True, slots=True)
class Chain:
    cypher: str
    nodes: list[str]  # node patterns as written, one more than hops
    hops: list[Hop]
    rest: str  # what follows the pattern (WHERE ..., RETURN ...)

    @classmethod
    def read(cls, cypher: str) -> Chain | None:
        match = MATCH.match(cypher)
        if match is None:
            return None
        pattern, offset = match.group(1), match.start(1)
        nodes, hops, at = [], [], 0
        while True:
            node = NODE.match(pattern, at)
            if node is None:
                return None
            nodes.append(node.group(0))
            at = node.end()
            if at == len(pattern.rstrip()):
                break
            relationship = RELATIONSHIP.match(pattern, at)
            if relationship is None:
                return None
            left, _, table, right = relationship.groups()
            if (left == "<-") == (right == "->"):  # undirected or both ways
                return None
            hops.append(Hop(table, right == "->", (offset + relationship.start(3), offset + relationship.end(3))))
            at = relationship.end()
        return cls(cypher, nodes, hops, match.group(2)) if hops else None

    @classmethod
    def unwalked(cls, cypher: str, node: str, feature: str) -> Chain:
        """A chain of no hops yet from `node`, the node pattern `cypher` matches first, to a node
        bound to END whose `feature` it returns: for `with_hops` to fill in."""
        return cls(cypher, [node, f"({END})"], [], f" RETURN DISTINCT {END}.{feature}")

    def with_relation(self, hop: int, relation: str) -> Chain:
        """This path with hop `hop`'s relationship table replaced (the rest of the query kept)."""
        start, end = self.hops[hop].span
        return Chain.read(self.cypher[:start] + relation + self.cypher[end:])

    def binds_last(self) -> str | None:
        """The variable the last node pattern binds, or None."""
        return NODE_HEAD.match(self.nodes[-1]).group(1) or None

    def bind_last(self, variable: str) -> Chain:
        """This chain with its last node pattern, which binds none, bound to `variable`."""
        assert self.binds_last() is None and re.fullmatch(r"\w+", variable), variable
        start = self.cypher.rindex(self.nodes[-1], 0, len(self.cypher) - len(self.rest))
        return Chain.read(self.cypher[: start + 1] + variable + self.cypher[start + 1:])

    def label(self, node: int) -> str | None:
        return NODE_HEAD.match(self.nodes[node]).group(2)

    def prefix(self, hops: int) -> tuple[str, str]:
        """(the pattern of the first `hops` hops, the variable its last node is bound to)."""
        nodes = list(self.nodes[: hops + 1])
        variable = NODE_HEAD.match(nodes[-1]).group(1)
        if not variable:
            variable = END
            nodes[-1] = "(" + END + nodes[-1][1:]
        parts = [nodes[0]]
        for hop, node in zip(self.hops[:hops], nodes[1:]):
            parts.append(f"-[:{hop.relation}]->{node}" if hop.outgoing else f"<-[:{hop.relation}]-{node}")
        return "".join(parts), variable

    def with_hops(self, hops: list[tuple[str, bool, str | None]]) -> Chain | None:
        """This chain's first node, then `hops` (relationship table, outgoing, the label of the node
        it reaches or None), the last node bound to the variable the old last node binds, the rest
        of the query kept. None where that cannot keep the query's meaning: the old last node binds
        no variable or holds properties, or an inner node binds a variable the rest uses."""
        last = self.binds_last()
        inner = [NODE_HEAD.match(node).group(1) for node in self.nodes[1:-1]]
        if last is None or "{" in self.nodes[-1] or any(v and re.search(rf"\b{v}\b", self.rest) for v in inner):
            return None
        parts = [self.nodes[0]]
        for at, (table, outgoing, label) in enumerate(hops):
            node = "(" + (last if at == len(hops) - 1 else "") + (f":{label}" if label else "") + ")"
            parts.append(f"-[:{table}]->{node}" if outgoing else f"<-[:{table}]-{node}")
        return Chain.read(self.cypher[: MATCH.match(self.cypher).start(1)] + "".join(parts) + self.rest)
