"""Render chat messages to token ids with the model's own chat template, cut into cache segments.

The client tokenizes, not vLLM, so it knows where each segment of the prompt layout (docs/architecture.md) starts:

    [stable prefix]  everything the template writes before the final message's content: the
                     system message (instructions, field docs), demo turns, the final role header
    [notebook]       inside the final message, `[[ ## notebook ## ]]` with its value, up to the next
                     input-field header or DSPy's closing "Respond with ..." paragraph (Reason only)
    [variable]       the rest: other input fields, the output reminder, the generation prompt

Invariant: a segment's token ids depend on its own text only. The rendered text is cut at the
segment boundaries and each piece is tokenized alone, without special-token additions, so two
prompts whose prefixes render to the same text get the same prefix ids exactly (and so the same
vLLM KV blocks), whatever follows. For Qwen's byte-level BPE the cut points (after "\n" of the
role header, just before "[[ ## " or "Respond with") are pre-token boundaries anyway, so the
concatenation equals tokenizing the whole text (tests/test_lm.py checks this).
"""

from dataclasses import dataclass

from glm_dspy.backends.vllm_priority.hints import Segment, Tier

# How dspy 3.4.1's ChatAdapter/JSONAdapter lay out the final user message
# (adapters/chat_adapter.py format_user_message_content): "[[ ## name ## ]]\nvalue" blocks joined
# by "\n\n", then the output reminder "Respond with the corresponding output fields, ..."
# (JSONAdapter: "Respond with a JSON object ...").
_FIELD_HEADER = "[[ ## {name} ## ]]"
_NEXT_FIELD = "\n[[ ## "
_OUTPUT_REMINDER = "\n\nRespond with "
_MARKER = "\ue000glm-final-content\ue001"  # private-use characters: never in a real prompt


@dataclass(frozen=True, slots=True)
class RenderedPrompt:
    """The prompt as sent: token ids and the segments that cover them, in order, exactly once."""

    token_ids: tuple[int, ...]
    segments: tuple[Segment, ...]
    text: str

    def __post_init__(self) -> None:
        assert self.segments and self.segments[0].start == 0 and self.segments[-1].end == len(self.token_ids)
        assert all(a.end == b.start for a, b in zip(self.segments, self.segments[1:])), self.segments

    def ranges(self, tier: Tier) -> list[tuple[int, int]]:
        """The (start, end) token ranges of one tier, for tests and logs."""
        return [(s.start, s.end) for s in self.segments if s.tier == tier]


class PromptRenderer:
    """Chat messages -> RenderedPrompt, for one tokenizer. Pure: no engine, no I/O after loading."""

    def __init__(self, tokenizer, *, notebook_field: str = "notebook") -> None:
        if not getattr(tokenizer, "chat_template", None):
            raise ValueError(f"tokenizer {getattr(tokenizer, 'name_or_path', tokenizer)!r} has no chat template; "
                             "give the folder of an -Instruct model (its tokenizer_config/chat_template.jinja)")
        self.tokenizer = tokenizer
        self.notebook_header = _FIELD_HEADER.format(name=notebook_field)

    @classmethod
    def from_pretrained(cls, model: str, **kwargs) -> "PromptRenderer":
        from transformers import AutoTokenizer  # heavy import, only when a renderer is built

        return cls(AutoTokenizer.from_pretrained(model), **kwargs)

    def render(self, messages: list[dict[str, str]]) -> RenderedPrompt:
        """Apply the chat template (with the generation prompt) and cut the text into segments."""
        assert messages, "no messages to render"
        text = self._template(messages, add_generation_prompt=True)
        content = messages[-1]["content"]
        # Where the final content starts: render once more with a marker in its place. The text before
        # the marker must not depend on the content, or the prefix would not be stable across calls.
        marked = self._template([*messages[:-1], {**messages[-1], "content": _MARKER}], add_generation_prompt=True)
        content_start = marked.find(_MARKER)
        if content_start < 0 or marked[:content_start] != text[:content_start] or \
                text[content_start:content_start + len(content)] != content:
            raise ValueError("the chat template renders the text before the final message differently depending on "
                             "its content (or rewrites the content); its tokens cannot be a stable cache prefix")
        cuts = [(0, Tier.PREFIX), *self._notebook_cuts(content, content_start)]
        pieces = [(start, cuts[i + 1][0] if i + 1 < len(cuts) else len(text), tier)
                  for i, (start, tier) in enumerate(cuts)]
        token_ids: list[int] = []
        segments: list[Segment] = []
        for start, end, tier in pieces:
            if start == end:
                continue
            ids = self.tokenizer.encode(text[start:end], add_special_tokens=False)
            if not ids:
                continue
            if segments and segments[-1].tier == tier:
                segments[-1] = Segment(segments[-1].start, segments[-1].end + len(ids), tier)
            else:
                segments.append(Segment(len(token_ids), len(token_ids) + len(ids), tier))
            token_ids.extend(ids)
        return RenderedPrompt(tuple(token_ids), tuple(segments), text)

    def _notebook_cuts(self, content: str, offset: int) -> list[tuple[int, Tier]]:
        """Text offsets where segments start after the prefix: [variable] or [notebook][variable] or
        [variable][notebook][variable] (when other fields precede the notebook)."""
        header = self.notebook_header
        if content.startswith(header):
            at = 0
        else:
            at = content.find("\n" + header)  # a header starts a line
            if at < 0:
                return [(offset, Tier.VARIABLE)]
            at += 1
        value_start = at + len(header)
        ends = [len(content)]  # the "\n\n" after the value stays with the notebook (BPE merges "]\n\n")
        if (next_field := content.find(_NEXT_FIELD, value_start)) >= 0:
            ends.append(next_field + 1)
        if (reminder := content.find(_OUTPUT_REMINDER, value_start)) >= 0:
            ends.append(reminder + 2)
        end = min(ends)
        cuts = [(offset + at, Tier.NOTEBOOK), (offset + end, Tier.VARIABLE)]
        return [(offset, Tier.VARIABLE), *cuts] if at > 0 else cuts

    def _template(self, messages: list[dict[str, str]], *, add_generation_prompt: bool) -> str:
        return self.tokenizer.apply_chat_template(messages, tokenize=False,
                                                  add_generation_prompt=add_generation_prompt)
