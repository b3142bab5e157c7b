"""`glm-dspy eval`: every arm on the same questions in one run (GLM paper §6.2–6.8).

    glm-dspy eval --dataset nobel --db data/nobel --programs glm,graphcot --limit 20

Per question and arm one JSONL record (answer, EM, ROUGE-L, judge verdict, prompt / cached /
completion tokens, LLM calls, latency, error category, the sampling temperatures the engine ran,
the question's tier and kind, Act requests and how many of them printed a real result on the first
try) goes to `<out>/results.jsonl` as soon as it is known, so an interrupted run resumes where it
stopped: finished (question, arm) pairs are skipped (records written before `tier`, `kind` and the
Act counts existed take the tier and kind from the question and are left out of the first-try
share). Then one table (rows: arms; EM with its 95% bootstrap interval, glm_dspy/evaluation/accuracy.py;
calls, prompt tokens a question and prompt tokens per right answer), EM per question kind (the
tier, or where a question has none the kind its file gives it), PNG charts (tokens, calls,
latency and accuracy per arm, after the paper's Figures 10, 11 and 14) and, last, one JSON line
of the headline figures, GLM vs Graph-CoT on the same questions. The judge is GRBench's prompt
(glm_dspy/evaluation/metrics.py) sent to `--judge-model` (default: the model under test).

A record's `judge` is the verdict: true, false (an empty answer is false without asking), or
null where no verdict exists (no judge LM, or a reply that is neither Yes nor No); the judge
score of an arm averages the verdicts only and says over how many. When the engine is lost
(died, closed, server unreachable) the run stops with an error naming the question: the
questions not yet recorded are answered by running the same command again.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from glm_dspy.evaluation.accuracy import em_by_kind, em_interval
from glm_dspy.evaluation.arms import ARMS
from glm_dspy.lm.observe import observe_calls
from glm_dspy.lm.transport import engine_lost
from glm_dspy.evaluation.metrics import JUDGE_SYSTEM, exact_match, judge_prompt, parse_judgement, rouge_l
from glm_dspy.runs.steps import act_first_tries
from glm_dspy.graphs.questions import Question

# an arm's own prediction fields kept in its records: FastToG's depth and communities read,
# Graph Counselor's rounds, Text2Cypher's cache hit and per-stage seconds
ARM_EXTRAS = ("depth", "communities", "rounds", "cache_hit", "stages", "guess")  # guess: GLM, not sure
TRACE_CHARS = 400  # per code/output/error field of a step in a record's trace


def make_program(arm: str, graph, glm_program: Path | None = None, *, concurrency: int = 1):
    """The arm's program; `glm_program` is a compiled GLM (`python -m glm_dspy.optimize.compile`) for the glm arms,
    None the hand-written one (the CLI resolves its default, glm_dspy/compiled/programs.py).

    GLM's snippet executor gets one worker per concurrent question (at least GLM's own 2), so
    `concurrency` questions never wait on each other's snippets; workers start on first use."""
    from glm_dspy.modules import GLM, BaseLLM, FastToG, GraphCounselor, GraphCoT, GraphRAG, TextRAG, Text2Cypher

    def glm(**options):
        executor = graph.executor(num_workers=max(2, concurrency))
        return GLM(graph, executor=executor, compiled=glm_program, **options)

    factories = {"glm": glm, "glm-greedy": lambda: glm(samples=0),
                 "graphcot": lambda: GraphCoT(graph),
                 "graphrag": lambda: GraphRAG(graph),
                 "textrag": lambda: TextRAG(graph), "base": BaseLLM,
                 "text2cypher": lambda: Text2Cypher(graph),
                 # Graph Counselor around GLM's Algorithm 1 (its paper has no readings)
                 "counselor": lambda: GraphCounselor(glm(readings=False)),
                 "fasttog": lambda: FastToG(graph),
                 "glm-cypher": lambda: glm(act="cypher"),  # GLM whose Act writes Cypher (Text2Cypher)
                 "glm-python": lambda: glm(act="python"),  # GLM whose Act writes Python snippets (the paper's)
                 # issue 31's lever: GLM reads the graph's readings first, the best fitting one
                 # answering (no call; the default, "glm"), or not (Algorithm 1 alone)
                 "glm-no-readings": lambda: glm(readings=False),
                 # issue 49's lever: where the best reading is not sure, the model picks among the
                 # readings first ("glm", the default), or Algorithm 1 decides at once
                 "glm-unsure-agents": lambda: glm(unsure="agents"),
                 # or the model judges each of the first readings yes or no (glm_dspy/modules/reading_judge.py)
                 "glm-judge": lambda: glm(unsure="judge")}
    if arm not in factories:
        raise ValueError(f"unknown program {arm!r}; choose from {', '.join(ARMS)}")
    return factories[arm]()


