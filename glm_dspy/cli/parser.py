"""`glm-dspy`: build graphs, run snippets and queries, answer questions, evaluate, compile, serve.

    glm-dspy build nobel --db data/nobel
    glm-dspy exec --db data/nobel 'print(NodeInfo(RetrieveNode("Marie Curie")))'
    glm-dspy query --db data/nobel "MATCH (l:laureate {name: 'Marie Curie'}) RETURN l.birth_date"
    glm-dspy ask "Where was Marie Curie born?" --db data/nobel
    glm-dspy ask "Where was Marie Curie born?" --db data/nobel --glm-program none   # the hand-written agents
    glm-dspy model list
    glm-dspy model fetch [qwen2.5-coder-0.5b]
    glm-dspy batch questions.txt --db data/nobel --journal runs/batch.sqlite --out answers.jsonl
    glm-dspy serve --db data/nobel --port 8000          # HTTP API and a page at http://127.0.0.1:8000/
    glm-dspy demo --db data/nobel
    glm-dspy eval --dataset nobel --db data/nobel --programs glm,graphcot,graphrag,textrag,base --limit 20
    GLM_DATA_DIR=DIR glm-dspy eval --dataset nobel --split natural --db data/nobel --programs glm,graphrag
    glm-dspy build triples:kb.tsv --db data/kb && glm-dspy eval --questions kb-questions.jsonl --db data/kb
    glm-dspy compile --optimizer bootstrap --dataset nobel --db data/nobel
    glm-dspy unseen-shapes --dataset nobel --db data/nobel --out /tmp/unseen/nobel
    glm-dspy examples --dataset nobel --db data/nobel --check
    glm-dspy vllm-server --model ~/.cache/glm-dspy/models/qwen2.5-coder-0.5b/hf --policy priority

Exit status: 0 done; 1 the command ran and failed (a refused query, a snippet's error, no answer);
2 the command line is wrong (an unknown name, a bad value, a missing or unwritable file or folder),
told before any model loads. `glm-dspy COMMAND --help` shows a command's options; docs/cli.md has them all.
"""

from __future__ import annotations

import argparse

from glm_dspy.cli.answer_commands import add_answer_commands
from glm_dspy.cli.command import HelpFormatter, Parser
from glm_dspy.cli.delegated import add_delegated_commands
from glm_dspy.cli.eval_command import add_eval_command
from glm_dspy.cli.graph_commands import add_graph_commands
from glm_dspy.cli.model_commands import add_model_commands


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("glm-dspy")
    except PackageNotFoundError:
        return "(not installed: pip install -e .)"


def build_parser() -> argparse.ArgumentParser:
    """Every command, in the order `glm-dspy --help` lists them."""
    parser = Parser(prog="glm-dspy", description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for add in (add_graph_commands, add_answer_commands, add_eval_command, add_model_commands,
                add_delegated_commands):
        add(commands)
    return parser
