"""Act under its grammar vs free decoding: first-try snippets, decoding speed, the grammar's compile time.

    python -m glm_dspy.bench.grammar --quick      # 10 Nobel dev questions, ~3 min after the engine starts
    python -m glm_dspy.bench.grammar              # 40

Arms, on the same dev questions and the same engine, interleaved per question (the same cache
warmth): Act's first snippet for the question decoded under the graph's grammar
(glm_dspy/grammar/snippet.py) and decoded freely. Per arm: the share of snippets that ran and
printed a real result (not only graph-function messages), the share that named a feature or
neighbour type the graph does not have, and output tokens per second of the Act calls (the
engine's own count over each call's latency; decoding dominates an Act call, the prompt prefix
is cached). Also the grammar's size and its compile time for the model's tokenizer with xgrammar
(what vLLM does once per engine: its compiled grammars are cached). One table, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

ARMS = {"grammar": True, "free": False}


@dataclass(slots=True)
class ArmResult:
    num_ok: int = 0
    num_unknown_names: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)


def unknown_names(code: str, features: set[str], neighbour_types: set[str]) -> list[str]:
    """Literal names in NodeFeature / NeighbourCheck / NodeDegree calls that the graph does not
    have, read off the parsed snippet (none if it does not parse)."""
    import ast

    valid = {"NodeFeature": features, "NeighbourCheck": neighbour_types, "NodeDegree": neighbour_types}
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    return [call.args[1].value for call in ast.walk(tree)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in valid
            and len(call.args) == 2 and isinstance(call.args[1], ast.Constant)
            and isinstance(call.args[1].value, str) and call.args[1].value not in valid[call.func.id]]


def compile_seconds(grammar: str, model_path: str) -> float:
    import xgrammar as xgr
    from transformers import AutoTokenizer

    info = xgr.TokenizerInfo.from_huggingface(AutoTokenizer.from_pretrained(model_path))
    started = time.perf_counter()
    xgr.GrammarCompiler(info, cache_enabled=False).compile_grammar(grammar)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10 questions instead of 40")
    parser.add_argument("--db", type=Path, default=Path("data/nobel"))
    parser.add_argument("--model", default=None, help="default: the default local model")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not (args.db / "meta.json").exists():
        raise SystemExit(f"no graph at {args.db}: run `make graph` (or glm-dspy build nobel --db {args.db})")

    import random

    import dspy

    import glm_dspy
    from glm_dspy.prompts.adapter import GLMAdapter
    from glm_dspy.prompts.function_docs import graph_context
    from glm_dspy.graph import open_graph
    from glm_dspy.lm.models import resolve_model
    from glm_dspy.modules.act import ActAgent
    from glm_dspy.modules.calls import call_agent
    from glm_dspy.graphs.datasets import load_questions

    questions = load_questions("nobel", args.db, split="dev")
    random.Random(args.seed).shuffle(questions)
    questions = questions[: 10 if args.quick else 40]
    lm = glm_dspy.configure(args.model)
    results = {arm: ArmResult() for arm in ARMS}
    with open_graph(args.db) as graph:
        grammar = graph.act_grammar()
        features, neighbour_types = map(set, graph.schema.names())
        executor = graph.executor()
        agents = {arm: ActAgent(graph_context(graph.schema), grammar=grammar if constrained else None)
                  for arm, constrained in ARMS.items()}
        for question in questions:
            for arm, agent in agents.items():
                result = results[arm]
                with dspy.context(adapter=GLMAdapter()):
                    prediction, step = call_agent("act", agent, request=question.question, previous_code="",
                                                  error="")
                call = lm.engine.calls[-1]
                result.output_tokens += call.num_output_tokens or 0
                result.seconds += call.latency_s
                code = prediction.code if prediction is not None else ""
                run = executor.run(code) if code else None
                if run is not None and run.is_ok and run.output.strip() and not run.is_observation_only:
                    result.num_ok += 1
                else:
                    result.failures.append(f"{question.qid}: {(run.error or run.output)[:80] if run else 'unparseable'}")
                result.num_unknown_names += bool(unknown_names(code, features, neighbour_types))
        seconds = compile_seconds(grammar, resolve_model(args.model))

    n = len(questions)
    print(f"\nAct's first snippet on {n} Nobel dev questions, model {args.model or 'default'}; "
          f"grammar {len(grammar):,} characters, compiled in {seconds:.2f} s")
    print(f"{'arm':<10}{'ran ok':>9}{'unknown names':>15}{'out tok/s':>11}")
    for arm, result in results.items():
        print(f"{arm:<10}{result.num_ok:>5}/{n:<3}{result.num_unknown_names:>11}/{n:<3}"
              f"{result.output_tokens / result.seconds:>11.1f}")
    for arm, result in results.items():
        for line in result.failures:
            print(f"  failed ({arm}): {line}")
    grammar_row, free_row = results["grammar"], results["free"]
    print(json.dumps({
        "questions": n, "first_try_grammar": round(grammar_row.num_ok / n, 3),
        "first_try_free": round(free_row.num_ok / n, 3),
        "unknown_names_grammar": grammar_row.num_unknown_names, "unknown_names_free": free_row.num_unknown_names,
        "tokens_per_s_ratio": round((grammar_row.output_tokens / grammar_row.seconds)
                                    / (free_row.output_tokens / free_row.seconds), 3),
        "grammar_compile_s": round(seconds, 2)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
