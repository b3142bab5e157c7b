"""Graph-CoT (Jin et al. 2024), the GLM paper's main baseline, faithful to its reference loop.

One agent. Step n sends the question and the whole scratchpad so far and gets back
`Thought n` and `Action n`; the action is one or more calls, comma-separated, each parsed by
`^(\\w+)\\[(.+)\\]$` with its arguments split on ", ":
    RetrieveNode[keyword]  NodeFeature[id, feature]  NeighbourCheck[id, neighbour_type]
    NodeDegree[id, neighbour_type]  Finish[answer]
The raw function outputs become `Observation n` (no vertex chunks, no code). Finish ends the
task; 10 steps without it is "step limit exceeded". An action that does not parse is
answered with an observation naming the valid actions, as the reference does. Unlike GLM the
scratchpad follows the question, so only the instructions and demos are a stable prefix.
"""

from __future__ import annotations

import re

import dspy

from glm_dspy.prompts.adapter import GLMAdapter
from glm_dspy.prompts.function_docs import is_large, schema_summary
from glm_dspy.modules.calls import call_agent
from glm_dspy.signatures import GraphCoTStep
from glm_dspy.runs.steps import STEP_LIMIT, UNEXPECTED_OUTPUT, StepLog

DEFAULT_MAX_STEPS = 10
MAX_OBSERVATION_CHARS = 2000
ACTION = re.compile(r"^(\w+)\[(.+)\]$", re.DOTALL)
_BETWEEN_ACTIONS = re.compile(r"(?<=\])\s*,\s*(?=\w+\[)")
# name -> number of arguments (the last takes the rest of the text, commas and all)
ARITY = {"RetrieveNode": 1, "NodeFeature": 2, "NeighbourCheck": 2, "NodeDegree": 2, "Finish": 1}
INVALID = ("Invalid action. Valid actions are RetrieveNode[keyword], NodeFeature[id, feature], "
           "NeighbourCheck[id, neighbour_type], NodeDegree[id, neighbour_type] and Finish[answer].")


def parse_actions(text: str) -> list[tuple[str, list[str]] | None]:
    """Each comma-separated action as (name, arguments), or None where one does not parse."""
    actions = []
    for part in _BETWEEN_ACTIONS.split(text.strip()):
        match = ACTION.match(part.strip())
        if match is None or match.group(1) not in ARITY:
            actions.append(None)
            continue
        name, arity = match.group(1), ARITY[match.group(1)]
        args = [a.strip() for a in match.group(2).split(", ", arity - 1)]
        actions.append((name, args) if len(args) == arity else None)
    return actions


_PAULING = "Thought 1: I need the node of Linus Pauling.\nAction 1: RetrieveNode[Linus Pauling]\nObservation 1: l217"
_PAULING_2 = (f"{_PAULING}\nThought 2: His prizes are his neighbours of type prize.\n"
              "Action 2: NeighbourCheck[l217, prize]\nObservation 2: ['prize_chemistry_1954', 'prize_peace_1962']")
_PAULING_3 = (f"{_PAULING_2}\nThought 3: The Peace prize is prize_peace_1962; its year is a feature.\n"
              "Action 3: NodeFeature[prize_peace_1962, year]\nObservation 3: 1962")
_QUESTION = "In which year did Linus Pauling receive the Nobel Peace Prize?"
DEMOS = [
    dspy.Example(question=_QUESTION, scratchpad=pad, thought=thought, action=action).with_inputs("question", "scratchpad")
    for pad, thought, action in [
        ("", "I need the node of Linus Pauling.", "RetrieveNode[Linus Pauling]"),
        (_PAULING, "His prizes are his neighbours of type prize.", "NeighbourCheck[l217, prize]"),
        (_PAULING_2, "The Peace prize is prize_peace_1962; its year is a feature.",
         "NodeFeature[prize_peace_1962, year]"),
        (_PAULING_3, "Linus Pauling received the Nobel Peace Prize in 1962.", "Finish[1962]"),
    ]
]


class CoTStep(dspy.Module):
    """One Graph-CoT step: its instructions end with the graph's schema, all of it, or on a large
    schema (glm_dspy.prompts.function_docs) the question's relations, the way Act's do."""

    def __init__(self, graph, max_tokens: int):
        super().__init__()
        self.graph = graph
        self.large = graph is not None and is_large(graph.schema)
        schema = (self._schema(graph.schema.summary()) if graph is not None and not self.large else "")
        self.predict = dspy.Predict(GraphCoTStep.with_instructions(GraphCoTStep.instructions + schema),
                                    max_tokens=max_tokens)
        self.predict.demos = list(DEMOS)
        # ((question, instructions), the signature with that question's schema): the loop's steps share one
        self._pruned: tuple[tuple[str, str], type[dspy.Signature]] | None = None

    def _schema(self, summary: str) -> str:
        return f"\n\nThe graph ({self.graph.schema.name}):\n{summary}"

    def signature(self, question: str) -> type[dspy.Signature]:
        signature = self.predict.signature
        if not self.large:
            return signature
        key, pruned = (question, signature.instructions), self._pruned
        if pruned is None or pruned[0] != key:
            summary = self._schema(schema_summary(self.graph, question))
            pruned = self._pruned = (key, signature.with_instructions(signature.instructions + summary))
        return pruned[1]

    def forward(self, question: str, scratchpad: str, config: dict | None = None) -> dspy.Prediction:
        return self.predict(question=question, scratchpad=scratchpad, signature=self.signature(question),
                            config=config or {})


class GraphCoT(dspy.Module):
    def __init__(self, graph, *, max_steps: int = DEFAULT_MAX_STEPS, max_tokens: int = 160):
        super().__init__()
        assert max_steps >= 1
        self.graph = graph
        self.max_steps = max_steps
        self.step = CoTStep(graph, max_tokens)
        self.adapter = GLMAdapter()

    def forward(self, question: str) -> dspy.Prediction:
        log, scratchpad, answer, category = StepLog(), "", None, STEP_LIMIT
        with dspy.context(adapter=self.adapter):
            for n in range(1, self.max_steps + 1):
                prediction, step = call_agent("graphcot", self.step, question=question, scratchpad=scratchpad)
                log.add(step)
                if prediction is None:
                    category = UNEXPECTED_OUTPUT
                    break
                thought, action = " ".join(prediction.thought.split()), prediction.action.strip()
                step.code = action
                actions = parse_actions(action)
                finish = [args[0] for name, args in filter(None, actions) if name == "Finish"]
                if finish:
                    answer, category = finish[0], None
                    break
                observation = "; ".join(self._run(parsed) for parsed in actions)
                step.output = observation
                scratchpad += ("\n" if scratchpad else "") + (
                    f"Thought {n}: {thought}\nAction {n}: {action}\nObservation {n}: {observation}")
        return log.prediction(answer, category, scratchpad=scratchpad)

    def _run(self, parsed: tuple[str, list[str]] | None) -> str:
        if parsed is None:
            return INVALID
        name, args = parsed
        retriever = self.graph.retriever
        function = {"RetrieveNode": retriever.retrieve_node, "NodeFeature": retriever.node_feature,
                    "NeighbourCheck": retriever.neighbour_check, "NodeDegree": retriever.node_degree}[name]
        try:
            text = str(function(*args))
        except ValueError as exc:  # a call over the retriever's limits (a hub's NeighbourCheck)
            text = str(exc)
        return text if len(text) <= MAX_OBSERVATION_CHARS else text[:MAX_OBSERVATION_CHARS] + " ..."
