"""A wrong command line fails at once: before any model, engine, embedder or graph library is imported.

Each case runs `glm-dspy` in a fresh interpreter and reports which costly modules the failed run
imported; none may be (tests/test_cli_errors.py has the files and folders, in process).
"""

import json
import subprocess
import sys

import pytest

COSTLY = ("vllm", "torch", "dspy", "transformers", "sentence_transformers", "kuzu")
PROBE = f"""
import json, sys
from glm_dspy.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as stop:
    code = stop.code
print(json.dumps({{"code": code, "imported": [m for m in {COSTLY!r} if m in sys.modules]}}))
"""


def probe(*args):
    """(exit code, costly modules imported, stderr) of `glm-dspy ARGS` in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=60)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["code"], result["imported"], " ".join(done.stderr.split())


@pytest.mark.parametrize("args, message", [
    (["eval", "--dataset", "nobel", "--db", "DB", "--programs", "glm,grpahcot"],
     "argument --programs: unknown arm 'grpahcot'; known arms: glm, glm-greedy,"),
    (["eval", "--dataset", "nobel", "--db", "DB", "--programs", " , "], "no arm named; give one or more of: glm"),
    (["eval", "--dataset", "nobel", "--db", "DB", "--programs", "base,base"], "an arm is named twice"),
    (["eval", "--dataset", "wikidata", "--db", "DB"], "unknown dataset 'wikidata'; use one of: synthetic"),
    (["build", "wikidata", "--db", "/tmp/never-built"], "unknown dataset 'wikidata'; use one of: synthetic"),
    (["ask", "", "--db", "DB"], "argument question: the question is empty"),
    (["ask", "  \t", "--db", "DB"], "argument question: the question is empty"),
    (["ask", "q", "--db", "DB", "--max-steps", "0"], "argument --max-steps: must be 1 or more, got 0"),
    (["exec", "--timeout", "-1", "--db", "DB", "print(1)"],
     "argument --timeout: must be a number of seconds above 0, got -1"),
    (["exec", "--timeout", "nan", "--db", "DB", "print(1)"], "argument --timeout: must be a number of seconds"),
    (["query", "--max-rows", "0", "--db", "DB", "RETURN 1"], "argument --max-rows: must be 1 or more, got 0"),
    (["eval", "--dataset", "nobel", "--db", "DB", "--limit", "0"], "argument --limit: must be 1 or more"),
    (["batch", "q.txt", "--db", "DB", "--concurrency", "x"], "argument --concurrency: not a whole number: 'x'"),
    (["serve", "--db", "DB", "--port", "70000"], "argument --port: a port is 1 to 65535, got 70000"),
    (["model", "fetch", "gpt-5"], "argument NAME: invalid choice: 'gpt-5'"),
    (["ask", "q", "--db", "DB", "--glm-program", "missing.json"], "--glm-program missing.json: no such file"),
    (["eval", "--dataset", "nobel", "--db", "DB", "--judge-model", "qwen2.5-coder-1.5b",
      "--model", "qwen2.5-coder-0.5b"], "one process runs one vLLM engine; serve the judge"),
])
def test_a_wrong_name_or_value_is_a_usage_error_before_anything_is_loaded(args, message, tmp_path):
    for name in ("graph.kuzu", "meta.json", "id_index.npz"):  # DB: a folder of a database's shape (never opened)
        (tmp_path / name).write_bytes(b"")
    code, imported, err = probe(*(str(tmp_path) if arg == "DB" else arg for arg in args))
    assert code == 2 and message in err, err
    assert "glm-dspy: error:" in err and "Traceback" not in err
    assert imported == []


def test_a_bare_command_prints_help_and_version_names_the_package():
    code, imported, _ = probe()
    assert code == 0 and imported == []
    bare = subprocess.run([sys.executable, "-m", "glm_dspy.cli"], capture_output=True, text=True, timeout=60)
    assert bare.returncode == 0 and bare.stdout.startswith("usage: glm-dspy") and "commands:" in bare.stdout
    from importlib.metadata import version

    shown = subprocess.run([sys.executable, "-m", "glm_dspy.cli", "--version"], capture_output=True, text=True)
    assert shown.returncode == 0 and shown.stdout.strip() == f"glm-dspy {version('glm-dspy')}"
    group = subprocess.run([sys.executable, "-m", "glm_dspy.cli", "model"], capture_output=True, text=True)
    assert group.returncode == 0 and "list" in group.stdout and "fetch" in group.stdout


def test_model_list_names_every_registered_model_and_whether_it_is_fetched(tmp_path):
    from glm_dspy.lm.models import DEFAULT_MODEL, MANIFEST_NAME, MODELS

    fetched = tmp_path / "models" / DEFAULT_MODEL / "hf"
    fetched.mkdir(parents=True)
    (fetched / MANIFEST_NAME).write_text("{}")
    env = {**__import__("os").environ, "GLM_DSPY_CACHE": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "glm_dspy.cli", "model", "list"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[1:len(MODELS) + 1]}
    assert set(rows) == set(MODELS)
    assert rows[DEFAULT_MODEL].split()[1] == "*" and f"yes: {fetched}" in rows[DEFAULT_MODEL]
    assert all(row.endswith(" no") for name, row in rows.items() if name != DEFAULT_MODEL)
