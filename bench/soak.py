"""Soak test of `glm-dspy serve`: many concurrent clients for a set time; errors and memory over time.

    python -m glm_dspy.bench.soak --minutes 10                   # starts the service on data/nobel, 64 clients
    python -m glm_dspy.bench.soak --url http://127.0.0.1:8000    # a service already running (memory: --pid)
    python -m glm_dspy.bench.soak --quick                        # 2 minutes, 16 clients

Not part of `make test`. Each client asks questions from the dataset's dev split in a loop
(POST /v1/ask) until the time is up; a request that does not get a 200 with an answer body is an
error. Every `--every` seconds it samples the service's resident memory (the process and its
children: snippet workers) and /metrics' questions in flight. Prints one table (a row a sample),
then one JSON line: questions answered, errors, latency p50/p95, memory at the first and last
sample and its growth per hour after the first quarter (warm-up: the KV cache and the worker pool
fill first).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path


def rss_mb(pid: int) -> float:
    import psutil

    process = psutil.Process(pid)
    total = process.memory_info().rss
    for child in process.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.Error:
            pass
    return total / 2**20


def wait_healthy(url: str, process: subprocess.Popen | None, timeout_s: float = 300) -> None:
    import httpx

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise SystemExit(f"the service exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(1)
    raise SystemExit(f"{url} did not become healthy in {timeout_s:.0f} s")


def main(argv: list[str] | None = None) -> int:
    import httpx

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="2 minutes, 16 clients")
    parser.add_argument("--minutes", type=float, default=None, help="default 10 (2 with --quick)")
    parser.add_argument("--clients", type=int, default=None, help="concurrent clients (default 64; 16 --quick)")
    parser.add_argument("--every", type=float, default=15.0, help="seconds between memory samples")
    parser.add_argument("--url", default=None, help="a running service (default: start one)")
    parser.add_argument("--pid", type=int, default=None, help="the running service's pid, for its memory")
    parser.add_argument("--db", type=Path, default=Path("data/nobel"))
    parser.add_argument("--dataset", default="nobel")
    parser.add_argument("--concurrency", type=int, default=4, help="the started service's --concurrency")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args(argv)
    minutes = args.minutes or (2.0 if args.quick else 10.0)
    clients = args.clients or (16 if args.quick else 64)

    from glm_dspy.graphs.datasets import load_questions

    questions = [q.question for q in load_questions(args.dataset, args.db, split="dev")]
    process, url, pid = None, args.url, args.pid
    journal = Path("runs") / f"soak-{int(time.time())}.sqlite"
    if url is None:
        url = f"http://127.0.0.1:{args.port}"
        process = subprocess.Popen([sys.executable, "-m", "glm_dspy.cli", "serve", "--db", str(args.db), "--port",
                                    str(args.port), "--journal", str(journal), "--concurrency", str(args.concurrency)],
                                   env={**os.environ, "HF_HUB_OFFLINE": "1"})
        pid = process.pid
    try:
        wait_healthy(url, process)
        stop_at = time.monotonic() + minutes * 60
        lock = threading.Lock()
        latencies, errors, error_kinds = [], 0, {}

        def client(seed: int) -> None:
            nonlocal errors
            rng = random.Random(seed)
            with httpx.Client(timeout=600) as http:
                while time.monotonic() < stop_at:
                    started = time.perf_counter()
                    try:
                        response = http.post(f"{url}/v1/ask", json={"question": rng.choice(questions)})
                        ok = response.status_code == 200 and "answer" in response.json()
                        kind = None if ok else f"HTTP {response.status_code}"
                    except (httpx.HTTPError, ValueError) as error:
                        ok, kind = False, type(error).__name__
                    with lock:
                        if ok:
                            latencies.append(time.perf_counter() - started)
                        else:
                            errors += 1
                            error_kinds[kind] = error_kinds.get(kind, 0) + 1

        threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        samples = []
        while time.monotonic() < stop_at:
            time.sleep(min(args.every, max(0.0, stop_at - time.monotonic())))
            with lock:
                answered, failed = len(latencies), errors
            samples.append((time.monotonic() - started, rss_mb(pid) if pid else float("nan"), answered, failed))
        for thread in threads:
            thread.join()
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=120)
    print(f"soak: {clients} clients for {minutes:g} min against {url}\n")
    print("| time s | service RSS MB | answered | errors |")
    print("|---|---|---|---|")
    for at, rss, answered, failed in samples:
        print(f"| {at:.0f} | {rss:,.0f} | {answered} | {failed} |")
    warm = [s for s in samples if s[0] >= samples[-1][0] / 4] or samples
    hours = (warm[-1][0] - warm[0][0]) / 3600
    ordered = sorted(latencies)
    headline = {"clients": clients, "minutes": minutes, "answered": len(latencies), "errors": errors,
                "error_kinds": error_kinds,
                "latency_p50_s": round(ordered[len(ordered) // 2], 2) if ordered else None,
                "latency_p95_s": round(ordered[int(0.95 * (len(ordered) - 1))], 2) if ordered else None,
                "rss_first_mb": round(samples[0][1]), "rss_last_mb": round(samples[-1][1]),
                "rss_growth_mb_per_hour_after_warmup": round((warm[-1][1] - warm[0][1]) / hours) if hours else None}
    print(json.dumps(headline))
    return 0 if errors == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
