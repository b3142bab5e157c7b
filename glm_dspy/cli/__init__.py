"""The `glm-dspy` command line (pyproject.toml [project.scripts]: glm_dspy.cli:main).

One module per idea: `parser` lists the commands; `graph_commands` (build, exec, query),
`answer_commands` (ask, batch, serve, demo), `eval_command`, `model_commands` and `delegated`
(compile, unseen-shapes, fresh-world, examples, vllm-server: other modules' own command lines) define them;
`checks` and `errors` make a wrong command line fail at once, in one line; `quiet` keeps library
noise off the console; `reference` renders docs/cli.md from the parser.
"""

from glm_dspy.cli.answer_commands import read_batch_questions
from glm_dspy.cli.console import console
from glm_dspy.cli.eval_command import _judge, eval_questions, resolve_glm_program
from glm_dspy.cli.eval_tables import eval_tables
from glm_dspy.cli.main import main
from glm_dspy.cli.parser import build_parser

__all__ = ["_judge", "build_parser", "console", "eval_questions", "eval_tables", "main", "read_batch_questions",
           "resolve_glm_program"]
