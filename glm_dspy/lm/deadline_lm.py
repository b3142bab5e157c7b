"""`DeadlineLM`: DSPy's own `dspy.LM` (the generic OpenAI-chat path, glm_dspy/lm/generic.py) held
to the question's deadline (graphs/deadline.py), as GLM's engine is (glm_dspy/lm/engine.py).

DSPy 3.4.1 fixes an LM's client timeouts when it builds the client (`execution._select_engine`
keys one client per timeout value and never frees it), so a call cannot be given "the time
left" as its own timeout without a new client per call. Instead:
* past the deadline no call starts (DeadlinePassed);
* an asynchronous call (`acall`) is cancelled at the deadline: its connection is closed, which
  aborts the request on the server;
* a synchronous call (`__call__`, what DSPy's predictors make) runs on a thread of its own, with
  this thread's context (dspy settings, the query id, the deadline), and is waited for only until
  the deadline; past it the caller gets DeadlinePassed at once and the call is left to finish or
  to stop at the LM's own timeout (`timeout_s`), its reply dropped: DSPy's sync client cannot be
  interrupted from outside.
Without a deadline, or with more time left than the LM's own timeout, a call is DSPy's, untouched.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading

import dspy

from glm_dspy.graphs.deadline import DeadlinePassed, remaining_s


class DeadlineLM(dspy.LM):
    """A `dspy.LM` whose calls end by the current question's deadline (module doc)."""

    def __call__(self, *args, **kwargs):
        left = self._time_left()
        if left is None:
            return super().__call__(*args, **kwargs)
        future: concurrent.futures.Future = concurrent.futures.Future()
        call = super().__call__
        context = contextvars.copy_context()

        def run() -> None:
            try:
                future.set_result(context.run(call, *args, **kwargs))
            except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
                future.set_exception(error)

        threading.Thread(target=run, name="glm-lm-call", daemon=True).start()
        try:
            return future.result(timeout=left)
        except concurrent.futures.TimeoutError:
            raise DeadlinePassed(f"the question's time ran out during an LLM call to {self.model} (after "
                                 f"{left:.1f} s; its reply, if one comes, is dropped)") from None

    async def acall(self, *args, **kwargs):
        left = self._time_left()
        if left is None:
            return await super().acall(*args, **kwargs)
        try:
            return await asyncio.wait_for(super().acall(*args, **kwargs), timeout=left)
        except asyncio.TimeoutError:
            raise DeadlinePassed(f"the question's time ran out during an LLM call to {self.model} (cancelled "
                                 f"after {left:.1f} s)") from None

    def _time_left(self) -> float | None:
        """The seconds a call may take under the deadline; None where the LM's own timeout comes
        first (or there is no deadline). Past the deadline: DeadlinePassed."""
        left = remaining_s()
        if left is None:
            return None
        if left <= 0:
            raise DeadlinePassed(f"the question's time ran out before an LLM call to {self.model}")
        own = self.kwargs.get("timeout")
        return None if isinstance(own, (int, float)) and own <= left else left
