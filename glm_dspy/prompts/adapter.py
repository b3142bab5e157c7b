"""The adapter every GLM agent runs under: DSPy's ChatAdapter, made steady for small models.

* No JSONAdapter fallback: a parse error must not change the prompt layout (the cached prefix).
* The field-structure template shows bare placeholders (`{answer}`), without ChatAdapter's
  "# note: the value you produce must be ..." comments: a 0.5B model copies those comments
  into its answer instead of answering. The type rules stay in the per-call format reminder.
* A bool output field whose text is not a boolean — small models copy the format reminder
  ("# note: the value you produce must be True or False") into it — is read leniently: a
  yes/true or no/false word decides; with neither, the field is True when the signature's
  `answer` field is non-empty (for Reason: an answer means finished). Everything else
  parses exactly as ChatAdapter does.
* A field marker written at the end of a line of text (`print(x)[[ ## completed ## ]]`) ends
  the field's text there, as one on a line of its own would.
"""

from __future__ import annotations

import re

import dspy
from dspy.utils.exceptions import AdapterParseError

_HEADER = re.compile(r"\[\[ ## (\w+) ## \]\]")


def _sections(completion: str) -> list[tuple[str | None, str]]:
    """(field, text) in order, as ChatAdapter splits them (text before the first header: None)."""
    parts, names = _HEADER.split(completion)[::2], _HEADER.findall(completion)
    return [(None, parts[0])] + list(zip(names, parts[1:]))


def _as_bool_text(text: str, fallback: bool) -> str:
    text = re.sub(r"must be true or false", " ", text.lower())  # the copied format reminder says nothing
    words = re.findall(r"[a-z]+", text)
    for word in words:
        if word in ("true", "yes"):
            return "True"
        if word in ("false", "no"):
            return "False"
    return str(fallback)


def _cut_marker(value):
    """A str field's text before a field marker written on the same line as text (`print(x)[[ ##
    completed ## ]]`): ChatAdapter splits only at markers that begin a line, and the rest would
    stay in the value (a snippet that ends in a SyntaxError)."""
    if isinstance(value, str) and (match := _HEADER.search(value)):
        return value[:match.start()].rstrip()
    return value


class GLMAdapter(dspy.ChatAdapter):
    def __init__(self):
        super().__init__(use_json_adapter_fallback=False)

    def format_field_structure(self, signature) -> str:
        def placeholders(fields) -> str:
            return "\n\n".join(f"[[ ## {name} ## ]]\n{{{name}}}" for name in fields)

        return "\n\n".join([
            "All interactions will be structured in the following way, with the appropriate values filled in.",
            placeholders(signature.input_fields), placeholders(signature.output_fields), "[[ ## completed ## ]]",
        ])

    def parse(self, signature, completion: str) -> dict:
        return {name: _cut_marker(value) for name, value in self._parse(signature, completion).items()}

    def _parse(self, signature, completion: str) -> dict:
        try:
            return super().parse(signature, completion)
        except AdapterParseError:
            bool_fields = {n for n, f in signature.output_fields.items() if f.annotation is bool}
            if not bool_fields:
                raise
        sections = _sections(completion)
        answer = next((text.strip() for name, text in sections if name == "answer"), "")
        rewritten = "".join(
            text if name is None else
            f"[[ ## {name} ## ]]\n" + (_as_bool_text(text, bool(answer)) + "\n\n" if name in bool_fields else text)
            for name, text in sections)
        return super().parse(signature, rewritten)