def read_results(path: Path) -> list[dict[str, Any]]:
    """Records written so far; a torn last line (an interrupted write) is dropped."""
    if not path.exists():
        return []
    records = []
    for line in path.read_text().splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            break
    return records


def _trace(steps: list[dict]) -> list[dict]:
    """What each step did, short enough to keep in every record (for error analysis, docs/benchmarks.md)."""
    return [{"agent": step["agent"], "attempt": step.get("attempt", 0), **({"sampled": True} if step.get("sampled") else {}),
             **{key: step[key][:TRACE_CHARS] for key in ("code", "output", "error") if step.get(key)},
             **({"rewrites": [r["name"] for r in step["rewrites"]]} if step.get("rewrites") else {})}
            for step in steps]


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, timeout=5).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def question_kind(question: Question) -> str:
    """The kind a question file gives a question besides its tier (natural_dev's "lookup", "set", ...), or ""."""
    kind = question.meta.get("kind")
    return kind if isinstance(kind, str) else ""


def train_qids(glm_program: Path) -> set[str]:
    """The training questions of a compiled program (glm_dspy.optimize.compile saves them next to it)."""
    path = Path(glm_program).with_suffix(".train.json")
    return set(json.loads(path.read_text())["train_qids"]) if path.exists() else set()


def run_eval(questions: list[Question], arms: list[str], graph, out_dir: Path, *, concurrency: int = 1,
             judge_lm=None, model: str = "", seed: int = 0, progress=None,
             glm_program: Path | None = None) -> list[dict[str, Any]]:
    """Answer every question with every arm (skipping pairs already in results.jsonl); return
    all records of this run's questions and arms."""
    import dspy

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "results.jsonl"
    finished = read_results(path)
    if path.exists():  # drop a torn last line so that appended records start on a line of their own
        path.write_text("".join(json.dumps(r) + "\n" for r in finished))
    done = {(r["qid"], r["arm"]) for r in finished}
    programs = {arm: make_program(arm, graph, glm_program, concurrency=concurrency) for arm in arms}
    todo = [(q, arm) for q in questions for arm in arms if (q.qid, arm) not in done]
    lock = threading.Lock()
    commit = _commit()
    lm = dspy.settings.lm

    def one(item):
        question, arm = item
        with dspy.context(lm=lm):  # worker threads see the caller's LM
            started_at, started = time.time(), time.perf_counter()
            steps, extras = [], {}
            try:
                prediction = programs[arm](question=question.question)
                answer, error, steps = prediction.answer, prediction.error_category, prediction.get("steps") or []
                extras = {k: prediction.get(k) for k in ARM_EXTRAS if prediction.get(k) is not None}
                usage = {k: prediction.get(k, 0) for k in ("prompt_tokens", "cached_tokens", "completion_tokens",
                                                           "num_calls")}
            except Exception as exc:  # one broken question must not end the run; it is recorded
                if _is_engine_lost(exc):  # ... but a lost engine fails every question after it: stop
                    raise
                answer, error, usage = "", f"{type(exc).__name__}: {exc}", {}
            latency = time.perf_counter() - started
            act_requests, act_first_try_ok = act_first_tries(steps)
            verdict = None if judge_lm is None else judge_answer(judge_lm, question, answer) if answer else False
        record = {"qid": question.qid, "arm": arm, "tier": question.tier, "kind": question_kind(question),
                  "question": question.question,
                  "gold": question.answer, "answer": answer,
                  "em": any(exact_match(answer, gold) for gold in question.golds),
                  "rouge_l": max(rouge_l(answer, gold) for gold in question.golds),
                  "judge": verdict, "latency_s": latency, "error_category": error,
                  "prompt_tokens": usage.get("prompt_tokens", 0), "cached_tokens": usage.get("cached_tokens", 0),
                  "completion_tokens": usage.get("completion_tokens", 0), "calls": usage.get("num_calls", 0),
                  "truncated_calls": sum(step.get("num_truncated", 0) for step in steps),
                  "act_requests": act_requests, "act_first_try_ok": act_first_try_ok,
                  "started_at": started_at, "finished_at": time.time(), "model": model, "commit": commit,
                  "seed": seed, "temperatures": sorted({t for step in steps for t in step.get("temperatures", ())}),
                  "glm_program": str(loaded) if (loaded := getattr(programs[arm], "program_path", None)) else None,
                  "extras": extras, "trace": _trace(steps)}
        with lock, path.open("a") as f:
            f.write(json.dumps(record) + "\n")
        if progress is not None:
            progress()
        return record

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = [pool.submit(one, item) for item in todo]
        for (question, arm), future in zip(todo, futures):
            try:
                future.result()
            except BaseException as exc:
                for other in futures:  # the engine is lost (or the run interrupted): start no more questions
                    other.cancel()
                if _is_engine_lost(exc):
                    raise RuntimeError(f"question {question.qid} ({arm}) stopped: {exc}\nThe answers so far are in "
                                       f"{path}; run the same command again to answer the rest (it resumes).") from exc
                raise
    wanted = {(q.qid, arm) for q in questions for arm in arms}
    by_qid = {q.qid: q for q in questions}
    records = [r | {"tier": r.get("tier", by_qid[r["qid"]].tier),  # records from before tiers and kinds:
                    "kind": r.get("kind", question_kind(by_qid[r["qid"]]))}  # the question's
               for r in read_results(path) if (r["qid"], r["arm"]) in wanted]
    (out_dir / "run.json").write_text(json.dumps({"wall_s": time.perf_counter() - started, "answered": len(todo)}))
    return records


