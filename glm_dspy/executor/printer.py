"""Where a snippet's `print` goes: one bounded collector per run."""

from typing import Any


class OutputLimitError(BaseException):
    """The snippet printed more than its limit. A BaseException so `except Exception` cannot
    swallow it; the collector also remembers the overflow, so even a bare `except:` cannot."""


class PrintCollector:
    """Collects everything one run prints. Invariant: `len(text()) <= max_chars`; the first
    write that would pass the limit stores what fits, sets `overflowed` and raises."""

    def __init__(self, max_chars: int):
        assert max_chars > 0, max_chars
        self.max_chars = max_chars
        self.num_chars = 0
        self.overflowed = False
        self._parts: list[str] = []

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
        self.write(sep.join(str(o) for o in objects) + ("\n" if end is None else end))
