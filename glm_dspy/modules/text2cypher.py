"""Text2Cypher over Kuzu (seed 003), the `text2cypher` arm of `glm-dspy eval`: the question becomes one Cypher query.

Stages, in the seed's order; each is timed (`prediction.stages`, seconds) and leaves a step:
  cache        an LRU of answers keyed by SHA-256 of (question, schema, LM, the predictors' state):
               a hit asks nothing
  pruning      the schema cut to `max_relations` relationship tables, those leaving the nodes the
               question names first, then the ones nearest it (the RetrieveNode embedder, on
               "<from> <relation> <to>"), and the node tables they join. The seed prunes with an
               LLM call (52% of its latency); embeddings cost no call.
  examples     the `k` training questions that ask most like this one (names left out:
               `question_form`; `choose_examples`), with their Cypher, the nearest last, from the
               database's examples file (graphs/cypher_examples.py, written by `glm-dspy build` for
               Nobel and PathQuestion from their train splits; none for other graphs)
  generation   GenerateCypher (glm_dspy/signatures.py), one "cypher" step
  post-process rule-based: code fences and a trailing ';' dropped; every name literal
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
               many", returns the other, of the node whose type the question names (`_answer_kind`);
               a relation taken more often in a row than the question names it, as often as
               named (`_repeated_hops`, where the relation words are not usable); a relation
               read as a nested property (`RETURN c.author.name`), the hop (`_nested_property`)
  validation   a read-only gate (one statement; no write, schema or admin clause outside string
               literals) and Kuzu's EXPLAIN, a "graph" step
  execution    on the read-only database under the store's query timeout, a "graph" step
  walk         an empty result of one chain pattern, or a relationship table the graph does not
               have: hop by hop, a relationship the node where the path stops lacks becomes the
               one nearest it in meaning that leaves that node, never the inverse of the hop just
               taken (that goes back to where the path was) (`walk`,
               glm_dspy/modules/cypher_paths.py); the walked query is run, a "graph" step
  words        a query that cannot run (an EXPLAIN error), where the graph's relation words are
               usable: the chain they spell from the one node the question names (`_from_words`),
               run before any repair, a "graph" step
  repair       a refused clause, an EXPLAIN error or an empty result goes back to generation with
               the error, at most `max_repairs` (3) times; a repair that repeats the failed query
               ends the query there (the same prompt would repeat it again)
  answer       one column: its distinct values joined ", " (no LLM call, as GLM's deterministic
               path); more columns: AnswerFromRows, an "answer" step
No write can reach the graph: the gate refuses it before Kuzu sees it, and the database is
opened read-only (graphs/store.py) underneath.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Collection
from difflib import SequenceMatcher
from pathlib import Path

import dspy
import numpy as np

from glm_dspy.adapter import GLMAdapter
from glm_dspy.modules.calls import call_agent
from glm_dspy.modules.cypher_paths import END, NODE_HEAD, Chain, Hop
from glm_dspy.modules.relation_words import RelationWords, chain_relations, spells, start_name
from glm_dspy.signatures import AnswerFromRows, GenerateCypher
from glm_dspy.steps import CODE_ERROR, RETRIEVAL_ERROR, TIME_LIMIT, UNEXPECTED_OUTPUT, Step, StepLog
from graphs.cypher import CypherSyntaxError, QueryRefused, gate
from graphs.deadline import DeadlinePassed, deadline, remaining_s
from graphs.store import ReadResult

DEFAULT_K = 3
DEFAULT_MAX_RELATIONS = 8
OWN_RELATION_BONUS = 1.0  # added to the cosine of a relation a named node has: those come first
DEFAULT_MAX_REPAIRS = 3
DEFAULT_QUESTION_TIMEOUT_S = 120.0  # one question's deadline over all its stages
MAX_ROWS = 50  # rows shown to AnswerFromRows or joined into an answer
STRING_LITERAL = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
# clauses that write, change the schema, or reach outside the query; refused outside string literals
NAME_LITERAL = r"(\b{f}\s*:\s*|\.{f}\s*=\s*)'((?:[^'\\]|\\.)*)'"  # f: a text feature (name, title)
NO_ROWS = "the query returned no rows: check each name, each relationship table and its direction against the schema"
UNBOUND = re.compile(r"Binder exception: Variable (\w+) is not in scope")
LONE_NODE = re.compile(r"^\s*MATCH\s+(\((?:[^()'\"]|'(?:[^'\\]|\\.)*')*\))\s+RETURN\s+(DISTINCT\s+)?(\w+)\.(\w+)\s*$",
                       re.IGNORECASE)
OWN_RETURN = re.compile(r"^\s*(?:WHERE\s+\w+\s*<>\s*\w+\s+)?RETURN\s+(DISTINCT\s+)?(\w+)\.(\w+)\s*$", re.IGNORECASE)
RETURN_ONE = re.compile(r"^\s*RETURN\s+(DISTINCT\s+)?(\w+)\.(\w+)\s*$", re.IGNORECASE)
UNKNOWN_TABLE = re.compile(r"Binder exception: Table rel_\w+ does not exist")
# a question with none of these words asks for the things, not how many; one that starts with
# ASKS_COUNT asks how many
COUNT_WORDS = re.compile(r"\b(?:how many|number|count|counts|counted|total|how often|most|least|fewest)\b",
                         re.IGNORECASE)
# "Which Nobel Prizes ...", "In which cities ...", "How many laureates ...", "What is the country ...": the
# ASKED_WORDS words after them may name the type the question asks about; "Who received the Nobel Prize
# in Physics 1977?" names a prize, but asks for a person
ASKING = re.compile(r"^\W*(?:(?:in|at|for|from|on|to|of|by|with)\s+)?(?:which|what|how many)\b", re.IGNORECASE)
ASKED_WORDS = 3
ASKS_COUNT = re.compile(r"^\W*(?:how many|what is the number of|what was the number of)\b", re.IGNORECASE)
# the query's last clause returns one count and nothing after it: `RETURN count(DISTINCT s)`, `... AS n`
RETURN_COUNT = re.compile(r"\bRETURN\s+count\s*\(\s*(DISTINCT\s+)?(\w+)(?:\.(\w+))?\s*\)(?:\s+AS\s+\w+)?\s*$",
                          re.IGNORECASE)
# ... returns a relation of a node as if it were a property, and a feature of that: `RETURN c.author.name`
NESTED_RETURN = re.compile(r"\bRETURN\s+(DISTINCT\s+)?(\w+)\.(\w+)\.(\w+)\s*$", re.IGNORECASE)
NESTED = "glm_nested"  # the variable the node a nested property reaches is bound to
# ... returns one node's one feature and nothing after it: `RETURN DISTINCT s.name`
RETURN_FEATURE = re.compile(r"\bRETURN\s+(DISTINCT\s+)?(\w+)\.(\w+)(?:\s+AS\s+\w+)?\s*$", re.IGNORECASE)
FENCE = re.compile(r"^```(?:cypher)?\s*|\s*```$", re.IGNORECASE)


# a relationship pattern's table: `[:rel_x`, `[r:rel_x`, `[r: `rel_x``
RELATIONSHIP_LABEL = re.compile(r"(\[\s*\w*\s*:\s*)`?(\w+)`?")
NODE_LABEL = re.compile(r"\(\s*(\w+)\s*:\s*`?(\w+)`?")
LITERAL_OR_PROPERTY = re.compile(f"({STRING_LITERAL.pattern})|" + r"\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)\b")  # `b.year`
# how near in meaning (cosine of the RetrieveNode embedder) a relation the graph has must be to one
# it does not, to stand in for it: "husband" -> spouse 0.87, "parent" -> parents 0.82; "other half"
# is 0.25 from everything and goes to repair instead
RELATION_LIKENESS = 0.5
QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|(?<!\w)'[^']{3,}'(?!\w)")  # not the ' of d'Abancour, I'm
NUMBER = re.compile(r"(?<![\w.,-])\d+(?![\w.,-])")  # "in 2024", not "1899-05-08", "2nd" or "v1.2"
POSSESSOR_WORDS = 5  # the longest run of lower-case words before "'s" tried as a name
SHARED_NAMES = 20  # a phrase this many stored names share, none of them equal to it, names a kind ("Nobel Prizes")
TIE_WEIGHT = 0.1  # of the whole question's similarity, next to its form's
MAX_SPELLED_HOPS = 3  # the longest chain rebuilt from the question's relation words
MAX_SPELLED_READINGS = 12  # of a question whose words may stand for several relations, the chains run
EXAMPLE_CANDIDATES = 32  # the examples nearest in meaning, reordered by word order (`choose_examples`)
ORDER_WEIGHT = 0.6  # of the forms' word-order likeness (difflib ratio), next to their cosine, where asked


def _word_stem(word: str) -> str:
    """A plural's singular, for matching a relation's name ("mentors" -> mentor, "cities" -> city)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def question_form(question: str) -> str:
    """The question with its names left out: quoted titles, words_with_underscores (PathQuestion's
    entities) and capitalised words after the first; what examples are matched on."""
    words = QUOTED.sub(" ", question).split()
    kept = [w for i, w in enumerate(words) if "_" not in w and not (i > 0 and w[:1].isupper())]
    return " ".join(kept) or question


