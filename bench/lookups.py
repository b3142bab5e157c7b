"""Single-entity lookups on the real model, whichever way Classify goes: answers and calls per path.

    python -m glm_dspy.bench.lookups --quick      # make demo's 3 questions, ~2 min after the engine starts
    python -m glm_dspy.bench.lookups              # 10 Nobel lookups

Greedy decoding differs between CPUs, and with it Classify's decision: the same lookup takes the
deterministic path on one machine and the notebook loop on another. A lookup must come out right
and cheap on both. Arms, on the same questions and the same engine: GLM as shipped (Classify
decides), and GLM with each path forced (`GLM(graph, kind=...)`, no Classify call; its calls are
reported +1 so all arms count the same Classify). Prints one table, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path

QUICK_QUESTIONS = [  # make demo's (glm_dspy/cli/demo.py)
    ("In which year did Marie Curie receive the Nobel Prize in Physics?", "1903"),
    ("When was Marie Curie born?", "1867-11-07"),
    ("When did Niels Bohr die?", "1962-11-18"),
]
QUESTIONS = QUICK_QUESTIONS + [
    ("In which city was Niels Bohr born?", "Copenhagen"),
    ("When was Max Born born?", "1882-12-11"),
    ("How many students did Niels Bohr mentor?", "3"),
    ("When did Albert Einstein die?", "1955-04-18"),
    ("In which year did Linus Pauling receive the Nobel Prize in Chemistry?", "1954"),
    ("What is the full name of Marie Curie?", "Marie Curie, née Skłodowska"),
    ("When was Enrico Fermi born?", "1901-09-29"),
]
ARMS = {"classify decides": None, "deterministic path": "deterministic", "notebook loop": "non_deterministic"}


@dataclass(slots=True)
class ArmResult:
    num_right: int = 0
    calls: list[int] = field(default_factory=list)
    prompt_tokens: list[int] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="make demo's 3 questions")
    parser.add_argument("--db", type=Path, default=Path("data/nobel"))
    parser.add_argument("--model", default=None, help="default: the default local model")
    args = parser.parse_args(argv)
    if not (args.db / "meta.json").exists():
        raise SystemExit(f"no graph at {args.db}: run `make graph` (or glm-dspy build nobel --db {args.db})")

    import glm_dspy
    from glm_dspy.graph import open_graph
    from glm_dspy.modules.glm import GLM

    questions = QUICK_QUESTIONS if args.quick else QUESTIONS
    glm_dspy.configure(args.model)
    results = {arm: ArmResult() for arm in ARMS}
    with open_graph(args.db) as graph:
        for question, expected in questions:  # arms interleaved per question: the same cache warmth
            for arm, kind in ARMS.items():
                prediction = GLM(graph, kind=kind, readings=False)(question=question)
                result = results[arm]
                if expected.lower() in prediction.answer.lower():
                    result.num_right += 1
                else:
                    result.wrong.append(f"{question} -> {prediction.answer[:60]!r}")
                result.calls.append(prediction.num_calls + (kind is not None))
                result.prompt_tokens.append(prediction.prompt_tokens)

    print(f"\nlookups: {len(questions)} Nobel questions, model {args.model or 'default'}")
    print(f"{'arm':<20}{'right':>7}{'calls mean':>11}{'calls max':>10}{'prompt tok':>11}")
    for arm, result in results.items():
        print(f"{arm:<20}{result.num_right:>4}/{len(questions):<2}{statistics.mean(result.calls):>11.2f}"
              f"{max(result.calls):>10}{statistics.mean(result.prompt_tokens):>11,.0f}")
    for arm, result in results.items():
        for line in result.wrong:
            print(f"  wrong ({arm}): {line}")
    headline = {"questions": len(questions)}
    for arm, result in results.items():
        name = ARMS[arm] or "classify"
        headline |= {f"right_{name}": result.num_right, f"calls_mean_{name}": round(statistics.mean(result.calls), 2),
                     f"calls_max_{name}": max(result.calls)}
    print(json.dumps(headline))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
