"""glm_dspy/modules/meant_words.py with the real embedder: the schema names a question says in
other words, read by meaning, and the words it never reads (names, schema words, parts of a time)."""

from __future__ import annotations

import pytest

from glm_dspy.modules.embedding_cache import EmbeddingCache
from glm_dspy.modules.meant_words import meant_words, open_words, schema_names
from glm_dspy.readings.words import word_stem

NAMES = ["birth city", "birth date", "death date", "mentor", "student", "prize", "institution", "gender", "year",
         "amount", "name", "laureate", "city", "country"]


@pytest.fixture(scope="module")
def embed(embedder):
    return EmbeddingCache(lambda: embedder)


@pytest.mark.parametrize("word,says", [("trained", {"mentor"}), ("won", {"prize"}), ("woman", {"gender"}),
                                       ("affiliated", {"institution"}), ("nationality", {"country"})])
def test_a_word_says_the_schema_name_nearest_it_in_meaning(embed, word, says):
    assert set(meant_words([word], NAMES, embed)) == {word_stem(w) for w in says}  # as a question's words are read


@pytest.mark.parametrize("word", ["born", "worked", "famous"])  # two names as near, or none near
def test_a_word_near_no_one_name_says_none(embed, word):
    assert not meant_words([word], NAMES, embed)


def test_names_schema_words_and_times_are_not_read():
    words = open_words("Which laureates studied under Curie in the year Pasteur won a prize?", NAMES, {"studied"})
    assert words == ["under", "won"]  # "laureates", "year", "prize": the schema's; "Curie", "Pasteur": names; "studied": bound


def test_a_graphs_names_are_its_relations_types_and_features_in_words(nobel_graph):
    names = schema_names(nobel_graph.schema)
    assert {"birth city", "mentor", "laureate", "date awarded"} <= set(names) and len(names) == len(set(names))
