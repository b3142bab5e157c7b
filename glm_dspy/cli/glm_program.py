"""`--glm-program`, the option every answering command shares: which GLM program runs."""

from __future__ import annotations

from pathlib import Path

from glm_dspy.cli.errors import UsageError

GLM_PROGRAM_HELP = ("a compiled GLM program (glm-dspy compile), or none for the hand-written one "
                    "(default: glm_dspy/compiled/glm-<model>.json when it was compiled for this model)")


def glm_program_arg(value: str) -> Path | str | None:
    """--glm-program's value: none -> None (the hand-written program), default -> DEFAULT, else a path."""
    from glm_dspy.compiled.programs import DEFAULT

    return None if value.lower() == "none" else DEFAULT if value == DEFAULT else Path(value)


def add_glm_program(parser, *, extra: str = "") -> None:
    parser.add_argument("--glm-program", type=glm_program_arg, default="default", help=GLM_PROGRAM_HELP + extra)


def check_glm_program(value: Path | str | None) -> None:
    """A program named by path must be a file; `default` and `none` need nothing."""
    if isinstance(value, Path) and not value.is_file():
        raise UsageError(f"--glm-program {value}: no such file; give a program `glm-dspy compile` wrote "
                         "(glm_dspy/compiled/*.json), default, or none")
