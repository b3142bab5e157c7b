"""docs/cli.md, rendered from the parser: every command's --help, in the order `glm-dspy --help` lists them.

    python -m glm_dspy.cli.reference > docs/cli.md     # after changing an option or a help text
    python -m glm_dspy.cli.reference --check           # exit 1 when docs/cli.md is out of date

The help is wrapped at WIDTH columns whatever the terminal, so the file is the same everywhere.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

from glm_dspy.cli.parser import build_parser

WIDTH = 100
REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
HEADER = """# The `glm-dspy` command line

Every command's `--help`, generated from the parser (glm_dspy/cli/parser.py) by
`python -m glm_dspy.cli.reference > docs/cli.md`; tests/test_cli_reference.py fails when this file is
out of date. Exit status: 0 done, 1 the command ran and failed, 2 the command line is wrong.
"""


def command_parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """`parser`, then each sub-command's parser depth-first, in the order they were added; a
    delegated command (glm_dspy/cli/delegated.py) as its own module's parser."""
    yield parser
    for action in parser._actions:  # argparse keeps sub-commands only here
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                delegated = sub.get_default("delegated")
                yield from [delegated.parser()] if delegated else command_parsers(sub)


def render() -> str:
    sections = [HEADER]
    for parser in command_parsers(build_parser()):
        formatter_class = parser.formatter_class
        parser.formatter_class = lambda prog, cls=formatter_class: cls(prog, width=WIDTH)
        sections.append(f"## {parser.prog}\n\n```text\n{parser.format_help().rstrip()}\n```\n")
    return "\n".join(sections)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m glm_dspy.cli.reference", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help=f"compare with {REFERENCE} instead of printing")
    args = parser.parse_args(argv)
    text = render()
    if not args.check:
        sys.stdout.write(text)
        return 0
    if REFERENCE.is_file() and REFERENCE.read_text(encoding="utf-8") == text:
        return 0
    print(f"{REFERENCE} is out of date: python -m glm_dspy.cli.reference > docs/cli.md", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
