"""docs/cli.md is the parser's help, and every option's help says what it does and its default."""

import argparse

from glm_dspy.cli.reference import REFERENCE, command_parsers, render
from glm_dspy.cli.parser import build_parser


def test_docs_cli_md_is_up_to_date_with_the_parser():
    assert REFERENCE.read_text(encoding="utf-8") == render(), (
        "docs/cli.md is out of date: python -m glm_dspy.cli.reference > docs/cli.md")


def test_every_option_has_help_that_shows_its_default():
    """Delegated commands' own parsers included; a flag, a required option (or one of a required
    pair, eval's --dataset and --questions) or one whose help says
    its default in words needs no "(default: X)" (glm_dspy/cli/command.py HelpFormatter)."""
    undocumented = []
    for parser in command_parsers(build_parser()):
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)):
                continue
            shown = parser.formatter_class(parser.prog)._get_help_string(action) if action.help else ""
            is_flag = isinstance(action, argparse._StoreTrueAction)
            is_required = action.required or any(group.required and action in group._group_actions
                                                 for group in parser._mutually_exclusive_groups)
            says_default = "default" in shown or is_flag or is_required or not action.option_strings
            if not action.help or not says_default:
                undocumented.append(f"{parser.prog} {'/'.join(action.option_strings) or action.dest}")
    assert undocumented == []