# the words a run of capitalised words may hold ("Nobel Prize in Physics", "Ludwig van Beethoven")
NAME_CONNECTORS = frozenset({"of", "in", "or", "de", "del", "della", "di", "da", "du", "des", "la", "le", "von", "van",
                             "der", "den", "ter", "y", "al", "el", "bin", "ibn", "the", "for", "on"})
INITIALS = re.compile(r"(?:[A-Z]\.)+|[JS]r\.")  # "R.", "J.G.", "C.T.R.", "Jr." of a name
NAME_WORD = re.compile(r"[^\W_][\w.'’&-]*", re.UNICODE)
QUESTION_WORDS = frozenset({"what", "which", "who", "whom", "whose", "when", "where", "why", "how", "in", "of",
                            "did", "does", "do", "is", "was", "were", "are", "has", "have", "had", "name", "list",
                            "give", "tell", "find", "show", "for", "on", "at", "to", "from", "by", "with", "among"})


def question_names(question: str) -> list[str]:
    """The names a question mentions, in order: quoted titles, words_with_underscores (PathQuestion's
    entities, underscores as spaces) and runs of capitalised words ("Marie Curie", "Nobel Prize in
    Physics"; a question word opening the question is not a name). What `ground_names` holds a
    query's name literals to."""
    names = [match.group(0)[1:-1].strip() for match in QUOTED.finditer(question)]
    rest = QUOTED.sub(" . ", question)
    for word in rest.split():
        if "_" in word:
            names.append(word.strip("?,.;:!()'\"").replace("_", " ").strip())
    run: list[str] = []

    def close() -> None:
        while run and run[-1].lower() in NAME_CONNECTORS:
            run.pop()
        if run:
            names.append(" ".join(run))
        run.clear()

    first = True
    for token in re.split(r"(\s+|[?,;:!()])", QUOTED.sub(" , ", rest)):
        if not token or token.isspace():
            continue
        word = token.removesuffix("'s").removesuffix("’s")
        word = word if INITIALS.fullmatch(word) else word.rstrip(".")  # "John R. Vane": R. is no sentence's end
        if not NAME_WORD.fullmatch(token) or "_" in token:
            close()
        elif (word[:1].isupper() and not (first and word.lower() in QUESTION_WORDS)
              or run and word.isdigit()):  # "Nobel Prize in Physics 1903"
            run.append(word)
            if token.rstrip(".").endswith(("'s", "’s")):  # a possessive ends the name
                close()
        elif run and word in NAME_CONNECTORS:
            run.append(word)
        else:
            close()
        first = False
    close()
    return [name for name in dict.fromkeys(names) if len(name) >= 2]


def named_nodes(graph, text: str) -> list[str]:
    """The ids of the nodes `text` names (`question_names` whose RetrieveNode match has that very
    name, but for case and underscores), in order; [] without a node index."""
    retriever = graph.retriever
    if retriever.node_index is None:
        return []
    found = []
    for name in question_names(text):
        node_id = retriever.retrieve_node(name)
        if isinstance(node_id, str) and _folded(retriever.label(node_id) or "") == _folded(name):
            found.append(node_id)
    return list(dict.fromkeys(found))


def _folded(text: str) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", text.lower()).split())


def ground_names(literals: list[str], question: str, names: list[str] | None = None,
                 relation_words: Collection[str] = ()) -> list[str]:
    """Each name literal a query holds, held to the names its question mentions (`question_names`).

    A small model often copies an example's name instead of the question's ("Agnieszka Nelson" for
    "Agnieszka Phillips", the example's author), or writes one the question does not say ("Fatima
    A. Clark" for "Fatima Clark", another author). A literal the question holds (case, underscores
    and punctuation aside) stays; any other becomes the question's name most like it, one the
    query's other literals do not already name first. Where the question mentions no name, every
    literal stays. `names`: the question's names where the caller knows them better
    (`Text2Cypher.names_in`). `relation_words`: the question's words that spell a relation of the
    graph (`place_of_birth`); a literal that is one of them is not a name the question holds, even
    where a node is so named (PQL's 'Place of birth' took the place of 'Gianfranco Parolini')."""
    names = question_names(question) if names is None else names
    if not names:
        return list(literals)
    text = f" {_folded(question)} "
    not_names = {_folded(word) for word in relation_words} - {_folded(name) for name in names}
    used = {name for name in names for literal in literals if _folded(literal) == _folded(name)}
    grounded = []
    for literal in literals:
        if f" {_folded(literal)} " in text and _folded(literal) not in not_names:
            grounded.append(literal)
            continue
        free = [name for name in names if name not in used] or names
        best = max(free, key=lambda name: _likeness(literal, name))
        used.add(best)
        grounded.append(best)
    return grounded


def _likeness(a: str, b: str) -> tuple[int, float]:
    """(words shared, character similarity) of two names, case aside."""
    from difflib import SequenceMatcher

    a, b = _folded(a), _folded(b)
    return len(set(a.split()) & set(b.split())), SequenceMatcher(None, a, b).ratio()


def default_examples_path(graph) -> Path | None:
    """The graph's example queries: its database's own file (glm-dspy build writes it from a train
    split), else the dataset's shipped one; None where neither exists (graphs/cypher_examples.py)."""
    from graphs.cypher_examples import FILE_NAME, examples_path

    own = Path(graph.store.db_dir) / FILE_NAME
    if own.is_file():
        return own
    try:
        shipped = examples_path(graph.schema.name)
    except FileNotFoundError:  # no data folder (GLM_DATA_DIR points nowhere): no shipped examples
        return None
    return shipped if shipped.is_file() else None


def read_only_problem(cypher: str) -> str | None:
    """Why `cypher` may not run for a question (graphs/cypher/gate.py decides on its parse: one
    reading statement, allow-listed functions), or None."""
    try:
        gate(cypher)
    except (QueryRefused, CypherSyntaxError) as error:
        return str(error)
    return None


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'")


def _unescape(literal: str) -> str:
    return literal.replace("\\'", "'").replace("\\\\", "\\")


