"""Hand-written demos that DSPy's optimizers cannot drop.

Every DSPy optimizer starts from `student.reset_copy()`, which empties each predictor's
demos, and then writes its own (BootstrapFewShot, random search, MIPROv2, SIMBA). GLM's
agents rely on their hand-written demos (glm_dspy/prompts/fewshot.py): without them the 0.5B model
writes snippets against functions it has never seen used, so a search that scored
candidates without them would choose for a program nobody runs.

`pin_demos(program)` swaps each predictor for a `PinnedPredict` that holds the hand-written
demos in `pinned` (kept by reset and by deep copies) and puts them first in every prompt,
before the demos the optimizer chose (`demos`). `unpin_demos(program)` turns them back into
plain `dspy.Predict`s whose demos are pinned + chosen (chosen ones equal to a pinned one
dropped): the same prompts, saved in the same state JSON as a hand-built program.
"""

from __future__ import annotations

import dspy


class PinnedPredict(dspy.Predict):
    """A Predict whose `pinned` demos come before `demos` in every call and survive `reset()`."""

    def __init__(self, signature, pinned=(), **config):
        super().__init__(signature, **config)
        self.pinned = list(pinned)

    def _with_pinned(self, kwargs: dict) -> dict:
        if "demos" not in kwargs:
            kwargs["demos"] = [*self.pinned, *(d for d in self.demos if d not in self.pinned)]
        return kwargs

    def forward(self, **kwargs):
        return super().forward(**self._with_pinned(kwargs))

    async def aforward(self, **kwargs):
        return await super().aforward(**self._with_pinned(kwargs))


def _parents(program: dspy.Module):
    """(owner module, attribute name, predictor) for each named predictor of `program`."""
    for name, predictor in program.named_predictors():
        owner_path, _, attribute = name.rpartition(".")
        owner = program
        for part in owner_path.split(".") if owner_path else ():
            owner = getattr(owner, part)
        assert getattr(owner, attribute) is predictor, name
        yield owner, attribute, predictor


def pin_demos(program: dspy.Module) -> dspy.Module:
    """A deep copy of `program` whose predictors hold their current demos pinned (module doc)."""
    program = program.deepcopy()
    for owner, attribute, predictor in list(_parents(program)):
        pinned = PinnedPredict(predictor.signature, predictor.demos, **predictor.config)
        pinned.lm = predictor.lm
        setattr(owner, attribute, pinned)
    return program


def unpin_demos(program: dspy.Module) -> dspy.Module:
    """`program` with plain predictors again, demos = pinned + chosen; instructions kept."""
    for owner, attribute, predictor in list(_parents(program)):
        if not isinstance(predictor, PinnedPredict):
            continue
        plain = dspy.Predict(predictor.signature, **predictor.config)
        plain.demos = [*predictor.pinned, *(d for d in predictor.demos if d not in predictor.pinned)]
        plain.lm = predictor.lm
        setattr(owner, attribute, plain)
    return program
