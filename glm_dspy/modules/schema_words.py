"""The words of a graph's schema that ranking a question's readings weighs (read once per graph):
the stems of its relation, type and feature names; those that only relations say; the names of
the features that hold a time; the relations a backward hop over which its type names; and the
name a relation goes by the other way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from glm_dspy.graphs.cypher.anchors import FUNCTION_WORDS
from glm_dspy.graphs.triples import INVERSE_PREFIX
from glm_dspy.modules.meant_words import schema_names
from glm_dspy.readings.words import word_stem
from glm_dspy.modules.reading_fit import named_back

_INVERSE_WORD = word_stem(INVERSE_PREFIX.rstrip("_"))


class SchemaWords:
    """`timed(type, feature)`: whether a feature holds a time; `inverses`: the edge sets that are
    exactly another's reversed (graphs/cypher/walk.py `inverse_relations`)."""

    def __init__(self, schema, timed: Callable[[str, str], str | None], inverses: dict):
        self.schema, self._timed, self._inverses = schema, timed, inverses

    @functools.cached_property
    def names(self) -> list[str]:
        """The schema's names in words (glm_dspy/modules/meant_words.py `schema_names`)."""
        return schema_names(self.schema)

    @functools.cached_property
    def stems(self) -> frozenset[str]:
        """The stems of the words of the graph's relation, node type and feature names, but
        function words ("of", "in")."""
        schema = self.schema
        names = [*schema.relations, *schema.node_types, *(f for t in schema.node_types.values() for f in t.features)]
        return frozenset({word_stem(w) for name in names for w in name.lower().split("_")
                          if w and w not in FUNCTION_WORDS and not w.isdigit()} - {_INVERSE_WORD})

    @functools.cached_property
    def relation_only(self) -> frozenset[str]:
        """The stems of the words of relation names that name no node type nor feature: a
        reading's `repeated` counts how often the question says them."""
        schema = self.schema
        others = {word_stem(w) for name in [*schema.node_types, *(f for t in schema.node_types.values()
                                                                  for f in t.features)] for w in name.split("_")}
        return frozenset({word_stem(w) for name in schema.relations for w in name.lower().split("_")
                          if w and w not in FUNCTION_WORDS} - others - {_INVERSE_WORD})

    @functools.cached_property
    def named_back(self) -> frozenset[str]:
        """The relations a backward hop over which is named by its type
        (glm_dspy/modules/reading_fit.py `named_back`)."""
        return named_back(self.schema)

    @functools.cached_property
    def time_names(self) -> frozenset[str]:
        """The names, in words, of the features that hold a time."""
        return frozenset(f.replace("_", " ") for t, node_type in self.schema.node_types.items()
                         for f in node_type.features if self._timed(t, f))

    @functools.cached_property
    def inverse_names(self) -> dict[str, str]:
        """relation -> the name the graph stores it under the other way (the edge sets exactly
        another's reversed, which no path takes): a hop backwards over mentor is a student hop.
        Not a triples graph's written inverses (`inv_r`), nor a name that is the node type the
        hop reaches (institution -> laureate): they say no more."""
        types = self.schema.node_types
        return {kept[0]: skipped[0] for skipped, kept in self._inverses.items()
                if not skipped[0].startswith(INVERSE_PREFIX) and skipped[0] not in types}


__all__ = ["SchemaWords"]
