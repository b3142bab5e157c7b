"""The prompts a GLM program sends, without sending them: for save/load checks and the prefix report.

`agent_messages(program, question)` formats one call of each agent (Classify and Act on the
question, Reason on an empty notebook, and where Act answers in Cypher its first query, with
the question's pruned schema and nearest examples) with the program's own adapter, demos and
instructions (Act's with the graph context), exactly as the agents' calls would format them.
`prefix_tokens(messages, renderer)` is the length of the stable prefix of that prompt in
tokens (glm_dspy.lm.render, tier PREFIX: the system message with the instructions, every demo
turn, the final role header): what the KV cache keeps across calls, and what longer demos
cost on a miss.
"""

from __future__ import annotations

from glm_dspy.backends.vllm_priority.hints import Tier

AGENTS = ("classify", "reason", "act", "cypher")


def _demos(predictor) -> list:
    pinned = getattr(predictor, "pinned", None)  # glm_dspy.optimize.pinned.PinnedPredict during a search
    return [*pinned, *(d for d in predictor.demos if d not in pinned)] if pinned is not None else list(predictor.demos)


def agent_messages(program, question: str) -> dict[str, list[dict[str, str]]]:
    calls = {
        "classify": (program.classify.predict, program.classify.predict.signature, {"question": question}),
        "reason": (program.reason.predict, program.reason.predict.signature, {"notebook": "", "question": question}),
        "act": (program.act.predict, program.act.signature(question), {"request": question, "previous_code": "", "error": ""}),
    }
    messages = {agent: program.adapter.format(signature, _demos(predictor), inputs)
                for agent, (predictor, signature, inputs) in calls.items()}
    cypher = getattr(program, "cypher", None)
    if cypher is not None:
        inputs = {"tables": cypher.prune(question), "examples": cypher.nearest_examples(question),
                  "question": question, "previous_query": "", "error": ""}
        messages["cypher"] = cypher.adapter.format(cypher.generate.signature, _demos(cypher.generate), inputs)
    return messages


def prefix_tokens(messages: list[dict[str, str]], renderer) -> int:
    """Tokens of the stable prefix of `messages` as `renderer` (a glm_dspy.lm.PromptRenderer) cuts them."""
    prompt = renderer.render(messages)
    return sum(end - start for start, end in prompt.ranges(Tier.PREFIX))


def prefix_lengths(program, question: str, renderer) -> dict[str, int] | None:
    """Each agent's stable-prefix tokens; None without a renderer (an LM that is not glm_dspy's)."""
    if renderer is None:
        return None
    return {agent: prefix_tokens(messages, renderer) for agent, messages in agent_messages(program, question).items()}
