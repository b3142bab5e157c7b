"""The three GLM agents as DSPy signatures (GLM paper §4.1).

The docstrings ARE the prompts (DSPy turns them into the system message; optimizers rewrite
them). Field order is the prompt layout: for Reason the notebook comes before the question
so that a growing notebook is a growing prompt prefix (docs/architecture.md, "Prompt layout").
Developer notes live in comments like this one, never in docstrings.
"""

from typing import Literal

import dspy

Kind = Literal["deterministic", "non_deterministic"]


class Classify(dspy.Signature):
    """Classify a question about a knowledge graph.

    deterministic: the answer can be read off the graph by one short program — a feature of
    a named entity, its neighbours, a count, a chain of lookups, a set intersection, an average.
    non_deterministic: the answer needs judgement over facts that must first be gathered and
    read — a recommendation, a comparison or explanation, or a question whose path through
    the graph is not clear from the question alone."""

    question: str = dspy.InputField()
    kind: Kind = dspy.OutputField()


class Reason(dspy.Signature):
    """Answer a question about a knowledge graph from the facts in the notebook only.

    The notebook holds what was retrieved so far, one block per retrieval: `<what was asked>
    -> <what came back>`, or a node as `[Node:<id> {...}]` with its features, followed by its
    neighbours as `(<id>:<relation> {name})`. What came back is the answer
    to what was asked. If the notebook is enough, set finished to True and give the answer:
    just the answer, a list joined by ", " when there are several. Otherwise set finished to
    False and state in missing_information the single next fact to retrieve, naming entities
    exactly (or by node id) and the relation or feature wanted."""

    notebook: str = dspy.InputField(desc="facts retrieved so far; empty at the start")
    question: str = dspy.InputField()
    finished: bool = dspy.OutputField()
    answer: str = dspy.OutputField(desc="the final answer if finished, else empty")
    missing_information: str = dspy.OutputField(desc="what to retrieve next if not finished, else empty")


class Act(dspy.Signature):
    """Write a short Python snippet that gets the requested information from the graph.

    Use only the graph functions listed below, plain Python control flow (for, if,
    comprehensions), and the builtins len, sorted, set, sum, min, max, round, list, dict, str.
    No imports. Find entities by name with RetrieveNode. A property of the entity itself is a
    feature: NodeFeature(id, feature). A related entity (a place, a prize, an institution,
    an author, a paper) is a neighbour: NeighbourCheck(id, neighbour_type) with a neighbour
    type from the graph description below, then NodeFeature(ids, "name") for its names.
    Compute intersections, counts and averages in the snippet. Print only the result the request asks for — a value, a short
    list, or a vertex chunk from NodeInfo — nothing else. If a previous attempt failed, its
    code and error are given: fix the cause."""

    request: str = dspy.InputField(desc="the information to retrieve")
    previous_code: str = dspy.InputField(desc="the snippet that failed, if any")
    error: str = dspy.InputField(desc="its error, if any")
    code: str = dspy.OutputField(desc="Python code only, no explanation")


# ---- baselines (issue 4): the comparison arms of the GLM paper's §6 ----------------------

class Answer(dspy.Signature):
    """Answer the question. Give just the answer: a name, a date, a number, or a list joined by ", "."""

    question: str = dspy.InputField()
    answer: str = dspy.OutputField()


class AnswerFromContext(dspy.Signature):
    """Answer the question using the context, which was retrieved from a knowledge graph.
    Give just the answer: a name, a date, a number, or a list joined by ", "."""

    context: str = dspy.InputField(desc="graph nodes retrieved for the question")
    question: str = dspy.InputField()
    answer: str = dspy.OutputField()


class GraphCoTStep(dspy.Signature):
    """Solve a question answering task with interleaving Thought, Action and Observation steps
    over a knowledge graph. In the Thought, reason about what is still needed. The Action is
    one or more of these functions, comma-separated:
    (1) RetrieveNode[keyword]: the id of the node that best matches the keyword.
    (2) NodeFeature[id, feature]: the value of the node's feature.
    (3) NeighbourCheck[id, neighbour_type]: the ids of the node's neighbours of that type.
    (4) NodeDegree[id, neighbour_type]: how many neighbours of that type the node has.
    (5) Finish[answer]: the final answer, which ends the task.
    The scratchpad holds the previous Thought n / Action n / Observation n steps."""

    question: str = dspy.InputField()
    scratchpad: str = dspy.InputField(desc="the steps so far; empty at the start")
    thought: str = dspy.OutputField()
    action: str = dspy.OutputField(desc="e.g. RetrieveNode[Marie Curie] or Finish[1903]")