class Text2Cypher(dspy.Module):
    def __init__(self, graph, *, examples: Path | str | None = "default", k: int = DEFAULT_K,
                 max_relations: int = DEFAULT_MAX_RELATIONS, max_repairs: int = DEFAULT_MAX_REPAIRS,
                 cache_size: int = 256, max_tokens: int = 256, ground: bool = True,
                 order_weight: float = 0.0, distinct_shapes: bool = False, hold_out_own: bool = False,
                 hold_out_family: bool = False, spelled_paths: bool = True,
                 question_timeout_s: float = DEFAULT_QUESTION_TIMEOUT_S):
        """`examples`: a JSON Lines file of {"question", "cypher"}; "default" the dataset's own
        (graphs/cypher_examples.py), None none. `ground`: hold the query's name literals to the
        names the question mentions (`ground_names`). `order_weight` (e.g. ORDER_WEIGHT),
        `distinct_shapes`: how the `k` examples are chosen (`choose_examples`); off by default:
        one example per shape cost Nobel 0.976 -> 0.570 EM (docs/benchmarks.md).
        `hold_out_own`: show no example that names one of the question's own names. The bank is
        the train split, so a training question would see its own query (and its rewordings');
        an optimizer (optimize/compile.py) must see the program as a dev question does.
        `hold_out_family`: a question that is in the bank is shown no example of its own template
        family (the bank's "family"), as a question of a shape the bank does not hold would be
        (graphs/unseen_shapes.py); `optimize.compile --new-shapes` trains on that.
        `spelled_paths`: rebuild a chain the question's relation words spell otherwise
        (`_spelled_path`), where the bank shows the graph's questions spell their paths.
        `question_timeout_s`: one deadline over all of a question's stages (`forward`)."""
        super().__init__()
        assert k >= 0 and max_relations >= 1 and max_repairs >= 0 and cache_size >= 0
        assert question_timeout_s > 0, question_timeout_s
        self.question_timeout_s = question_timeout_s
        self.graph, self.k, self.max_relations, self.max_repairs = graph, k, max_relations, max_repairs
        self.generate = dspy.Predict(GenerateCypher, max_tokens=max_tokens)
        self.answer_from_rows = dspy.Predict(AnswerFromRows, max_tokens=128)
        self.adapter = GLMAdapter()
        self.cache_size = cache_size
        self.ground = ground
        self.order_weight, self.distinct_shapes = order_weight, distinct_shapes
        self.hold_out_own, self.hold_out_family = hold_out_own, hold_out_family
        self._schema_text = graph.schema.summary()  # part of every answer-cache key
        self._cache: OrderedDict[str, dict] = OrderedDict()
        self._cache_lock = _CopyableLock()
        self.cache_hits = self.cache_misses = 0
        self.examples = self._read_examples(examples)
        self.relation_words = RelationWords.learn(self.examples, graph.schema.relations) \
            if spelled_paths and self.examples else None
        text_features = sorted({t.text_feature for t in graph.schema.node_types.values() if t.text_feature})
        self._text_features = frozenset(text_features)
        self._name_literal = re.compile(NAME_LITERAL.format(f="(?:" + "|".join(map(re.escape, text_features)) + ")")
                                        if text_features else r"(?!x)x")
        self._node_pattern = re.compile(r"\((\w*)\s*:\s*`?(\w+)`?\s*\{\s*(" + "|".join(map(re.escape, text_features))
                                        + r")\s*:\s*'((?:[^'\\]|\\.)*)'\s*\}\)" if text_features else r"(?!x)x")
        self._example_vectors = self._example_forms = self._example_shapes = self._example_names = None
        self._relation_vectors = None
        self._relation_name_vectors = None
        self._kinds: dict[str, bool] = {}  # `_kind`'s answers, by name

    # ---- set-up ----------------------------------------------------------------------------
    def _read_examples(self, examples) -> list[dict]:
        if examples is None:
            return []
        if str(examples) == "default":
            path = default_examples_path(self.graph)
            if path is None:
                return []
        else:
            path = Path(examples)
            if not path.is_file():
                raise FileNotFoundError(f"{path}: no Text2Cypher examples file (JSON Lines of "
                                        "{\"question\", \"cypher\"}; python -m graphs.cypher_examples)")
        found = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                found.append({"question": str(record["question"]), "cypher": str(record["cypher"]),
                              "family": str(record.get("family") or "")})
            except (ValueError, KeyError, TypeError) as error:
                raise ValueError(f"{path}:{number}: not a {{\"question\", \"cypher\"}} record ({error})") from None
        return found

    def _embed(self, texts: list[str]) -> np.ndarray:
        return self.graph.retriever.node_index.embedder.encode(texts)

    def _relations(self) -> list[tuple[str, str, str]]:
        return [(src, relation, dst) for relation, pairs in sorted(self.graph.schema.relations.items())
                for src, dst in pairs]

    # ---- stages ----------------------------------------------------------------------------
    def prune(self, question: str) -> str:
        """The schema text for `question`: the relationship tables that leave the nodes it names
        (a path starts at one of them), then the ones nearest it in meaning, `max_relations` in
        all, in schema order; and the node tables they join."""
        from graphs.schema import rel_table

        schema = self.graph.schema
        relations = self._relations()
        if len(relations) > self.max_relations and self.graph.retriever.node_index is not None:
            if self._relation_vectors is None:
                self._relation_vectors = self._embed([f"{s} {r.replace('_', ' ')} {d}" for s, r, d in relations])
            scores = self._relation_vectors @ self._embed([question])[0]
            retriever = self.graph.retriever
            own = {(retriever.store.type_of(node_id), relation) for node_id in named_nodes(self.graph, question)
                   for relation in retriever.relations_of(node_id)}
            scores = scores + np.array([OWN_RELATION_BONUS * ((s, r) in own) for s, r, _ in relations])
            relations = [relations[i] for i in sorted(np.argsort(-scores)[: self.max_relations])]
        types = sorted({t for s, _, d in relations for t in (s, d)})
        lines = ["Node tables:"]
        for type_name in types:
            features = ", ".join(["id", *schema.node_types[type_name].features])
            lines.append(f"  {type_name}({features})")
        lines.append("Relationship tables:")
        lines += [f"  (:{s})-[:{rel_table(r)}]->(:{d})" for s, r, d in relations]
        return "\n".join(lines)

    def nearest_examples(self, question: str) -> str:
        """The chosen examples (`choose_examples`) as prompt text, the nearest last, next to the question."""
        chosen = self.choose_examples(question)
        if not chosen:
            return "(none)"
        return "\n\n".join(f"Question: {e['question']}\nCypher: {e['cypher']}" for e in reversed(chosen))

    def choose_examples(self, question: str) -> list[dict]:
        """The `k` examples that ask most like `question`, the nearest first.

        Nearness is of the questions' forms, names aside (`question_form`: "When was Marie Curie
        born?" is nearest "When was Ivan Pavlov born?", not "When did Irène Joliot-Curie die?"),
        the whole question breaking ties. Two options, off by default: `order_weight`, the forms'
        word order among the EXAMPLE_CANDIDATES nearest ("the son of the husband of X" is not "the
        husband of X 's son"); `distinct_shapes`, one example per query shape (names aside) while
        the candidates have other shapes: the bank
        words each question several ways, and three wordings of one query would fill the prompt
        with one shape where the question's words may need another (`bench/examples.py` measures
        both rules)."""
        if not self.examples or self.k == 0:
            return []
        if self._example_vectors is None:
            questions = [e["question"] for e in self.examples]
            forms = [question_form(q) for q in questions]
            self._example_vectors = (self._embed(forms), self._embed(questions))
            self._example_forms = [form.lower().split() for form in forms]
            self._example_shapes = [STRING_LITERAL.sub("''", e["cypher"]) for e in self.examples]
            self._example_names = [{_folded(_unescape(m.group(2))) for m in self._name_literal.finditer(e["cypher"])}
                                   for e in self.examples]
        form_vectors, whole_vectors = self._example_vectors
        form = question_form(question)
        scores = form_vectors @ self._embed([form])[0] + TIE_WEIGHT * (whole_vectors @ self._embed([question])[0])
        if self.hold_out_own:
            own = {_folded(name) for name in self.names_in(question)}
            scores = np.where([bool(names & own) for names in self._example_names], -np.inf, scores)
        if self.hold_out_family:
            own = {e["family"] for e in self.examples if e["question"] == question} - {""}
            scores = np.where([e["family"] in own for e in self.examples], -np.inf, scores)
        candidates = np.argsort(-scores)[:max(EXAMPLE_CANDIDATES, self.k)]
        if self.order_weight:
            words = form.lower().split()
            order = {i: SequenceMatcher(None, words, self._example_forms[i], autojunk=False).ratio() for i in candidates}
            candidates = sorted(candidates, key=lambda i: -(scores[i] + self.order_weight * order[i]))
        chosen, shapes = [], set()
        for i in candidates:
            if not (self.distinct_shapes and self._example_shapes[i] in shapes):
                chosen.append(i)
                shapes.add(self._example_shapes[i])
        # fewer shapes than k among the candidates (a graph of few templates): the nearest of the rest fill in
        chosen = (chosen + [i for i in candidates if i not in chosen])[: self.k]
        chosen = [i for i in chosen if np.isfinite(scores[i])]  # held out (`hold_out_own`), in a bank of few
        return [self.examples[i] for i in sorted(chosen, key=list(candidates).index)]

    def post_process(self, cypher: str, question: str | None = None) -> str:
        """Rule-based fixes (module doc): fences, a trailing ';', name literals held to the
        question's names (`ground_names`, where `question` is given) and linked to stored names."""
        cypher = FENCE.sub("", cypher.strip()).strip().rstrip(";").strip()
        literals = [_unescape(match.group(2)) for match in self._name_literal.finditer(cypher)]
        if question is not None and self.ground:
            literals = ground_names(literals, question, self.names_in(question), self.relation_words_in(question))
        texts = iter(literals)

        def link(match: re.Match) -> str:
            text = next(texts)
            name = self.stored_name(text)
            return f"{match.group(1)}'{_escape(name if name is not None else text)}'"
        cypher = self._node_pattern.sub(self._relabel, self._name_literal.sub(link, cypher))
        cypher = self._return_end(self._known_properties(RELATIONSHIP_LABEL.sub(self._known_relation, cypher)))
        cypher = self._nested_property(cypher)
        if question is not None:
            cypher = self._answer_kind(self._repeated_hops(cypher, question), question)
        return self._unsaid_hop(self._spelled_path(cypher, question), question) if question is not None else cypher

    def _spelled_path(self, cypher: str, question: str, path: Chain | None = None) -> str:
        """A chain from a named node whose relations are not the ones the question's words spell
        in path order (glm_dspy/modules/relation_words.py), with no more hops than the words say,
        rebuilt from the words: the first of their readings (the query's own relation first where
        a word allows it) whose chain returns rows. "the faith of muhammad_al-mahdi 's parent ?"
        written `-[:rel_parents]->` answered with the parent; rebuilt `-[:rel_parents]->()-[:rel_religion]->`.
        Unchanged where the graph's bank does not show its questions spelling their paths."""
        from graphs.schema import rel_table

        words = self.relation_words
        if words is None or not words.usable:
            return cypher
        path = path or Chain.read(cypher) or self._lone_node(cypher)
        if path is not None and path.binds_last() is None and (returned := RETURN_ONE.match(path.rest)) \
                and not re.search(rf"\(\s*{returned.group(2)}\b", path.cypher[: len(path.cypher) - len(path.rest)]):
            path = path.bind_last(returned.group(2))  # `->(:entity) RETURN DISTINCT b.name`: b is where it ends
        name = start_name(path) if path is not None else None
        spelled = words.path(question, name) if name is not None else None
        if spelled == [] and path.hops and (own := self._own_feature(path)) is not None:
            return own
        if not spelled or not len(path.hops) <= len(spelled) <= MAX_SPELLED_HOPS:
            return cypher
        written = chain_relations(path)
        if len(written) == len(spelled) and all(hop in said for hop, said in zip(written, spelled)):
            return cypher
        readings = [sorted(said, key=lambda hop: hop not in written) for said in spelled]
        tries = MAX_SPELLED_READINGS

        def first_reading(hops: list[tuple[str, bool]]) -> str | None:
            """Depth first: the first reading whose chain returns rows; a word that may stand for
            several relations ("genre": 26 in PQL) is held to those leaving where the path has got."""
            nonlocal tries
            if len(hops) == len(readings):
                tries -= 1
                rebuilt = path.with_hops([(rel_table(r), out, self._reached_label(r, out)) for r, out in hops])
                if rebuilt is not None and not path.hops:  # from a lone node: return the end's own name
                    rebuilt = self._named_end(rebuilt)
                rows, problem = self.execute(rebuilt.cypher) if rebuilt is not None else (None, None)
                return rebuilt.cypher if rows and problem is None else None
            said = readings[len(hops)]
            if len(said) > 1:
                leaving = self._leaving(path.nodes[0], hops)
                said = [(r, out) for r, out in said if not out or r in leaving]
            for hop in said:
                if tries <= 0:
                    return None
                if (found := first_reading([*hops, hop])) is not None:
                    return found
            return None

        return first_reading([]) or cypher

    def _unsaid_hop(self, cypher: str, question: str) -> str:
        """Where the bank does not show how the graph's questions spell their relations (so
        `_spelled_path` cannot judge), a one-hop chain whose relation no word of the question
        says (its words' first three letters; the start's type aside), returning a feature its
        named start has, asks the start (`_own_feature`): "What are the keywords of the paper X?"
        written `(p:paper {...})-[:rel_cited_by]->(c:paper) RETURN c.keywords` answered another
        paper's."""
        if self.relation_words is not None and self.relation_words.usable:
            return cypher
        path = Chain.read(cypher)
        if path is None or len(path.hops) != 1:
            return cypher
        asked = {word[:3] for word in re.findall(r"[a-z]+", question.lower()) if len(word) >= 3}
        relation = set(chain_relations(path)[0][0].split("_")) - {path.label(0)}
        if any(word[:3] in asked for word in relation if len(word) >= 3):
            return cypher
        return self._own_feature(path) or cypher

    def _own_feature(self, path: Chain) -> str | None:
        """A chain the question's words spell no hop of, returning a feature (not the name) that its
        named start has: the start's own ("What are the keywords of the paper X?" written
        `(a:paper {...})-[:rel_paper]->(b:paper) RETURN b.keywords` answered another paper's)."""
        returned = OWN_RETURN.match(path.rest)
        start = NODE_HEAD.match(path.nodes[0]).group(1)
        node_type = self.graph.schema.node_types.get(path.label(0) or "")
        if returned is None or not start or node_type is None or returned.group(2) != path.binds_last() \
                or returned.group(3) not in node_type.features or returned.group(3) == node_type.text_feature:
            return None
        return f"MATCH {path.nodes[0]} RETURN {returned.group(1) or ''}{start}.{returned.group(3)}"

    def _named_end(self, path: Chain) -> Chain:
        """`path` returning its end node's name feature where that node's type lacks the one
        returned (a paper's `title` asked of the venue it reaches, which has a `name`)."""
        node_type = self.graph.schema.node_types.get(path.label(len(path.nodes) - 1) or "")
        returned = RETURN_ONE.match(path.rest)
        if node_type is None or not node_type.text_feature or returned is None or returned.group(3) in node_type.features:
            return path
        head = path.cypher[: len(path.cypher) - len(path.rest)]
        return Chain.read(f"{head} RETURN {returned.group(1) or ''}{returned.group(2)}.{node_type.text_feature}") or path

    def _leaving(self, start: str, hops: list[tuple[str, bool]]) -> set[str]:
        """The relations leaving the nodes the chain from node pattern `start` along `hops` reaches."""
        from graphs.schema import REL_PREFIX, rel_table

        pattern = start + "".join(f"-[:{rel_table(r)}]->()" if out else f"<-[:{rel_table(r)}]-()" for r, out in hops)
        rows, _ = self.execute(f"MATCH {pattern}-[glm_r]->() RETURN DISTINCT label(glm_r) AS rel LIMIT 500")
        return {row["rel"].removeprefix(REL_PREFIX) for row in rows or []}

    def _from_words(self, question: str) -> str | None:
        """For a query that cannot run at all (the 0.5B model once repeated one hop until
        `max_tokens`, and Kuzu could not parse it): the chain the question's words spell from the
        one node it names (`_spelled_path`), where that returns rows; else None, and the repair
        goes on. Only where the graph's words are usable, as `_spelled_path`."""
        if self.relation_words is None or not self.relation_words.usable:
            return None
        named = [found[0] for name in self.names_in(question) if (found := self.named(name))]
        if len(named) != 1:
            return None
        type_name, feature, stored = named[0]
        start = f"(a:{type_name} {{{feature}: '{_escape(stored)}'}})"
        seed = f"MATCH {start} RETURN DISTINCT {END}.{feature}"
        rebuilt = self._spelled_path(seed, question, Chain.unwalked(seed, start, feature))
        return rebuilt if rebuilt != seed else None

    def _reached_label(self, relation: str, outgoing: bool) -> str | None:
        """The one node type a hop along `relation` reaches, or None where it may reach several."""
        reached = {dst if outgoing else src for src, dst in self.graph.schema.relations.get(relation, ())}
        return next(iter(reached)) if len(reached) == 1 else None

    def _nested_property(self, cypher: str) -> str:
        """A relation read as a property of a property: `RETURN c.author.name` ("Who wrote the
        papers cited by X?") is the hop to the node that relation reaches, `MATCH
        (c)-[:rel_author]->(glm_nested:author) RETURN DISTINCT glm_nested.name`. Only in a query's
        one RETURN, of a node variable whose type has that relation to one type of node; Kuzu
        refuses the nested property, and the repair had repeated it."""
        from graphs.schema import rel_table

        bare = STRING_LITERAL.sub("''", cypher)
        found = NESTED_RETURN.search(bare)
        if found is None or len(re.findall(r"\bRETURN\b", bare, re.IGNORECASE)) != 1:
            return cypher
        _, variable, relation, feature = found.groups()
        label = dict(NODE_LABEL.findall(bare)).get(variable)
        reached = {dst for src, dst in self.graph.schema.relations.get(relation, ()) if src == label}
        if len(reached) != 1 or feature not in self.graph.schema.node_types[target := reached.pop()].features:
            return cypher
        head = cypher[: len(cypher) - len(bare) + found.start()]
        return f"{head}MATCH ({variable})-[:{rel_table(relation)}]->({NESTED}:{target}) RETURN DISTINCT {NESTED}.{feature}"

    def _repeated_hops(self, cypher: str, question: str) -> str:
        """A chain that takes one relation several times in a row, where the question names that
        relation fewer times, but at least once, takes it as often as named: "Who were the mentors
        of X?" written `-[:rel_mentor]->()-[:rel_mentor]->(g)`, copied from "Who were the mentors
        of the mentors of Y?". Only where the graph's relation words are not usable: where they
        are, `_spelled_path` reads the whole path from them ("X 's dad 's parents" is two hops of
        `parents` said once)."""
        from graphs.schema import REL_PREFIX

        if self.relation_words is not None and self.relation_words.usable:
            return cypher
        path = Chain.read(cypher)
        if path is None or len(path.hops) < 2:
            return cypher
        words = [re.sub(r"['’]s?$", "", w) for w in NAME_WORD.findall(question.lower())]  # "mentor's" says mentor
        said = [{w, _word_stem(w)} for w in words]
        hops = [(hop.relation, hop.outgoing) for hop in path.hops]
        kept, at = [], 0
        while at < len(hops):
            run = next((n for n in range(at + 1, len(hops)) if hops[n] != hops[at]), len(hops)) - at
            relation = hops[at][0].removeprefix(REL_PREFIX).removeprefix("inv_")
            named = sum(any(spells(relation, form) for form in forms) for forms in said)
            kept += [hops[at]] * (named if 1 <= named < run else run)
            at += run
        if len(kept) == len(hops):
            return cypher
        shorter = path.with_hops([(table, outgoing, None) for table, outgoing in kept])
        return shorter.cypher if shorter is not None else cypher

    def _answer_kind(self, cypher: str, question: str) -> str:
        """A query that returns what the question does not ask for, a count or the things counted,
        returns the other, of the node the question asks about where the query has one node of
        that type (`_asked_node`), else of the one it returned. "Which Nobel Prizes were received
        by students of X?" written `-[:rel_student]->(s:laureate)-[:rel_prize]->(:prize) RETURN
        count(DISTINCT s)` (copied from a "How many ..." example) returns the prizes' names; "How
        many laureates were affiliated with X?" written `RETURN DISTINCT b.name` returns
        `count(DISTINCT b)`. Only a query whose last clause returns that one item, never one of
        several joined by UNION, and only a node's name or title becomes a count (`RETURN
        p.pages` answers "How many pages ...")."""
        bare = STRING_LITERAL.sub("''", cypher)
        if re.search(r"\bUNION\b", bare, re.IGNORECASE):
            return cypher
        labels = dict(NODE_LABEL.findall(bare))
        types = self.graph.schema.node_types

        def before(match: re.Match) -> str:  # the query up to `match` (literals are before any RETURN)
            return cypher[: len(cypher) - len(bare) + match.start()]

        if (counted := RETURN_COUNT.search(bare)) is not None:
            if COUNT_WORDS.search(question) is not None:
                return cypher
            variable, feature = counted.group(2), counted.group(3)
            head = before(counted)
            node_type = types.get(labels.get(variable, ""))
            if (asked := self._asked_node(head, question)) is not None:
                head, variable, node_type = asked[0], asked[1], types[asked[2]]
                feature = feature if asked[1] == counted.group(2) else node_type.text_feature
            feature = feature or (node_type.text_feature if node_type is not None else None)
            if feature is None or node_type is not None and feature not in node_type.features:
                return cypher
            return f"{head}RETURN DISTINCT {variable}.{feature}"
        returned = RETURN_FEATURE.search(bare)
        if returned is None or "count(" in bare.replace(" ", "").lower():
            return cypher
        variable, feature = returned.group(2), returned.group(3)
        node_type = types.get(labels.get(variable, ""))
        # "How many ...?" written `-[:rel_student]->(s) RETURN s.name`: a node of no label counts as well
        unlabeled = ASKS_COUNT.search(question) and feature in self._text_features \
            and re.search(rf"\(\s*{variable}\s*[){{]", bare) is not None
        if not unlabeled and (node_type is None or feature != node_type.text_feature):
            return cypher
        asked = self._asked_node(before(returned), question)
        if ASKS_COUNT.search(question):
            head, variable = asked[:2] if asked is not None else (before(returned), variable)
            return f"{head}RETURN count(DISTINCT {variable})"
        if asked is None or asked[2] == labels.get(variable):
            return cypher
        return f"{asked[0]}RETURN {returned.group(1) or ''}{asked[1]}.{types[asked[2]].text_feature}"

    def _asked_node(self, head: str, question: str) -> tuple[str, str, str] | None:
        """The node the question asks about in query `head` (all but its RETURN): the first of the
        graph's node types named by the words right after its "which", "what" or "how many"
        (ASKING: "Which Nobel *Prizes* ...", "How many *laureates* ..."), where `head` has one node
        pattern of that type; (`head` with that node bound to a variable, the variable, the type),
        or None."""
        from graphs.schema_examples import plural, words

        asking = ASKING.match(question)
        opening = [w.lower() for w in NAME_WORD.findall(question[asking.end():])[:ASKED_WORDS]] if asking else []
        said = {}
        for type_name in self.graph.schema.node_types:
            spoken = words(type_name).lower().split()
            for form in (spoken, plural(" ".join(spoken)).split()):
                for at in range(len(opening) - len(form) + 1):
                    if opening[at: at + len(form)] == form:
                        said.setdefault(type_name, at)
        if not said:
            return None
        type_name = min(said, key=said.get)
        pattern = re.compile(f"({STRING_LITERAL.pattern})|" + r"\(\s*(\w*)\s*:\s*`?" + re.escape(type_name) + r"`?(?=[\s){])")
        found = [m for m in pattern.finditer(head) if m.group(1) is None]
        if len(found) != 1:
            return None
        if variable := found[0].group(2):
            return head, variable, type_name
        variable = next(v for v in ("x", "y", "glm_asked") if not re.search(rf"\b{v}\b", STRING_LITERAL.sub("''", head)))
        at = found[0].start() + 1
        return head[:at] + variable + head[at:], variable, type_name

    def _return_end(self, cypher: str) -> str:
        """A chain that returns the very name its first node is matched by (`MATCH (a:entity {name:
        'Trenton'})-[:rel_location_location_containedby]->(:entity) RETURN DISTINCT a.name`
        answers "Trenton" whatever the graph holds), or a one-hop chain that asks its start for the
        relation it has just taken as a property (`_property_of_hop`), returns the name of the node
        it ends at."""
        path = Chain.read(cypher)
        returned = RETURN_ONE.match(path.rest) if path is not None else None
        start = NODE_HEAD.match(path.nodes[0]).group(1) if returned else None
        if not start or returned.group(2) != start or self._name_literal.search(path.nodes[0]) is None \
                or not (returned.group(3) in self._text_features or self._property_of_hop(path, returned.group(3))):
            return cypher
        end = path.binds_last()
        if end == start:
            return cypher
        if end is None:
            end = next(v for v in ("b", "x", END) if not re.search(rf"\b{v}\b", cypher))
            path = path.bind_last(end)
        node_type = self.graph.schema.node_types.get(path.label(len(path.nodes) - 1) or "")
        feature = node_type.text_feature if node_type is not None and node_type.text_feature else returned.group(3)
        head = path.cypher[: len(path.cypher) - len(path.rest)]
        return f"{head} RETURN {returned.group(1) or ''}{end}.{feature}"

    def _property_of_hop(self, path: Chain, feature: str) -> bool:
        """Whether a one-hop chain's start node is asked for, as a property, the relation it has
        just taken: `MATCH (a:entity {name: 'Sister Wynona Carr'})-[:rel_people_person_place_of_birth]->(:entity)
        RETURN a.place_of_birth` means the node the hop reaches."""
        from graphs.schema import REL_PREFIX

        relation = path.hops[0].relation.removeprefix(REL_PREFIX)
        return len(path.hops) == 1 and self._lacks(path.label(0), feature) and spells(relation, feature)

    def _lacks(self, label: str | None, feature: str) -> bool:
        """Whether `feature` is a relation's word read as a property (`RETURN a.place_of_birth`,
        PathQuestion-L's `people_person_place_of_birth`): nodes of type `label` have no such
        property and a relation is named by it or ends with it; False where the type is not known."""
        node_type = self.graph.schema.node_types.get(label or "")
        return node_type is not None and feature != "id" and feature not in node_type.features \
            and any(spells(relation, feature) for relation in self.graph.schema.relations)

    def _lone_node(self, cypher: str) -> Chain | None:
        """`MATCH (a:entity {name: 'Objective, Burma!'}) RETURN DISTINCT a.profession`, a property
        its type lacks (a relation word read as a property): a chain of no hops yet, to the node
        whose name it returns, for `_spelled_path` to rebuild; else None."""
        found = LONE_NODE.match(cypher)
        if found is None or self._name_literal.search(found.group(1)) is None:
            return None
        head = NODE_HEAD.match(found.group(1))
        if head.group(1) != found.group(3) or not self._lacks(head.group(2), found.group(4)):
            return None
        feature = self.graph.schema.node_types[head.group(2)].text_feature or "name"
        return Chain.unwalked(cypher, found.group(1), feature)

    def names_in(self, question: str) -> list[str]:
        """The names a query's literals are held to (`ground_names`): the question's names
        (`question_names`) but the schema's own words (PathQuestion's relation word `track_list`
        read as the name "track list", and took the place of 'Elliott Yamin'); where none is left,
        a lower-case name before a possessive that names a node exactly ("is kalama 's darling
        a man ?")."""
        said = {_folded(word) for word in self.relation_words_in(question)}
        names = [name for name in question_names(question)
                 if _folded(name) not in said and not self._schema_word(name) and not self._kind(name)]
        return names or self._possessors(question)

    def _kind(self, name: str) -> bool:
        """Whether `name` is a phrase many stored names share (SHARED_NAMES or more, as whole
        words, a plural's "s" aside) but none is: a kind of node, not one. "Which Nobel Prizes
        were received by students of Eugene Bloch?": "Nobel Prizes" held the query's literal, and
        linking took it to a prize. A name with a typo ("Fatima Clrak") is shared by none."""
        if name not in self._kinds:
            words = _folded(name).split()
            pattern = r"\b" + r"\W+".join(re.escape(w[:-1]) + "s?" if len(w) > 3 and w.endswith("s") else re.escape(w)
                                          for w in words) + r"\b"
            shared = 0
            for type_name, node_type in self.graph.schema.node_types.items():
                if (feature := node_type.text_feature) is not None and shared < SHARED_NAMES:
                    shared += self.graph.store.query(
                        f"MATCH (n:`{type_name}`) WHERE regexp_matches(lower(n.`{feature}`), $pattern) "
                        f"RETURN count(*) AS shared", {"pattern": pattern})[0]["shared"]
            self._kinds[name] = bool(words) and shared >= SHARED_NAMES and self.exact_name(name) is None
        return self._kinds[name]

    def relation_words_in(self, question: str) -> list[str]:
        """The question's words, or words joined by "_", that spell a relation of the graph
        (`spells`: "place_of_birth", "mentor"), as the question writes them; a name the graph has
        as a node's too ("Place of birth" in PQL) is still the relation's word here."""
        relations = self.graph.schema.relations
        words = (word.strip(".,;:!?'’\"()") for word in question.lower().split())
        return [word for word in dict.fromkeys(words) if len(word) >= 3 and word not in NAME_CONNECTORS
                and any(spells(relation, word) for relation in relations)]

    def _schema_word(self, name: str) -> bool:
        """Whether `name` spells a relation or feature of the graph, or the end of one (`track
        list`: music_release_track_list), rather than a node's name; one the graph has as a
        node's name exactly is a name."""
        word = "_".join(name.lower().split())
        schema = self.graph.schema
        spelled = any(spells(relation, word) for relation in schema.relations) \
            or any(word in node_type.features for node_type in schema.node_types.values())
        return spelled and self.exact_name(name) is None

    def _possessors(self, question: str) -> list[str]:
        """The stored names of nodes named, exactly, by the words right before a possessive
        ("of funk 's tracks" -> "funk"), the longest run of at most POSSESSOR_WORDS first."""
        words = re.sub(r"(\w)(['’]s)\b", r"\1 \2", question).split()
        found = []
        for at, word in enumerate(words):
            if word not in ("'s", "’s"):
                continue
            for length in range(min(POSSESSOR_WORDS, at), 0, -1):
                run = words[at - length: at]
                if run[0].lower() in QUESTION_WORDS or run[0].lower() in NAME_CONNECTORS:
                    continue
                if (exact := self.exact_name(" ".join(run))) is not None:
                    found.append(exact[1])
                    break
        return list(dict.fromkeys(found))

    def _known_relation(self, match: re.Match) -> str:
        """A relationship table the graph does not have (`rel_husband`, `rel_parent`: a word of
        the question, not of the schema) becomes the graph's relation nearest it in meaning
        (`rel_spouse`, `rel_parents`), where one is near enough (RELATION_LIKENESS); else it stays
        and Kuzu's EXPLAIN sends the query to repair."""
        from graphs.schema import REL_PREFIX, rel_table

        label = match.group(2)
        if not label.startswith(REL_PREFIX) or label[len(REL_PREFIX):] in self.graph.schema.relations \
                or self.graph.retriever.node_index is None:
            return match.group(0)
        relation, likeness = self._nearest_relation(label)
        return match.group(0) if likeness < RELATION_LIKENESS else f"{match.group(1)}{rel_table(relation)}"

    def _known_properties(self, cypher: str) -> str:
        """A property its node's type lacks, one of whose words is the one feature the type has of
        them (`b.publication_year` of a paper, whose feature is `year`), becomes that feature. A
        relation's word read as a property (`a.place_of_birth`) is left to `_return_end` and
        `_spelled_path`; a property no feature shares a word with stays, for Kuzu to refuse."""
        schema = self.graph.schema
        labels = {variable: label for variable, label in NODE_LABEL.findall(STRING_LITERAL.sub("''", cypher))}

        def known(match: re.Match) -> str:
            literal, variable, feature = match.groups()
            if literal is not None:  # never inside a name
                return literal
            node_type = schema.node_types.get(labels.get(variable, ""))
            if node_type is None or feature in node_type.features or feature == "id" \
                    or any(spells(relation, feature) for relation in schema.relations):
                return match.group(0)
            said = set(feature.lower().split("_"))
            near = [f for f in node_type.features if f.lower() in said or feature.lower() in f.lower().split("_")]
            return f"{variable}.{near[0]}" if len(near) == 1 else match.group(0)
        return LITERAL_OR_PROPERTY.sub(known, cypher)

    def _relabel(self, match: re.Match) -> str:
        """A node pattern whose name is not one of its label's but another node type's takes that
        type's label (`(m:laureate {name: 'Lawrence Jones'})`, a scholar, matched nothing and
        counted 0), or none where several types have it."""
        variable, label, feature, literal = match.groups()
        types = [type_name for type_name, named_by, _ in self.named(_unescape(literal)) if named_by == feature]
        if not types or label in types:
            return match.group(0)
        new_label = f":{types[0]}" if len(types) == 1 else ""
        return f"({variable}{new_label} {{{feature}: '{literal}'}})"

    def named(self, text: str) -> list[tuple[str, str, str]]:
        """(node type, text feature, stored name) of each node type with a node whose name or title
        equals `text` but for case."""
        found = []
        for type_name, node_type in self.graph.schema.node_types.items():
            feature = node_type.text_feature
            if feature is None:
                continue
            rows = self.graph.store.query(f"MATCH (n:`{type_name}`) WHERE lower(n.`{feature}`) = lower($text) "
                                          f"RETURN n.`{feature}` AS name LIMIT 1", {"text": text})
            if rows:
                found.append((type_name, feature, rows[0]["name"]))
        return found

    def exact_name(self, text: str) -> tuple[str, str] | None:
        """(text feature, stored name) of a node whose name or title equals `text` but for case; None if none."""
        found = self.named(text)
        return found[0][1:] if found else None

    def stored_name(self, text: str) -> str | None:
        """The stored name `text` means: a node's name or title equal to it but for case (or with
        its underscores as spaces: a question's entity id copied into the query), else the name of
        the node RetrieveNode finds for it (a near spelling); None if neither. RetrieveNode alone
        took `charles_lennox_1st_duke_of_richmond` to the 3rd duke."""
        spaced = " ".join(text.replace("_", " ").split())  # PathQuestion's `charles_lennox_1st_duke_of_richmond`
        for form in dict.fromkeys((text, spaced)):
            if (exact := self.exact_name(form)) is not None:
                return exact[1]
        retriever = self.graph.retriever
        node_id = retriever.retrieve_node(spaced) if retriever.node_index is not None else None
        return retriever.label(node_id) if isinstance(node_id, str) else None

    def validate(self, cypher: str, question: str | None = None) -> str | None:
        """Why `cypher` cannot run (the read-only gate on its parse, then Kuzu's EXPLAIN of the
        gated text; nothing else runs), or cannot answer `question` (`unnamed`,
        `unsaid_number`); None if neither."""
        try:
            self.graph.store.explain(cypher)
        except QueryRefused as error:
            return f"the query may not run: {error}"
        except CypherSyntaxError as error:
            return f"the query does not parse: {error}"
        except DeadlinePassed:
            raise
        except Exception as error:  # noqa: BLE001 - Kuzu's parser and binder errors are RuntimeErrors
            return f"Kuzu cannot run it: {str(error).strip().splitlines()[0][:300]}"
        if question is None or not self.ground:
            return None
        return self.unnamed(cypher, question) or self.unsaid_number(cypher, question)

    def unnamed(self, cypher: str, question: str) -> str | None:
        """Why a query that holds no string at all cannot answer a question about a node the graph
        has by that very name, or None. A small model sometimes drops the name ("Who were the
        students of Augustin Walther?" -> `MATCH (m:laureate)-[:rel_student]->(s) RETURN s.name`,
        everyone's students); the repair is told which name to match, and how."""
        if STRING_LITERAL.search(cypher):
            return None
        named = [exact for name in question_names(question) if (exact := self.exact_name(name)) is not None]
        if not named:
            return None
        feature, stored = named[0]
        return (f"the query matches no node by name, but the question asks about "
                f"{' and '.join(repr(name) for _, name in named[:3])}: match each by name, "
                f"e.g. {{{feature}: '{_escape(stored)}'}}")

    def unsaid_number(self, cypher: str, question: str) -> str | None:
        """Why a query that holds none of the numbers its question says cannot answer it, or None.
        "How many papers did Asian Conference on Algorithms publish in 2024?" written without
        `WHERE p.year = 2024` counted every year's; the repair is told the number and the graph's
        number features."""
        said = list(dict.fromkeys(NUMBER.findall(question)))
        if not said or any(re.search(rf"(?<!\d){number}(?!\d)", cypher) for number in said):
            return None
        types = self.graph.schema.node_types.items()
        numeric = [(t, f) for t, node_type in types for f, kind in node_type.features.items()
                   if kind.startswith(("INT", "UINT", "DOUBLE", "FLOAT"))]
        dates = [(t, f) for t, node_type in types for f, kind in node_type.features.items()
                 if kind == "STRING" and f.endswith("date")]
        hints = [f"{t}.{f} = {said[0]}" for t, f in sorted(numeric, key=lambda pair: "year" not in pair[1])][:4] \
            + [f"{t}.{f} STARTS WITH '{said[0]}'" for t, f in dates][:2]
        return (f"the question says {' and '.join(said[:3])}, but the query does not use it: filter on it with "
                f"WHERE" + (f", e.g. on {' or '.join(hints)}" if hints else ""))

    def execute(self, cypher: str) -> tuple[list[dict] | None, str | None]:
        """(rows, None), or (None, why not): `run`'s rows."""
        result, problem = self.run(cypher)
        return (result.rows if result is not None else None), problem

    def run(self, cypher: str) -> tuple[ReadResult | None, str | None]:
        """(what was read, None), or (None, why not): the gated query (`GraphStore.read`) under
        its time, row and byte limits; a result cut at a limit says so in `truncated`."""
        try:
            return self.graph.store.read(cypher), None
        except QueryRefused as error:
            return None, f"the query may not run: {error}"
        except CypherSyntaxError as error:
            return None, f"the query does not parse: {error}"
        except DeadlinePassed:
            raise
        except Exception as error:  # noqa: BLE001 - a timeout is RuntimeError("Interrupted.")
            message = str(error).strip().splitlines()[0][:300]
            if "Interrupted" in message:
                message = "the query ran past its time limit; write a simpler one"
            return None, message

    # ---- the program -----------------------------------------------------------------------
    def forward(self, question: str) -> dspy.Prediction:
        """The question's answer, all of its stages (generation, validation, execution, walks,
        repairs) inside one deadline of `question_timeout_s`: no graph query starts after it,
        each is cut to the time left, and no generation starts once it has passed."""
        stages: dict[str, float] = {}
        log = StepLog()
        with deadline(time.monotonic() + self.question_timeout_s):
            try:
                return self._forward(question, log, stages)
            except DeadlinePassed as error:
                log.add(Step("graph", error=f"the question's time limit ({self.question_timeout_s:g} s) passed: {error}"))
                return log.prediction(None, TIME_LIMIT, cypher="", stages=stages, cache_hit=False)

    def _forward(self, question: str, log: StepLog, stages: dict[str, float]) -> dspy.Prediction:

        def timed(stage: str, started: float) -> None:
            stages[stage] = stages.get(stage, 0.0) + time.perf_counter() - started

        started = time.perf_counter()
        key = self._cache_key(question)
        with self._cache_lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                self.cache_hits += 1
            else:
                self.cache_misses += 1
        timed("cache", started)
        if cached is not None:
            return log.prediction(cached["answer"], cached["error_category"], cypher=cached["cypher"],
                                  stages=stages, cache_hit=True)

        started = time.perf_counter()
        schema = self.prune(question)
        timed("pruning", started)
        started = time.perf_counter()
        examples = self.nearest_examples(question)
        timed("examples", started)
        previous, error, category, rows, cypher = "", "", None, None, ""
        with dspy.context(adapter=self.adapter):
            for attempt in range(1 + self.max_repairs):
                if (left := remaining_s()) is not None and left <= 0:
                    raise DeadlinePassed(f"before generation {attempt + 1}")
                started = time.perf_counter()
                prediction, step = call_agent("cypher", self.generate, tables=schema, examples=examples,
                                              question=question, previous_query=previous, error=error)
                step.attempt, step.ok = attempt, False
                log.add(step)
                timed("generation", started)
                if prediction is None:
                    return self._finish(key, log, None, UNEXPECTED_OUTPUT, cypher, stages)
                started = time.perf_counter()
                step.code = cypher = _canonical(self.post_process(prediction.cypher, question))
                timed("post-processing", started)
                if previous and cypher == previous:  # the repair repeats the query that failed: stop here
                    step.error = "repeated the failing query; not run again"
                    return self._finish(key, log, None, category, cypher, stages)
                started = time.perf_counter()
                problem = self.validate(cypher, question)
                if problem is not None and (bound := self._bind_unbound(cypher, problem)) is not None \
                        and (bound_problem := self.validate(bound, question)) is None:
                    step.code = cypher = _canonical(bound)
                    problem = bound_problem
                log.add(Step("graph", code=f"EXPLAIN {cypher}", error=problem,
                             latency_s=time.perf_counter() - started))
                timed("validation", started)
                if problem is None:
                    started = time.perf_counter()
                    result, problem = self.run(cypher)
                    rows = result.rows if result is not None else None
                    shown = _rows_text(rows) if rows is not None else None
                    if result is not None and result.truncated:
                        shown += f"\n(stopped reading: {result.truncated})"
                    log.add(Step("graph", code=cypher, output=shown, error=problem,
                                 latency_s=time.perf_counter() - started))
                    timed("execution", started)
                    if problem is None and not rows:
                        walked, problem = self.walk(cypher)
                        if walked is not None and (rows := self._run_walked(walked, question, log)):
                            step.error, cypher = problem, walked
                            break
                    if problem is None:
                        step.ok = True
                        break
                    category = RETRIEVAL_ERROR
                else:
                    # `rel_darling`, near no relation, so post-processing kept it: walked; else the words' chain
                    walked = self.walk(cypher)[0] if UNKNOWN_TABLE.search(problem) else None
                    if (walked := walked or self._from_words(question)) is not None \
                            and (rows := self._run_walked(walked, question, log)):
                        step.error, cypher = problem, walked
                        break
                    category = CODE_ERROR
                step.error = problem
                previous, error = cypher, problem
            else:
                return self._finish(key, log, None, category, cypher, stages)
            # the query that ran is what the call says it wrote: an optimizer's bootstrapped demo
            # (DSPy's trace holds this prediction) shows it, not the model's text before the fixes
            prediction.cypher = cypher
            started = time.perf_counter()
            answer = self._answer(question, cypher, rows, log)
            timed("answer", started)
        return self._finish(key, log, answer, None if answer else UNEXPECTED_OUTPUT, cypher, stages)

    def walk(self, cypher: str) -> tuple[str | None, str]:
        """For a query that returned no rows: (the query with each relationship that leads nowhere
        replaced by the one nearest it in meaning among those that leave the node where the path
        stops, or None where none does or the query is not one chain; what the path reached, for
        the repair). "Robin Hood" has no `rel_music_release_track_recording` but has its inverse.
        A hop never walks back the way the previous one came: "the other half of Isabella's
        father" written `-[:rel_spouse]->()-[:rel_parents]->` walked to `rel_parents` then
        `rel_inv_parents`, Isabella herself; now the father's `rel_spouse`. A table the graph does
        not have (`rel_darling`) leads nowhere too, and is walked the same way."""
        from graphs.schema import REL_PREFIX, rel_table

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
        from graphs.schema import REL_PREFIX
        from graphs.triples import INVERSE_PREFIX

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
        from graphs.schema import REL_PREFIX

        relations = sorted(self.graph.schema.relations)
        if self._relation_name_vectors is None:
            self._relation_name_vectors = self._embed([r.replace("_", " ") for r in relations])
        scores = self._relation_name_vectors @ self._embed([table.removeprefix(REL_PREFIX).replace("_", " ")])[0]
        if among is not None:
            scores = np.where([r in among for r in relations], scores, -np.inf)
        best = int(np.argmax(scores))
        return relations[best], float(scores[best])

    def _cache_key(self, question: str) -> str:
        """What an answer depends on: the question, the schema, the LM and the predictors' state
        (an optimizer's copies of this module, with other demos or instructions, share no answers)."""
        lm = dspy.settings.lm
        state = json.dumps([self.generate.dump_state(), self.answer_from_rows.dump_state()], sort_keys=True, default=str)
        text = f"{question}\n{self._schema_text}\n{getattr(lm, 'model', lm)!s}\n{state}"
        return hashlib.sha256(text.encode()).hexdigest()

    def _answer(self, question: str, cypher: str, rows: list[dict], log: StepLog) -> str | None:
        if len(rows[0]) == 1:
            values = [_value_text(next(iter(row.values()))) for row in rows[:MAX_ROWS]]
            return ", ".join(dict.fromkeys(v for v in values if v))
        prediction, step = call_agent("answer", self.answer_from_rows, question=question, cypher=cypher,
                                      rows=_rows_text(rows))
        log.add(step)
        return prediction.answer.strip() if prediction is not None else None

    def _finish(self, key: str, log: StepLog, answer, category, cypher: str, stages: dict) -> dspy.Prediction:
        if self.cache_size and answer:  # only answers are cached: a failure may go better next time
            with self._cache_lock:
                self._cache[key] = {"answer": answer, "error_category": category, "cypher": cypher}
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return log.prediction(answer, category, cypher=cypher, stages=stages, cache_hit=False)


class _CopyableLock:
    """A lock that a deep copy of its module (DSPy's optimizers copy programs) gets anew."""

    def __init__(self):
        self._lock = threading.Lock()

    def __enter__(self):
        return self._lock.__enter__()

    def __exit__(self, *exc):
        return self._lock.__exit__(*exc)

    def __deepcopy__(self, memo) -> "_CopyableLock":
        return _CopyableLock()


def _canonical(cypher: str) -> str:
    """The text a query that passes the gate runs as (graphs/cypher/printer.py); else as written,
    for validation to say why it cannot run."""
    try:
        return gate(cypher).text
    except (QueryRefused, CypherSyntaxError):
        return cypher


def _value_text(value) -> str:
    if isinstance(value, list):
        return ", ".join(_value_text(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # an average of 2014.0 is the year 2014
    return "" if value is None else str(value)


def _rows_text(rows: list[dict]) -> str:
    lines = [" | ".join(f"{column}: {_value_text(value)}" for column, value in row.items()) for row in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        lines.append(f"... {len(rows) - MAX_ROWS} more rows")
    return "\n".join(lines)
