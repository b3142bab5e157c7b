"""The parser every `glm-dspy` command is made with: its help shows each option's default, and its
usage errors read as the CLI's other errors (glm_dspy/cli/errors.py)."""

from __future__ import annotations

import argparse
import sys

from glm_dspy.cli.errors import USAGE


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions as written (they hold examples); an option's help ends with "(default: X)"
    unless it says its default in words ("default: the model under test"), is a flag
    (store_true), is required, or has no default (None: its help says what happens then)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        shows_none = (any(action.default is nothing for nothing in (None, False, argparse.SUPPRESS))
                      or action.required or "default" in text
                      or (not action.option_strings and action.nargs not in ("?", "*")))
        return text if shows_none else f"{text} (default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors print the usage, then `glm-dspy: error: <message>`, and exit USAGE."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(USAGE, f"glm-dspy: error: {message}\n")


def add_command(commands: argparse._SubParsersAction, name: str, help: str, *, description: str | None = None,
                **kwargs) -> argparse.ArgumentParser:
    """A sub-command whose --help starts with `help` (or `description`) and uses HelpFormatter."""
    return commands.add_parser(name, help=help, description=description or help, formatter_class=HelpFormatter,
                               **kwargs)
