"""One GLM program over several graphs: what a compile on several datasets trains.

An agent's instructions and demos say nothing about a graph (the graph's schema reaches Act
through its context and Text2Cypher through its inputs), so one set of agents can answer
questions on every graph. `OnGraphs` holds one GLM per graph and exposes the first one's
predictors only: an optimizer sees, changes and saves one set of agents, and every question,
whichever graph it asks about (its example's `graph` input), is answered by them. That keeps
what the optimizer learns from being about one graph's names, and lets the result be the
model's default on any graph.

The others borrow the first program's predictors at each call (`share_agents`), so they follow
whatever an optimizer did to them: swapped them for pinned copies, rewrote an instruction.
`deepcopy` copies every program, so candidates an optimizer scores at once share nothing.
"""

from __future__ import annotations

import dspy


def _owner(program: dspy.Module, name: str):
    """(the module holding the predictor `name` of `program`, its attribute name)."""
    path, _, attribute = name.rpartition(".")
    owner = program
    for part in path.split(".") if path else ():
        owner = getattr(owner, part)
    return owner, attribute


def share_agents(source: dspy.Module, target: dspy.Module) -> None:
    """Make `target`'s predictors the very objects of `source` (the same names, else ValueError)."""
    theirs = dict(source.named_predictors())
    mine = [name for name, _ in target.named_predictors()]
    if sorted(mine) != sorted(theirs):
        raise ValueError(f"the programs have different agents: {sorted(theirs)} and {sorted(mine)} "
                         "(is one graph's Act in Cypher and the other's in Python?)")
    for name in mine:
        owner, attribute = _owner(target, name)
        if getattr(owner, attribute) is not theirs[name]:
            setattr(owner, attribute, theirs[name])


class OnGraphs(dspy.Module):
    def __init__(self, programs: dict[str, dspy.Module]):
        """`programs`: graph name -> a GLM over that graph; the first one's agents answer on all."""
        super().__init__()
        if not programs:
            raise ValueError("OnGraphs needs at least one program")
        (self.first, self.program), *others = programs.items()
        # a tuple of pairs, not a dict: dspy.Module.named_parameters looks into dicts, and the
        # others' predictors must not be parameters of their own
        self.others = tuple(others)
        for _, other in self.others:
            share_agents(self.program, other)

    @property
    def graphs(self) -> tuple[str, ...]:
        return (self.first, *(name for name, _ in self.others))

    def forward(self, question: str, graph: str) -> dspy.Prediction:
        if graph == self.first:
            return self.program(question=question)
        for name, other in self.others:
            if name == graph:
                share_agents(self.program, other)
                return other(question=question)
        raise ValueError(f"no program for graph {graph!r}; have {list(self.graphs)}")

    def deepcopy(self) -> "OnGraphs":
        copy = self.__class__.__new__(self.__class__)
        copy.__dict__.update(self.__dict__)
        copy.program = self.program.deepcopy()
        copy.others = tuple((name, other.deepcopy()) for name, other in self.others)
        for _, other in copy.others:
            share_agents(copy.program, other)
        return copy
