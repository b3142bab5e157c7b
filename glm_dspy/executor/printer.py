"""Where a snippet's `print` goes: one bounded collector per run."""

from typing import Any

from glm_dspy.retrieval.observation import contains_observation

MAX_REMEMBERED_OBSERVATIONS = 64


class OutputLimitError(BaseException):
    """The snippet printed more than its limit. A BaseException so `except Exception` cannot
    swallow it; the collector also remembers the overflow, so even a bare `except:` cannot."""


def _text(obj: Any) -> str:
    """What print writes for `obj`: str(obj), except that a float with an integral value prints
    as an int (`round(2014.6, 0)` prints 2015, not 2015.0: an answer, not a float's repr)."""
    if type(obj) is float and obj.is_integer():
        return str(int(obj))
    return str(obj)


class PrintCollector:
    """Collects everything one run prints. Invariant: `len(text()) <= max_chars`; the first
    write that would pass the limit stores what fits, sets `overflowed` and raises.

    It also tells results from observations (glm_dspy/retrieval/observation.py) by type, never by
    wording: a print call that writes non-blank text is an observation print when one of
    its objects is or holds an `Observation`, or when its text quotes one a graph function
    returned in this run (`remember_observation`; an f-string around an observation is a
    plain str). `is_observation_only`: some print wrote non-blank text and every such print
    was an observation print.
    """

    def __init__(self, max_chars: int):
        assert max_chars > 0, max_chars
        self.max_chars = max_chars
        self.num_chars = 0
        self.overflowed = False
        self.num_observation_prints = 0
        self.num_result_prints = 0
        self._parts: list[str] = []
        self._observation_texts: dict[str, None] = {}  # distinct, first MAX_REMEMBERED_OBSERVATIONS

    @property
    def is_observation_only(self) -> bool:
        return self.num_observation_prints > 0 and self.num_result_prints == 0

    def remember_observation(self, text: str) -> None:
        """Note an observation a graph function returned, to spot it quoted inside plain text."""
        if text.strip() and len(self._observation_texts) < MAX_REMEMBERED_OBSERVATIONS:
            self._observation_texts[text] = None

    def write(self, text: str) -> None:
        room = self.max_chars - self.num_chars
        if len(text) > room or self.overflowed:
            self._parts.append(text[:max(room, 0)])
            self.num_chars = self.max_chars
            self.overflowed = True
            raise OutputLimitError(f"the snippet printed more than {self.max_chars} characters; "
                                   "print a count or the first few items instead")
        self._parts.append(text)
        self.num_chars += len(text)

    def text(self) -> str:
        return "".join(self._parts)

    def __call__(self) -> str:  # RestrictedPython's `printed`
        return self.text()

    def _call_print(self, *objects: Any, sep: str | None = " ", end: str | None = "\n",
                    flush: bool = False, **unexpected: Any) -> None:
        if unexpected:
            raise TypeError(f"print() takes only sep, end and flush in snippets, "
                            f"not {', '.join(unexpected)}")
        if not isinstance(sep, (str, type(None))) or not isinstance(end, (str, type(None))):
            raise TypeError("print() sep and end must be strings")
        sep = " " if sep is None else sep
        text = sep.join(_text(o) for o in objects) + ("\n" if end is None else end)
        if text and not text.isspace():
            self._classify(objects, text[:self.max_chars])
        self.write(text)

    def _classify(self, objects: tuple, text: str) -> None:
        if (any(contains_observation(o) for o in objects)
                or any(quoted in text for quoted in self._observation_texts)):
            self.num_observation_prints += 1
        else:
            self.num_result_prints += 1
