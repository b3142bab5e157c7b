"""The five DSPy optimizers `python -m glm_dspy.optimize.compile --optimizer NAME` runs, as dspy 3.4.1 builds them.

Each `run_*` takes the program with its hand-written demos pinned (optimize/pinned.py), the
training and validation examples, a `Budget` and the `proposer` (the LM that writes new
instructions and rules: GEPA's reflection LM, MIPROv2's and SIMBA's prompt model; None: the
program's own LM), and returns DSPy's compiled program; no search of our own. What each needs
and spends (G: one GLM run on one question, 2-6 calls):

- bootstrap    BootstrapFewShot: runs training questions in order until `max_demos` runs are
               clean (optimize/metric.py), at most `train` G; no score is compared.
- random-search BootstrapFewShotWithRandomSearch: `candidates` bootstrapped demo sets plus
               the hand-written program, each scored on the validation questions:
               about (candidates + 3) x val G plus the bootstrapping.
- mipro        MIPROv2 (needs optuna: pip install -e '.[optimize]'): bootstrapped demo sets and
               instructions proposed by the proposer, `trials` minibatches of
               `minibatch` questions searched by optuna's TPE, full validation every 5 trials.
- gepa         GEPA: reflective instruction evolution; the reflection LM is the proposer
               (default: the program's LM) at temperature 1.0, the metric returns per-agent feedback
               (metric.feedback_score); stops after `metric_calls` G. Rewrites instructions only,
               of every agent the minibatch's runs called at once (component_selector "all":
               round robin would spend most proposals on agents a run never calls, e.g.
               Python Act and Reason where Act answers in Cypher).
- simba        SIMBA: `steps` minibatches of `batch` questions, `candidates` variants each
               (new demos or rules appended to instructions, proposed by the proposer), then
               the winners on the whole training set: about steps x batch x (2 candidates + 1)
               + (candidates + 1) x train G; needs train >= batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import dspy

from glm_dspy.optimize.metric import feedback_score, score

OPTIMIZERS = ("bootstrap", "random-search", "mipro", "gepa", "simba")


@dataclass(frozen=True, slots=True)
class Budget:
    """The sizes an optimizer may spend; see the module doc for what each means to which optimizer."""

    max_demos: int = 2
    candidates: int = 4
    trials: int = 6
    minibatch: int = 10
    metric_calls: int = 150
    steps: int = 3
    batch: int = 8
    threads: int = 1
    seed: int = 0

    def __post_init__(self):
        assert self.max_demos >= 0 and self.candidates >= 1 and self.trials >= 1 and self.minibatch >= 1
        assert self.metric_calls >= 1 and self.steps >= 1 and self.batch >= 1 and self.threads >= 1


def run_bootstrap(program, trainset, valset, budget: Budget, proposer: dspy.LM | None = None):
    from dspy.teleprompt import BootstrapFewShot

    optimizer = BootstrapFewShot(metric=score, max_bootstrapped_demos=budget.max_demos, max_labeled_demos=0,
                                 max_rounds=1)
    return optimizer.compile(program, trainset=trainset)


def run_random_search(program, trainset, valset, budget: Budget, proposer: dspy.LM | None = None):
    from dspy.teleprompt import BootstrapFewShotWithRandomSearch

    optimizer = BootstrapFewShotWithRandomSearch(metric=score, max_bootstrapped_demos=budget.max_demos,
                                                 max_labeled_demos=0, num_candidate_programs=budget.candidates,
                                                 num_threads=budget.threads)
    return optimizer.compile(program, trainset=trainset, valset=valset)


def run_mipro(program, trainset, valset, budget: Budget, proposer: dspy.LM | None = None):
    try:
        import optuna  # noqa: F401
    except ImportError:
        raise RuntimeError("--optimizer mipro needs optuna: pip install -e '.[optimize]'") from None
    from dspy.teleprompt import MIPROv2

    optimizer = MIPROv2(metric=score, prompt_model=proposer, auto=None, num_candidates=budget.candidates,
                        max_bootstrapped_demos=budget.max_demos,
                        max_labeled_demos=0, num_threads=budget.threads, seed=budget.seed)
    # program_aware_proposer off: it puts the program's source (GLM's signatures and modules, 14k
    # tokens) in every proposal prompt, past an 8k-context proposer such as qwen2.5-coder-1.5b
    return optimizer.compile(program, trainset=trainset, valset=valset, num_trials=budget.trials,
                             minibatch_size=min(budget.minibatch, len(valset)), minibatch=len(valset) > budget.minibatch,
                             program_aware_proposer=False)


def run_gepa(program, trainset, valset, budget: Budget, proposer: dspy.LM | None = None):
    from dspy.teleprompt import GEPA

    reflection_lm = (proposer or dspy.settings.lm).copy(temperature=1.0)
    optimizer = GEPA(metric=feedback_score, max_metric_calls=budget.metric_calls, reflection_lm=reflection_lm,
                     num_threads=budget.threads, seed=budget.seed, track_stats=False, component_selector="all")
    return optimizer.compile(program, trainset=trainset, valset=valset)


def run_simba(program, trainset, valset, budget: Budget, proposer: dspy.LM | None = None):
    from dspy.teleprompt import SIMBA

    if len(trainset) < budget.batch:
        raise ValueError(f"SIMBA needs at least --batch {budget.batch} training questions, got {len(trainset)}")
    optimizer = SIMBA(metric=score, bsize=budget.batch, num_candidates=budget.candidates, max_steps=budget.steps,
                      max_demos=budget.max_demos, prompt_model=proposer, num_threads=budget.threads)
    return optimizer.compile(program, trainset=trainset, seed=budget.seed)


RUNNERS = {"bootstrap": run_bootstrap, "random-search": run_random_search, "mipro": run_mipro, "gepa": run_gepa,
           "simba": run_simba}
assert tuple(RUNNERS) == OPTIMIZERS
