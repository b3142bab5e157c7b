"""Safe execution of the Act agent's Python snippets (see executor.py and policy.py), and the repairs
made to a failing one without an LLM call (autofix.py)."""

from glm_dspy.executor.executor import SnippetExecutor
from glm_dspy.executor.result import ExecResult

__all__ = ["ExecResult", "SnippetExecutor"]
