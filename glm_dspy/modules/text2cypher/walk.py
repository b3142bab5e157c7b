"""The walk: a chain query that returned no rows, or names a relationship table the graph does
not have, taken hop by hop along the relations its nodes do have (glm_dspy/modules/cypher_paths.py)."""

from __future__ import annotations

import re
from collections.abc import Collection

import numpy as np

from glm_dspy.modules.cypher_paths import Chain, Hop
from glm_dspy.modules.text2cypher.rows import _rows_text
from glm_dspy.runs.steps import Step, StepLog

NO_ROWS = "the query returned no rows: check each name, each relationship table and its direction against the schema"
UNBOUND = re.compile(r"Binder exception: Variable (\w+) is not in scope")


class Walks:
    """Text2Cypher's walk stage and the nearest relation by meaning that it and `_stand_in`
    use. Reads `graph`; fills `_relation_name_vectors` (the relations' names embedded, None until
    first used); runs queries through `execute` and `validate`."""

    def walk(self, cypher: str) -> tuple[str | None, str]:
        """For a query that returned no rows: (the query with each relationship that leads nowhere
        replaced by the one nearest it in meaning among those that leave the node where the path
        stops, or None where none does or the query is not one chain; what the path reached, for
        the repair). "Robin Hood" has no `rel_music_release_track_recording` but has its inverse.
        A hop never walks back the way the previous one came: "the other half of Isabella's
        father" written `-[:rel_spouse]->()-[:rel_parents]->` walked to `rel_parents` then
        `rel_inv_parents`, Isabella herself; now the father's `rel_spouse`. A table the graph does
        not have (`rel_darling`) leads nowhere too, and is walked the same way."""
        from glm_dspy.graphs.schema import REL_PREFIX, rel_table

        path = Chain.read(cypher)
        if path is None or self.graph.retriever.node_index is None:
            return None, NO_ROWS
        changed = False
        for hop_index, hop in enumerate(path.hops):
            reached, _ = path.prefix(hop_index + 1)
            if self._matches(reached):
                continue
            stop, variable = path.prefix(hop_index)
            target = f":{label}" if (label := path.label(hop_index + 1)) else ""
            arrow = f"-[glm_r]->(glm_x{target})" if hop.outgoing else f"<-[glm_r]-(glm_x{target})"
            rows, _ = self.execute(f"MATCH {stop} MATCH ({variable}){arrow} RETURN DISTINCT label(glm_r) AS rel "
                                   "LIMIT 200")
            leaving = {row["rel"].removeprefix(REL_PREFIX) for row in rows or []}
            if not leaving:  # the pattern up to `stop` matched something, or some relationship would leave it
                where = "has no relationship that way" if self._matches(stop) else "matches nothing"
                return None, f"the query returned no rows: {stop} {where}"
            if hop.relation.removeprefix(REL_PREFIX) in leaving:  # the hop is there, a later condition is not
                return None, NO_ROWS
            if hop_index and (back := self._back(path.hops[hop_index - 1], hop)) in leaving:
                leaving.discard(back)  # `parents` then `inv_parents` answers with where the path started
                if not leaving:
                    return None, f"the query returned no rows: the only relationship leaving {stop} leads back"
            path = path.with_relation(hop_index, rel_table(self._nearest_relation(hop.relation, leaving)[0]))
            changed = True
        if not changed:
            return None, NO_ROWS
        return path.cypher, NO_ROWS

    def _back(self, previous: Hop, hop: Hop) -> str | None:
        """The relation that, taken as `hop` right after `previous`, goes straight back: in a graph
        of triples (graphs/triples.py) `inv_r` holds `r` backwards, so `-[:r]->` then `-[:inv_r]->`
        returns to the node the path came from. None in a graph without such pairs."""
        from glm_dspy.graphs.schema import REL_PREFIX
        from glm_dspy.graphs.triples import INVERSE_PREFIX

        if previous.outgoing != hop.outgoing:
            return None
        relation = previous.relation.removeprefix(REL_PREFIX)
        inverse = relation.removeprefix(INVERSE_PREFIX) if relation.startswith(INVERSE_PREFIX) \
            else INVERSE_PREFIX + relation
        return inverse if inverse in self.graph.schema.relations else None

    def _run_walked(self, walked: str, question: str, log: StepLog) -> list[dict] | None:
        """The rows of a query written in the model's place (walked, or from the question's
        words; a "graph" step), or None where it fails or has none."""
        problem = self.validate(walked, question)
        rows, problem = self.execute(walked) if problem is None else (None, problem)
        log.add(Step("graph", code=walked, output=_rows_text(rows) if rows else "",
                     error=problem or (None if rows else "no rows either")))
        return rows or None

    @staticmethod
    def _bind_unbound(cypher: str, problem: str) -> str | None:
        """A chain whose RETURN names a variable the pattern never binds, its last node pattern
        having none (`...->(:entity) RETURN b.name`): that node bound to it; else None."""
        found = UNBOUND.search(problem)
        path = Chain.read(cypher) if found else None
        return path.bind_last(found.group(1)).cypher if path is not None and path.binds_last() is None else None

    def _matches(self, pattern: str) -> bool:
        rows, problem = self.execute(f"MATCH {pattern} RETURN 1 AS found LIMIT 1")
        return bool(rows) and problem is None

    def _nearest_relation(self, table: str, among: Collection[str] | None = None) -> tuple[str, float]:
        """(the graph's relation nearest relationship table `table` in meaning, its cosine), of
        the relations `among` where given; the relations' vectors are embedded once."""
        from glm_dspy.graphs.schema import REL_PREFIX

        relations = sorted(self.graph.schema.relations)
        if self._relation_name_vectors is None:
            self._relation_name_vectors = self._embed([r.replace("_", " ") for r in relations])
        scores = self._relation_name_vectors @ self._embed([table.removeprefix(REL_PREFIX).replace("_", " ")])[0]
        if among is not None:
            scores = np.where([r in among for r in relations], scores, -np.inf)
        best = int(np.argmax(scores))
        return relations[best], float(scores[best])
