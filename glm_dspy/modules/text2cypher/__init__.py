"""Text2Cypher over Kuzu, the `text2cypher` arm of `glm-dspy eval`: the question becomes one Cypher query.

Stages, in the order of the Kuzu/DSPy Text2Cypher course project this follows, each with the
file of this package that holds it; each is timed (`prediction.stages`, seconds) and leaves a step:
  cache        (module.py) an LRU of answers keyed by SHA-256 of (question, schema, LM, the
               predictors' state): a hit asks nothing
  pruning      (examples.py) the schema cut to `max_relations` relationship tables, those leaving
               the nodes the question names first, then the ones nearest it (the RetrieveNode
               embedder, on "<from> <relation> <to>"), and the node tables they join. That project
               prunes with an LLM call (52% of its latency); embeddings cost no call.
  examples     (examples.py) the `k` training questions that ask most like this one (names left
               out: `question_form`, facts.py; `choose_examples`), with their Cypher, the nearest
               last, from the database's examples file (graphs/cypher_examples.py, written by
               `glm-dspy build` for Nobel and PathQuestion from their train splits; none for other
               graphs)
  generation   (module.py) GenerateCypher (glm_dspy/signatures.py), one "cypher" step
  post-process (rewrites.py, paths.py; names.py) named passes in a stated order (`passes`); the
               step keeps the model's text (`raw`) and each pass that changed the query, with
               the query before and after it (`rewrites`). Rule-based, each but the first a pass
               over the parsed query (graphs/cypher/: one file a pass, a tree in and a tree out,
               the query printed by graphs/cypher/printer.py where it changed; a query that does
               not parse is left to validation): code fences and a trailing ';' dropped from the
               reply; every name literal
               (`{name: '...'}`, `x.title = '...'`: any node type's text feature) is held to the
               names the question mentions, not its schema words (`names_in`, `ground_names`: one
               it does not hold, often an example's, becomes the question's name most like it),
               then becomes a stored
               name: the one equal to it but for case, else that of the node RetrieveNode finds;
               a node pattern whose name is another node type's takes that type's label; a
               relationship table the graph does not have becomes the one nearest it in meaning;
               a chain that returns the name its first node is matched by, or asks it for the
               relation its one hop takes as a property (`a.place_of_birth`), returns its last
               node's; a chain from a named node (or a named node asked for a relation as a
               property) whose relations are not the ones the question's words spell, in path
               order, is rebuilt from the words where that returns rows
               (`_spelled_path`, glm_dspy/modules/relation_words.py: the words are learned from
               the examples, and used only where they give back the bank's own paths); a query
               that returns a count where the question asks "which", or names where it asks "how
               many", returns the other, of the node whose type the question names (`answer_kind`);
               a relation taken more often in a row than the question names it, as often as
               named (`_repeated_hops`, where the relation words are not usable); a relation
               read as a nested property (`RETURN c.author.name`), the hop (`nested_property`)
  validation   (validation.py) the read-only gate on the query's parse (graphs/cypher: one reading
               statement, allow-listed functions; a refusal names the clause) and Kuzu's EXPLAIN
               of the gate's printed text, nothing else, a "graph" step; then the query's plan
               is type-checked against the schema (graphs/cypher/typecheck.py): a hop the node it
               stands on does not have, or a property its type lacks, is an error (walked, then
               repaired), never 0 rows read as an answer or a count of 0
  execution    (validation.py) the gate's printed text only (`GraphStore.read`): a fresh
               connection, the query timeout cut to the question's deadline, rows and bytes
               capped while fetched (the step says where it stopped), a "graph" step
  walk         (walk.py) an empty result of one chain pattern, or a relationship table the graph
               does not have: hop by hop, a relationship the node where the path stops lacks
               becomes the one nearest it in meaning that leaves that node, never the inverse of
               the hop just taken (that goes back to where the path was) (`walk`,
               glm_dspy/modules/cypher_paths.py); the walked query is run, a "graph" step
  words        (paths.py) a query that cannot run (an EXPLAIN error), where the graph's relation
               words are usable: the chain they spell from the one node the question names
               (`_from_words`), run before any repair, a "graph" step
  answer type  (answer_type.py) rows of another kind than the question asks (dates or numbers for
               who/where/which, names for when, whole nodes) are an error for the repair
  repair       (module.py) a refused clause, an EXPLAIN error, a type error, an empty result or
               rows of the wrong kind go back to
               generation with the error, at most `max_repairs` (3) times; a repair that repeats
               the failed query ends the query there (the same prompt would repeat it again)
  answer       (module.py, rows.py) one column: its distinct values joined ", " (no LLM call, as
               GLM's deterministic path); more columns: AnswerFromRows, an "answer" step
No write, file access or setting can reach Kuzu: what runs is printed from a tree that has no
node for any clause but the reading ones, and the database is opened read-only underneath
(graphs/store.py). One deadline (`question_timeout_s`) bounds all of a question's stages.

The other files: facts.py reads the question's English (its names, its form, whether it asks a
count, the node type it asks about); no file here reads a query's text: it is parsed
(graphs/cypher/parser.py) and read as its tree. `Text2Cypher`
(module.py) inherits one mixin a stage file: Examples, Names, Rewrites, Paths, Walks, Validation.
"""

from glm_dspy.modules.text2cypher.examples import ORDER_WEIGHT, default_examples_path, query_shape
from glm_dspy.modules.text2cypher.facts import question_form, question_names
from glm_dspy.modules.text2cypher.module import (DEFAULT_K, DEFAULT_MAX_RELATIONS, DEFAULT_MAX_REPAIRS,
                                                 DEFAULT_QUESTION_TIMEOUT_S, Text2Cypher)
from glm_dspy.modules.text2cypher.names import ground_names, named_nodes
from glm_dspy.modules.text2cypher.rows import MAX_ROWS, _value_text
from glm_dspy.modules.text2cypher.validation import read_only_problem

__all__ = ["Text2Cypher", "read_only_problem", "question_form", "question_names", "ground_names", "named_nodes",
           "default_examples_path", "ORDER_WEIGHT", "query_shape", "MAX_ROWS", "DEFAULT_K",
           "DEFAULT_MAX_RELATIONS", "DEFAULT_MAX_REPAIRS", "DEFAULT_QUESTION_TIMEOUT_S", "_value_text"]