def _is_engine_lost(error: BaseException | None) -> bool:
    """True if `error` or an exception it was raised from says the engine can answer no more calls."""
    return engine_lost(error) is not None


JUDGE_MAX_TOKENS = 8  # one word (GRBench); a longer reply stops here by design, and is not warned about


def judge_answer(lm, question: Question, answer: str) -> bool | None:
    """The judge's verdict on a non-empty answer; None if its reply is neither Yes nor No."""
    messages = [{"role": "system", "content": JUDGE_SYSTEM},
                {"role": "user", "content": judge_prompt(question.question, answer, question.answer)}]
    with observe_calls(expect_truncation=True):
        outputs = lm(messages=messages, temperature=0.0, max_tokens=JUDGE_MAX_TOKENS)
    first = outputs[0] if outputs else ""
    return parse_judgement(first["text"] if isinstance(first, dict) else first)


def busy_seconds(intervals: list[tuple[float, float]]) -> float:
    """The length of the union of (start, end) intervals: the wall time during which at least one
    of them was running."""
    total, reach = 0.0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total, reach = total + end - start, end
        elif end > reach:
            total, reach = total + end - reach, end
    return total


def summarize(records: list[dict[str, Any]], arms: list[str]) -> dict[str, dict[str, Any]]:
    """Per arm: EM with its 95% bootstrap interval (`em_lo`, `em_hi`) and per question kind
    (`em_by_tier`: the tier, or the question's own kind, glm_dspy/evaluation/accuracy.py `em_by_kind`),
    ROUGE-L, judge (the mean verdict over the `judged` questions that have one; None if none has),
    tokens (prompt + completion), `prompt_tokens` and `calls` per question, `num_right` (EM) and
    `prompt_tokens_per_right` (all its prompt tokens over `num_right`; None when none is right),
    latency p50/p95, questions/s, prefix-cache hit rate, error counts, and `first_try`: the share of the arm's
    Act requests whose first snippet printed a real result (steps.act_first_tries), over the
    `act_requests` of the records that counted them; None where there are none (an arm
    without Act, or records older than the counts).

    Questions/s is the arm's questions over the wall time during which at least one of them was
    being answered (`busy_seconds`): one at a time that is the sum of latencies; with
    --concurrency N it is the wall time of the run while the arm ran (arms run interleaved, so
    each arm's figure is its throughput while sharing the engine with the others)."""
    rows = {}
    for arm in arms:
        mine = [r for r in records if r["arm"] == arm]
        if not mine:
            continue
        latency = np.array([r["latency_s"] for r in mine])
        prompt = sum(r["prompt_tokens"] for r in mine)
        verdicts = [bool(r["judge"]) for r in mine if r.get("judge") is not None]
        busy = busy_seconds([_answering(r) for r in mine])
        overall = em_interval(mine)
        num_right = sum(bool(r["em"]) for r in mine)
        act_requests = sum(r.get("act_requests") or 0 for r in mine)
        first_ok = sum(r.get("act_first_try_ok") or 0 for r in mine)
        rows[arm] = {
            "n": len(mine), "em": overall["em"], "em_lo": overall["lo"], "em_hi": overall["hi"],
            "em_by_tier": em_by_kind(mine), "act_requests": act_requests,
            "first_try": first_ok / act_requests if act_requests else None,
            "rouge_l": float(np.mean([r["rouge_l"] for r in mine])),
            "judge": float(np.mean(verdicts)) if verdicts else None, "judged": len(verdicts),
            "tokens": float(np.mean([r["prompt_tokens"] + r["completion_tokens"] for r in mine])),
            "calls": float(np.mean([r["calls"] for r in mine])),
            "prompt_tokens": prompt / len(mine), "num_right": num_right,
            "prompt_tokens_per_right": prompt / num_right if num_right else None,
            "p50_s": float(np.percentile(latency, 50)), "p95_s": float(np.percentile(latency, 95)),
            "qps": len(mine) / busy if busy else 0.0,
            "hit_rate": sum(r["cached_tokens"] for r in mine) / prompt if prompt else 0.0,
            "errors": {c: sum(r["error_category"] == c for r in mine) for c in {r["error_category"] for r in mine} if c},
        }
    return rows


