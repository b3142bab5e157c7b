"""The console `glm-dspy` talks on: stderr, so that stdout holds only a command's results (answers,
rows, JSON Lines) and can be piped."""

from rich.console import Console

console = Console(stderr=True)
