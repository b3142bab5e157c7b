"""Strip the markdown code fence an LLM puts around a snippet."""

import re
import textwrap

_FENCED = re.compile(r"^```[\w+-]*[ \t]*\n(.*?)\n?[ \t]*```$", re.DOTALL)
_OPENING = re.compile(r"^```[\w+-]*[ \t]*\n")


def strip_code_fence(code: str) -> str:
    """The code inside one surrounding ```python ... ``` fence (an unclosed opening fence, as from
    a generation cut short, is dropped too), dedented; code without a fence is only dedented.
    Error line numbers count from the first line inside the fence."""
    stripped = code.strip()
    if match := _FENCED.match(stripped):
        return textwrap.dedent(match.group(1))
    if _OPENING.match(stripped):
        return textwrap.dedent(_OPENING.sub("", stripped, count=1))
    return textwrap.dedent(code)
