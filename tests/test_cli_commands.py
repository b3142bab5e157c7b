"""What the commands print and how they end: exec's exit status, the `python -m` tools as commands,
and a console free of library noise."""

import subprocess
import sys

import pytest

from glm_dspy import cli

NOISE = ("Loading weights", "Triton", "NUMA", "FutureWarning", "it/s]")


def glm(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "glm_dspy.cli", *args], capture_output=True, text=True,
                          timeout=timeout)


def test_exec_of_a_snippet_that_found_nothing_exits_1_with_the_message_and_no_noise(nobel_db):
    result = glm("exec", "--db", str(nobel_db), 'print(NodeInfo("zzz"))')
    assert result.returncode == 1 and result.stdout.startswith("no node with id 'zzz'")
    assert "its input named nothing in the graph" in result.stderr
    assert not [noise for noise in NOISE if noise in result.stderr], result.stderr


def test_build_shows_what_it_built_and_no_loading_bar(tmp_path):
    (tmp_path / "kb.tsv").write_text("ada\twrote\tnotes\n")
    result = glm("build", f"triples:{tmp_path / 'kb.tsv'}", "--db", str(tmp_path / "db"))
    assert result.returncode == 0 and "built triples: 2 nodes" in result.stderr
    assert not [noise for noise in NOISE if noise in result.stderr], result.stderr


@pytest.mark.parametrize("command, module_help", [
    ("compile", "Compile GLM's agents with one of DSPy's optimizers"),
    ("unseen-shapes", "Dev questions of shapes the example bank does not hold"),
    ("examples", "Question -> Cypher examples for Text2Cypher"),
    ("vllm-server", "An OpenAI-compatible vLLM server with a choice of KV-cache eviction policy"),
])
def test_the_python_m_tools_are_commands_with_their_own_options(command, module_help):
    result = glm(command, "--help", timeout=120)
    assert result.returncode == 0 and result.stdout.startswith(f"usage: glm-dspy {command}")
    assert module_help in result.stdout


def test_a_delegated_command_gets_every_argument(monkeypatch):
    import glm_dspy.graphs.cypher_examples

    seen = []
    monkeypatch.setattr(glm_dspy.graphs.cypher_examples, "main", lambda argv, prog: seen.append((argv, prog)) or 3)
    assert cli.main(["examples", "--dataset", "nobel", "--check", "-x"]) == 3
    assert seen == [(["--dataset", "nobel", "--check", "-x"], "glm-dspy examples")]


def test_unseen_shapes_refuses_a_bad_fraction_as_its_own_usage_error(tmp_path):
    result = glm("unseen-shapes", "--dataset", "nobel", "--db", str(tmp_path), "--out", str(tmp_path / "o"),
                 "--fraction", "2")
    assert result.returncode == 2
    assert "glm-dspy unseen-shapes: error: --fraction must be between 0 and 1" in result.stderr


@pytest.mark.slow
def test_demo_shows_answers_not_library_noise(nobel_db):
    """The real default model on the in-process engine (about a minute on two cores)."""
    result = glm("demo", "--db", str(nobel_db), "--glm-program", "none", timeout=900)
    assert result.returncode == 0 and result.stderr.count("answer:") == 3
    assert not [noise for noise in ("Loading weights", "Triton", "NUMA", "FutureWarning") if noise in result.stderr], \
        result.stderr
