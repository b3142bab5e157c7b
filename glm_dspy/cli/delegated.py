"""Commands that are another module's own command line: `glm-dspy compile ...` is `python -m glm_dspy.optimize.compile ...`.

Each module keeps its options in its own `build_parser(prog)` and runs as `main(argv, prog=...)`;
`glm-dspy` passes every argument after the command's name through untouched (--help included),
so no option is written twice. The modules are imported only when their command runs.
"""

from __future__ import annotations

import argparse
import importlib
from dataclasses import dataclass

from glm_dspy.cli.command import HelpFormatter, add_command


@dataclass(frozen=True, slots=True)
class Delegated:
    """A command run by `module.main(argv, prog="glm-dspy <name>")`, whose parser is `module.build_parser(prog)`."""

    name: str
    module: str
    help: str

    def __post_init__(self) -> None:
        assert self.name and self.module and self.help, self

    @property
    def prog(self) -> str:
        return f"glm-dspy {self.name}"

    def parser(self) -> argparse.ArgumentParser:
        """The module's parser, its help shown as every glm-dspy command's (defaults included)."""
        parser = importlib.import_module(self.module).build_parser(self.prog)
        parser.formatter_class = HelpFormatter
        return parser

    def run(self, argv: list[str]) -> int:
        if "-h" in argv or "--help" in argv:
            self.parser().print_help()
            return 0
        code = importlib.import_module(self.module).main(argv, prog=self.prog)
        return 0 if code is None else code


DELEGATED = (
    Delegated("compile", "glm_dspy.optimize.compile",
              "compile GLM's agents with a DSPy optimizer; report dev EM before and after "
              "(python -m glm_dspy.optimize.compile)"),
    Delegated("unseen-shapes", "glm_dspy.graphs.unseen_shapes",
              "write a held-out test of question shapes the example bank lacks (python -m glm_dspy.graphs.unseen_shapes)"),
    Delegated("fresh-world", "glm_dspy.graphs.fresh_world",
              "write a made-up world as triples with 3-hop questions: a graph no bank has seen "
              "(python -m glm_dspy.graphs.fresh_world)"),
    Delegated("examples", "glm_dspy.graphs.cypher_examples",
              "(re)write or check a database's Cypher example bank (python -m glm_dspy.graphs.cypher_examples)"),
    Delegated("vllm-server", "glm_dspy.backends.vllm_priority.serve",
              "an OpenAI-compatible vLLM server with the tiered KV-cache policy (python -m "
              "glm_dspy.backends.vllm_priority.serve); --server URL of ask/batch/serve/eval talks to it"),
)


def add_delegated_commands(commands) -> None:
    for delegated in DELEGATED:
        # prefix_chars no option uses: every argument, --help too, lands in `argv` for the module's own parser
        command = add_command(commands, delegated.name, delegated.help, add_help=False, prefix_chars="\0")
        command.add_argument("argv", nargs=argparse.REMAINDER, help=f"the arguments of {delegated.prog} --help")
        command.set_defaults(run=lambda args, delegated=delegated: delegated.run(args.argv), delegated=delegated)