class GenerateCypher(dspy.Signature):
    """Write one read-only Kuzu Cypher query that answers the question over the graph schema.

    Find an entity by its name, as the examples do: (l:laureate {name: 'Marie Curie'}).
    Relationships are the schema's rel_<relation> tables, followed in the direction shown.
    Use only MATCH, OPTIONAL MATCH, WHERE, WITH, UNWIND, RETURN, ORDER BY, LIMIT; return only the
    values the answer needs (count(DISTINCT x) for "how many"). If a previous query failed, fix it."""

    tables: str = dspy.InputField(desc="the node tables with their properties, and the relationship tables")
    examples: str = dspy.InputField(desc="questions like this one, each with its Cypher")
    question: str = dspy.InputField()
    previous_query: str = dspy.InputField(desc="the query that failed, if any")
    error: str = dspy.InputField(desc="why it failed, if it did")
    cypher: str = dspy.OutputField(desc="the Cypher query only")


class ChooseReading(dspy.Signature):
    """Which reading of the question is the one it asks? Each numbered reading is a path through
    the knowledge graph from an entity the question names, then what is read at its end. Answer
    with the number of the reading that asks exactly what the question asks, or 0 where none does."""

    question: str = dspy.InputField()
    readings: str = dspy.InputField(desc="numbered readings, one a line")
    # no example number: "e.g. 2" drew 16 of 22 picks to reading 2 (docs/benchmarks.md)
    choice: str = dspy.OutputField(desc="the number of the right reading, or 0")


class JudgeReading(dspy.Signature):
    """Does the reading answer exactly what the question asks? The reading is a path through the
    knowledge graph from an entity the question names, then what is read at its end, and the
    values it reads. Answer yes or no."""

    question: str = dspy.InputField()
    reading: str = dspy.InputField()
    fits: str = dspy.OutputField(desc="yes or no")


class AnswerFromRows(dspy.Signature):
    """Answer the question from the rows its Cypher query returned: just the answer."""

    question: str = dspy.InputField()
    cypher: str = dspy.InputField()
    rows: str = dspy.InputField(desc="the query's result, one row a line")
    answer: str = dspy.OutputField()


class Plan(dspy.Signature):
    """Plan how to answer the question from the graph (Graph Counselor's Planning Agent): the
    entity to find first, then each relation to follow or feature to read, one step a line, using
    only the node types, features and relations the graph has. If a reflection on an earlier
    attempt is given, plan so as not to repeat its mistake."""

    graph: str = dspy.InputField(desc="the graph's node types with their features and relations")
    question: str = dspy.InputField()
    reflection: str = dspy.InputField(desc="what an earlier attempt got wrong, if any")
    plan: str = dspy.OutputField(desc="numbered steps, one retrieval each")


class Judge(dspy.Signature):
    """Judge whether the answer is right for the question, given what was retrieved to find it
    (Graph Counselor's judgment module): is it the kind of thing asked for, about the right
    entity, and supported by the retrieved facts?"""

    question: str = dspy.InputField()
    retrieved: str = dspy.InputField(desc="the notebook: what each retrieval returned")
    answer: str = dspy.InputField()
    correct: bool = dspy.OutputField()


class Reflect(dspy.Signature):
    """Reflect on an attempt judged wrong, from several perspectives (Graph Counselor's
    Self-Reflection): recap what the question asks and what was done; analyse which relations
    were missing or extraneous; say how to refine the retrieval; then reason backward from the
    answer given: would it satisfy the question, and if not, what would?"""

    question: str = dspy.InputField()
    attempt: str = dspy.InputField(desc="the notebook of the attempt: what each retrieval returned")
    answer: str = dspy.InputField(desc="the attempt's answer, empty if none")
    recap: str = dspy.OutputField()
    analysis: str = dspy.OutputField(desc="missing or extraneous relations")
    refinement: str = dspy.OutputField(desc="what to retrieve differently")
    backward_check: str = dspy.OutputField(desc="from the answer back to the question")


class PickCommunities(dspy.Signature):
    """Pick the communities of the knowledge graph most useful for answering the question
    (FastToG's fine pruning). Each community is a numbered group of facts, one triple a line."""

    question: str = dspy.InputField()
    communities: str = dspy.InputField(desc="numbered communities, each a list of triples")
    choice: str = dspy.OutputField(desc="the numbers of the most useful communities, best first, e.g. 2, 1")


class AnswerFromCommunities(dspy.Signature):
    """Answer the question from the facts found so far, one triple a line. Say whether they are
    enough; if so give just the answer (a list joined by ", " when there are several)."""

    facts: str = dspy.InputField(desc="triples from the communities explored so far")
    question: str = dspy.InputField()
    enough: bool = dspy.OutputField()
    answer: str = dspy.OutputField(desc="the answer if the facts are enough, else your best guess")
