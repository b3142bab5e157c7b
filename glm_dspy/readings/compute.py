"""Programs that compute with values, not only read them (after KoPL's operators over values):
an age at an event, the span of years between two times, and which of two named things has the
earlier, later, larger or smaller value.

The class of questions served: "How old was X when ...?", "At what age did X ...?", "How long
did X live?", "How many years after X did Y ...?", "Who was older, X or Y?", "Which is larger, A
or B?". Each program takes the question's readings best first (the graph's paths from its named
starts, ranked by glm_dspy/modules/reading_rank.py) and reads the values they need:
- an age: of the one named thing, its earliest own time (a person's birth, a city's founding)
  and the best fitting other time it reaches or holds; the full years between them;
- a span: the two best fitting times of one named thing (its own or reached), or the best
  fitting time of each of two named things, of the same path; the full years between them;
- which of two: the best fitting time or number of each of the two things offered, by the same
  path; the name of the one the question's comparative picks.
A program that finds no time, more than one value where it needs one, or two things the
question does not offer answers nothing: the question goes on to the agents.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass

import glm_dspy.readings.answer_type as at
import glm_dspy.readings.question as q

_TIME = re.compile(r"^(\d{4})(?:-(\d{2})-(\d{2}))?")


@dataclass(frozen=True, slots=True)
class Computed:
    answer: str
    how: str  # what was computed, in words, for the steps
    queries: tuple[str, ...]  # the texts that ran


def parse_time(value: str) -> tuple[dt.date, bool] | None:
    """(the date, whether it is a full date) of an ISO date or a year; None of anything else."""
    found = _TIME.match(str(value).strip())
    if found is None:
        return None
    year, month, day = found.group(1), found.group(2), found.group(3)
    try:
        if month is None:
            return dt.date(int(year), 1, 1), False
        return dt.date(int(year), int(month), int(day)), True
    except ValueError:
        return None


def years_between(earlier: tuple[dt.date, bool], later: tuple[dt.date, bool]) -> int:
    """Full years from `earlier` to `later` (an age: not yet its birthday, one fewer); of a year
    given alone, the difference of the years."""
    (a, a_full), (b, b_full) = earlier, later
    years = b.year - a.year
    if a_full and b_full and (b.month, b.day) < (a.month, a.day):
        years -= 1
    return years


class Program:
    """The computing programs of one question. `readings`: its readings best first; `result_of`:
    a reading's Result (glm_dspy/readings/answer_type.py); `run(reading) -> (values, text)`."""

    def __init__(self, question: q.Question, readings: list, result_of: Callable, run: Callable):
        self.question, self.readings, self.result_of, self.run = question, readings, result_of, run

    def answer(self) -> Computed | None:
        asked = self.question
        if asked.compare is not None and asked.offered is not None:
            return self._which_of_two()
        if asked.asked == q.AGE:
            return self._age()
        if asked.asked == q.SPAN:
            return self._span()
        return None

    # -- the readings a program uses ------------------------------------------------------------
    def _plain(self, c) -> bool:
        return not (c.join or c.same or c.order or c.group or c.meets or c.counted or c.absent or c.loop or c.gap)

    def _named_starts(self) -> list:
        """The starts of the readings: the things the question names (`Readings.value_readings`)."""
        return list(dict.fromkeys(c.start for c in self.readings if self._plain(c)))

    def _timed(self, start, *, own: bool | None = None) -> list:
        """The plain readings of `start` that read a time, best first (`own`: only those of its
        own features, True, or only those reached over a hop, False)."""
        return [c for c in self.readings if c.start == start and self._plain(c)
                and self.result_of(c).kind in (at.DATE, at.YEAR) and (own is None or own == (not c.hops))]

    def _one_time(self, c) -> tuple[tuple[dt.date, bool], str] | None:
        """The one time a reading reads (and its text); None where it reads none or several."""
        values, text = self.run(c)
        times = {parse_time(v) for v in values} - {None}
        return (times.pop(), text) if len(times) == 1 else None

    # -- the programs ---------------------------------------------------------------------------
    def _age(self) -> Computed | None:
        """The full years from the named thing's earliest own time (its birth) to the best
        fitting other time: its own or reached ("How old was X when she won?"), or, where the
        question names two things, the other's ("How old was X when Y was founded?": the subject
        is the one whose earliest time comes first, as a birth comes before what one lives to see)."""
        starts = self._named_starts()
        if len(starts) not in (1, 2):
            return None
        earliest = {}
        for start in starts:
            own = [(read, c) for c in self._timed(start, own=True) if (read := self._one_time(c)) is not None]
            if own:
                earliest[start] = min(own, key=lambda found: found[0][0][0])
        if not earliest:
            return None
        subject = min(earliest, key=lambda start: earliest[start][0][0][0])
        (birth, birth_text), birth_reading = earliest[subject]
        if len(starts) == 2:  # the event is the other thing's
            events = self._timed(next(start for start in starts if start != subject))
        else:
            events = [c for c in self._timed(subject)
                      if not (not c.hops and self.result_of(c).feature == self.result_of(birth_reading).feature)]
        # the best fitting event's one time; where it reads none, or several, no age is sure
        read = self._one_time(events[0]) if events else None
        if read is None or read[0][0] < birth[0]:
            return None
        age = years_between(birth, read[0])
        return Computed(str(age), f"{events[0].words()} minus {birth_reading.words()}: {age} years",
                        (birth_text, read[1]))

    def _span(self) -> Computed | None:
        starts = self._named_starts()
        if len(starts) == 1:
            timed = [(read, c) for c in self._timed(starts[0]) if (read := self._one_time(c)) is not None]
            firsts = [found for found in timed if found[0][0] != timed[0][0][0]] if timed else []
            if not firsts:
                return None
            (a, a_text), a_reading = timed[0]
            (b, b_text), b_reading = firsts[0]
        elif len(starts) == 2:
            pair = self._same_path(starts)
            if pair is None:
                return None
            ((a, a_text), a_reading), ((b, b_text), b_reading) = pair
        else:
            return None
        earlier, later = sorted([a, b], key=lambda t: t[0])
        years = years_between(earlier, later)
        return Computed(str(years), f"between {a_reading.words()} and {b_reading.words()}: {years} years",
                        (a_text, b_text))

    def _same_path(self, starts: list):
        """Of two named starts, the best fitting time reading of the first whose path the second
        also has, each with its one time."""
        first, second = starts
        theirs = {(tuple((h.relation, h.outgoing) for h in c.hops), c.returns): c for c in self._timed(second)}
        for c in self._timed(first):
            other = theirs.get((tuple((h.relation, h.outgoing) for h in c.hops), c.returns))
            if other is None:
                continue
            mine, its = self._one_time(c), self._one_time(other)
            if mine is not None and its is not None:
                return (mine, c), (its, other)
        return None

    def _which_of_two(self) -> Computed | None:
        """The offered thing with the earlier or later time, or the larger or smaller number."""
        offered = [name.lower() for name in self.question.offered]
        starts = [s for s in self._named_starts() if any(_names(name, _name(s)) for name in offered)]
        if len(starts) != 2 or _name(starts[0]).lower() == _name(starts[1]).lower():
            return None
        by_time = self.question.compare in (q.EARLIER, q.LATER)
        wanted = (at.DATE, at.YEAR) if by_time else (at.NUMBER, at.COUNT)
        first, second = starts
        theirs = {(tuple((h.relation, h.outgoing) for h in c.hops), c.returns): c
                  for c in self.readings if c.start == second and self._plain(c) and self.result_of(c).kind in wanted}
        for c in self.readings:
            if c.start != first or not self._plain(c) or self.result_of(c).kind not in wanted:
                continue
            other = theirs.get((tuple((h.relation, h.outgoing) for h in c.hops), c.returns))
            if other is None:
                continue
            mine, its = self._one_value(c, by_time), self._one_value(other, by_time)
            if mine is None or its is None or mine[0] == its[0]:
                continue
            smaller_first = mine[0] < its[0]
            pick_first = smaller_first if self.question.compare in (q.EARLIER, q.SMALLER) else not smaller_first
            chosen = first if pick_first else second
            return Computed(_name(chosen), f"{c.words()} against {other.words()}", (mine[1], its[1]))
        return None

    def _one_value(self, c, by_time: bool):
        if by_time:
            read = self._one_time(c)
            return None if read is None else (read[0][0], read[1])
        values, text = self.run(c)
        numbers = set()
        for v in values:
            try:
                numbers.add(float(v))
            except ValueError:
                return None
        return (numbers.pop(), text) if len(numbers) == 1 else None


def _name(start) -> str:
    """The name of the thing a start is: a named node's, or the name a question states."""
    return start.said if start.is_named else str(start.conditions[0].value)


def _names(offered: str, name: str) -> bool:
    """Whether the words a question offers name the thing: all of them are its name's ("Curie"
    of "Marie Curie"). "the capital of Australia" is a path from Australia, not Australia."""
    said, own = set(re.findall(r"\w+", offered.lower())), set(re.findall(r"\w+", name.lower()))
    return bool(said) and said <= own


__all__ = ["Computed", "Program", "parse_time", "years_between"]
