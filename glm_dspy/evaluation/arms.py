"""The arms `glm-dspy eval --programs` can run (glm_dspy/evaluation/evaluate.py `make_program` builds each).

Its own module, importing nothing, so the CLI checks arm names before it loads a model.
"""

# glm-greedy: GLM drawing no further snippets when the first fails (samples=0); glm-no-readings: GLM
# without the readings (readings=False); glm-unsure-agents: GLM handing a reading it is not sure of
# to Algorithm 1 at once, with no pick among the readings (unsure="agents"); glm-judge: GLM's pick
# the reading the model judges likeliest, one yes/no each (unsure="judge"); each for the on/off
# comparison with glm
ARMS = ("glm", "glm-greedy", "graphcot", "graphrag", "textrag", "base", "text2cypher", "counselor",
        "fasttog", "glm-cypher", "glm-python", "glm-no-readings", "glm-unsure-agents", "glm-judge")


def parse_arms(text: str) -> list[str]:
    """The arms of a comma-separated list, in order; an unknown or repeated name, or none, is a
    ValueError naming the known arms."""
    arms = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in arms if name not in ARMS]
    if unknown:
        raise ValueError(f"unknown arm{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
                         f"known arms: {', '.join(ARMS)}")
    if not arms:
        raise ValueError(f"no arm named; give one or more of: {', '.join(ARMS)}")
    if len(set(arms)) != len(arms):
        raise ValueError(f"an arm is named twice in {text!r}; name each once")
    return arms
