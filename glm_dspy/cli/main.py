"""`main(argv)`: parse, check, run quietly, and tell any failure in one line (glm_dspy/cli/errors.py).

The order is the point: argument types fail while parsing, a command's `check` (names, files,
folders) before its run imports anything costly, and only then does the command load a graph, an
embedder or a model.
"""

from __future__ import annotations

import sys

from glm_dspy.cli.console import console
from glm_dspy.cli.errors import RUNTIME, UsageError, describe, exit_code, report
from glm_dspy.cli.parser import build_parser
from glm_dspy.cli.quiet import quiet_libraries

INTERRUPTED = 130  # 128 + SIGINT, as a shell reports it


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.command is None:  # a bare `glm-dspy`: what it can do
        parser.print_help()
        return 0
    try:
        if check := getattr(args, "check", None):
            check(args)
        if getattr(args, "delegated", None):  # another module's own command line, as it always ran
            return args.run(args)
        with quiet_libraries():
            return args.run(args)
    except KeyboardInterrupt:
        return report(console, "interrupted", INTERRUPTED)
    except SystemExit as stop:
        if isinstance(stop.code, str):  # SystemExit("message"): a command's own way to fail
            return report(console, stop.code, RUNTIME)
        raise
    except (UsageError, ValueError, OSError, RuntimeError) as error:
        return report(console, describe(error), exit_code(error))