def _answering(record: dict[str, Any]) -> tuple[float, float]:
    """When the record's question was being answered (records before `started_at` existed:
    estimated from when it was finished, judge included)."""
    start = record.get("started_at", record["finished_at"] - record["latency_s"])
    return start, start + record["latency_s"]


def judge_cell(row: dict[str, Any]) -> str:
    """The judge score for the table, with over how many questions it is: "0.750 (8/10)"."""
    if row["judge"] is None:
        return f"- (0/{row['n']})"
    return f"{row['judge']:.3f} ({row['judged']}/{row['n']})"


def headline(rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The last JSON line: GLM vs Graph-CoT ratios and scores; then, for every arm, its EM with the
    interval (`em_interval`: {em, lo, hi, n}), the same per question kind (`em_by_tier`: tier or
    kind -> {em, lo, hi, n}; the key's name predates kinds), its first-try Act share (`first_try`;
    None without Act requests) and its costs (`costs`: calls and prompt tokens a question, the
    number right and prompt tokens per right answer, None when none is right)."""
    glm, cot = rows.get("glm"), rows.get("graphcot")

    def ratio(a, b):
        return round(a / b, 4) if a is not None and b else None

    def judge(row):
        return None if row is None or row["judge"] is None else round(row["judge"], 4)

    return {"tokens_ratio": ratio(glm and glm["tokens"], cot and cot["tokens"]),
            "calls_glm": glm and round(glm["calls"], 3), "calls_graphcot": cot and round(cot["calls"], 3),
            "latency_ratio": ratio(glm and glm["p50_s"], cot and cot["p50_s"]),
            "judge_glm": judge(glm), "judge_graphcot": judge(cot),
            "em_glm": glm and round(glm["em"], 4), "em_graphcot": cot and round(cot["em"], 4),
            "em_interval": {arm: _rounded({"em": row["em"], "lo": row["em_lo"], "hi": row["em_hi"], "n": row["n"]})
                            for arm, row in rows.items()},
            "em_by_tier": {arm: {tier: _rounded(cell) for tier, cell in row["em_by_tier"].items()}
                           for arm, row in rows.items()},
            "first_try": {arm: None if row["first_try"] is None else round(row["first_try"], 4)
                          for arm, row in rows.items()},
            "costs": {arm: {"calls": round(row["calls"], 3), "prompt_tokens": round(row["prompt_tokens"], 1),
                            "num_right": row["num_right"],
                            "prompt_tokens_per_right": None if row["prompt_tokens_per_right"] is None
                            else round(row["prompt_tokens_per_right"], 1)}
                      for arm, row in rows.items()}}


def _rounded(cell: dict[str, float | int]) -> dict[str, float | int]:
    return {k: v if k == "n" else round(v, 4) for k, v in cell.items()}


def write_charts(rows: dict[str, dict[str, float]], out_dir: Path) -> list[Path]:
    """Bar charts per arm: tokens/question and calls/question (Fig. 10), latency p50 (Fig. 11),
    judge and EM accuracy (Fig. 14)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arms = list(rows)
    paths = []
    for name, metrics, label in [("tokens", ["tokens"], "tokens / question"), ("calls", ["calls"], "LLM calls / question"),
                                 ("latency", ["p50_s", "p95_s"], "latency (s)"), ("accuracy", ["judge", "em"], "score")]:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        width = 0.8 / len(metrics)
        for i, metric in enumerate(metrics):
            values = [np.nan if rows[a][metric] is None else rows[a][metric] for a in arms]  # no judge: no bar
            ax.bar(np.arange(len(arms)) + i * width, values, width, label=metric)
        ax.set_xticks(np.arange(len(arms)) + width * (len(metrics) - 1) / 2, arms)
        ax.set_ylabel(label)
        if len(metrics) > 1:
            ax.legend()
        fig.tight_layout()
        paths.append(out_dir / f"{name}.png")
        fig.savefig(paths[-1], dpi=100)
        plt.close(fig)
    return paths
