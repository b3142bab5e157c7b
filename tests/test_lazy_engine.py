"""The in-process engine starts, and the tokenizer loads, on the first LLM call (glm_dspy/lm/lazy.py):
a question the readings answer never starts vLLM, not even imports it, nor loads the tokenizer; the
first call starts each once, however many threads ask at once."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

from tests.test_lm import tiny_model  # noqa: F401 - the session fixture

from glm_dspy.lm.lazy import LazyRenderer, LazyTransport


class Built:
    def __init__(self):
        self.alive = True

    def generate(self, prompt_ids, params, extra_args, *, stream, timeout_s=None):
        yield "chunk"

    def is_alive(self):
        return self.alive

    def close(self):
        self.alive = False


def test_the_engine_is_built_once_by_the_first_of_many_threads_and_not_before():
    builds = []

    def build():
        time.sleep(0.2)  # the others arrive while it builds
        builds.append(Built())
        return builds[-1]

    lazy = LazyTransport(build)
    lazy.close()  # before any call: nothing to stop
    assert lazy.is_alive() and not lazy.is_started and builds == []
    results = []
    threads = [threading.Thread(target=lambda: results.append(list(lazy.generate([1], None, {}, stream=False))))
               for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(builds) == 1 and results == [["chunk"]] * 6 and lazy.is_started
    lazy.close()
    assert not lazy.is_alive()


def test_a_build_that_fails_raises_in_the_caller_and_the_next_call_tries_again():
    attempts = []

    def build():
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("not enough memory for the KV cache")
        return Built()

    lazy = LazyTransport(build)
    try:
        lazy.warm()
        raise AssertionError("the first build should fail")
    except RuntimeError as error:
        assert "KV cache" in str(error)
    lazy.warm()
    assert len(attempts) == 2 and lazy.is_started


class Renderer:
    tokenizer = "the tokenizer"

    def render(self, messages):
        return f"rendered {len(messages)}"


def test_the_renderer_is_loaded_by_the_first_prompt_once_and_shared():
    loads = []

    def load():
        time.sleep(0.2)  # the others arrive while it loads
        loads.append(Renderer())
        return loads[-1]

    lazy = LazyRenderer(load)
    assert not lazy.is_started and loads == []
    results = []
    threads = [threading.Thread(target=lambda: results.append(lazy.render([{"role": "user", "content": "hi"}])))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(loads) == 1 and results == ["rendered 1"] * 4 and lazy.tokenizer == "the tokenizer"


def test_make_lm_starts_the_real_engine_at_the_first_call_only(tiny_model):
    from glm_dspy.lm.factory import make_lm

    lm = make_lm(str(tiny_model), max_model_len=1024, kv_cache_gib=1, max_tokens=4, cache=False)
    transport = lm.engine.transport
    try:
        renderer = lm.engine.renderer
        assert isinstance(transport, LazyTransport) and not transport.is_started
        assert isinstance(renderer, LazyRenderer) and not renderer.is_started
        assert isinstance(lm("Say hi")[0], str)
        assert transport.is_started and transport.is_alive() and transport.num_requests == 1
        assert renderer.is_started
    finally:
        lm.engine.close()


PROBE = """
import sys
from glm_dspy.configuration import configure
from glm_dspy.graph import open_graph
from glm_dspy.modules.glm import GLM
lm = configure(None)
with open_graph(sys.argv[1]) as graph:
    prediction = GLM(graph)(question="In which year did Marie Curie receive the Nobel Prize in Physics?")
print(prediction.answer, prediction.num_calls, *(name in sys.modules for name in ("vllm", "torch", "transformers")),
      lm.engine.transport.is_started, lm.engine.renderer.is_started)
"""


def test_a_question_the_readings_answer_imports_neither_vllm_nor_torch_nor_loads_the_tokenizer(nobel_db):
    """The engine, the LLM's tokenizer and torch (the embedder is NumPy's: graphs/bert_numpy.py)
    are paid for by the first LLM call only."""
    done = subprocess.run([sys.executable, "-c", PROBE, str(nobel_db)], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split()[-7:] == ["1903", "0", "False", "False", "False", "False", "False"], done.stdout
