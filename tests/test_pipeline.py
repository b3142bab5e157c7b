"""Pipelined retrieval: RetrieveNode lookups start while Act's snippet is still being decoded."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import dspy
import pytest
from dspy import lm15

from glm_dspy.lm.query import current_decoding_listener, decoding_listener
from glm_dspy.modules.glm import GLM
from glm_dspy.retrieval.pipeline import Prefetcher, retrieve_literals
from tests.test_lm import chat, request_for, tiny_model  # noqa: F401 - the session fixture

SNIPPET = 'paper = RetrieveNode("Notes on the Analytical Engine")\nprint(NodeFeature(paper, "year"))'


@pytest.mark.parametrize("line, texts", [
    ('x = RetrieveNode("Marie Curie")', ["Marie Curie"]),
    ("x = RetrieveNode( 'Marie Curie' )", ["Marie Curie"]),
    (r'x = RetrieveNode("The \"Curie\" prize")', ['The "Curie" prize']),
    ('a, b = RetrieveNode("A"), RetrieveNode("B")', ["A", "B"]),
    ("x = RetrieveNode(name)", []),  # computed at run time: looked up when the snippet runs
    ('x = RetrieveNode(f"{name}")', []),
    ('x = RetrieveNode("")', []),
    ('x = RetrieveNode("unterminated', []),
])
def test_only_literal_retrieve_node_arguments_are_prefetched(line, texts):
    assert retrieve_literals(line) == texts


def test_a_lookup_starts_when_its_line_is_complete_and_each_text_once():
    started_after = []  # how much text had been fed when each lookup started
    fed = []

    def retrieve_node(text):
        started_after.append((text, "".join(fed)))

    with ThreadPoolExecutor(2) as pool:
        prefetcher = Prefetcher(retrieve_node, pool)
        code = SNIPPET + '\nother = RetrieveNode("Notes on the Analytical Engine")\n'
        for char in code:
            fed.append(char)
            prefetcher.feed(char)
            prefetcher.wait()
        prefetcher.decoded()
    assert started_after == [("Notes on the Analytical Engine", SNIPPET.split("\n")[0] + "\n")]
    assert prefetcher.num_lookups == 1 and prefetcher.hidden_s == pytest.approx(prefetcher.retrieval_s)


def test_a_lookup_runs_under_the_callers_deadline():
    """A prefetched lookup is the question's graph work: the question's deadline bounds it too."""
    from glm_dspy.graphs.deadline import deadline, remaining_s

    seen = []
    with ThreadPoolExecutor(1) as pool:
        prefetcher = Prefetcher(lambda text: seen.append(remaining_s()), pool)
        with deadline(time.monotonic() + 60):
            prefetcher.feed('x = RetrieveNode("Marie Curie")\n')
        prefetcher.wait()
    assert len(seen) == 1 and seen[0] is not None and 0 < seen[0] <= 60


class StreamingEngine:
    """A scripted engine that decodes its reply line by line, `line_s` apart, telling the decoding
    listener as the real engine does; Classify says deterministic, Act writes SNIPPET."""

    line_s = 0.2

    def __init__(self):
        self.returned_at = []

    def complete(self, request):
        last = request.messages[-1].parts[0].text
        reply = (f"[[ ## code ## ]]\n{SNIPPET}\n\n[[ ## completed ## ]]" if "[[ ## request ## ]]" in last
                 else "[[ ## kind ## ]]\ndeterministic\n\n[[ ## completed ## ]]")
        listener = current_decoding_listener()
        for line in reply.splitlines(keepends=True):
            if listener is not None:
                listener(line)
            time.sleep(self.line_s)
        self.returned_at.append(time.perf_counter())
        return lm15.Response(id=None, model="scripted", message=lm15.Message.assistant([lm15.TextPart(reply)]),
                             finish_reason="stop", usage=lm15.Usage(input_tokens=1, output_tokens=1, total_tokens=2))


@pytest.mark.parametrize("pipelined", [True, False])
def test_glm_prefetches_the_snippets_lookup_and_the_snippet_finds_it_in_the_cache(tiny_graph, pipelined):
    retriever = tiny_graph.retriever
    retriever.retrieve_cache._items.clear()
    engine = StreamingEngine()
    program = GLM(tiny_graph, readings=False, compiled=None, samples=0, pipelined=pipelined)
    lookups = []
    search = retriever.node_index.search

    def timed_search(*args, **kwargs):
        lookups.append(time.perf_counter())
        return search(*args, **kwargs)

    retriever.node_index.search = timed_search
    try:
        with dspy.context(lm=dspy.LM("openai/scripted", engine=engine, cache=False)):
            prediction = program(question="In which year was Notes on the Analytical Engine published?")
    finally:
        retriever.node_index.search = search
    assert prediction.answer == "1843"
    (act,) = [s for s in prediction.steps if s["agent"] == "act"]
    assert len(lookups) == 1  # searched once: pipelined, the snippet's own call was a cache hit
    if pipelined:
        assert act["prefetched"] == 1 and lookups[0] < engine.returned_at[-1]  # while Act was decoding
        assert 0 < act["prefetch_hidden_s"] <= act["prefetch_s"]
    else:
        assert act["prefetched"] == 0 and lookups[0] > engine.returned_at[-1]


def test_the_real_engine_streams_to_a_decoding_listener_and_answers_the_same(tiny_model):
    from glm_dspy.lm.factory import make_lm

    lm = make_lm(str(tiny_model), max_model_len=2048, kv_cache_gib=1, max_tokens=24, cache=False)
    request = request_for(lm, chat())
    deltas = []
    lm.engine.complete(request)  # the prompt's blocks cached: both calls below read them alike
    plain = lm.engine.complete(request)
    with decoding_listener(deltas.append):
        streamed = lm.engine.complete(request)
    text = streamed.message.parts[0].text
    assert text == plain.message.parts[0].text  # greedy: the same reply either way
    assert deltas and "".join(deltas) == text  # each delta as it was decoded
    assert lm.engine.calls[-1].streamed and not lm.engine.calls[-2].streamed


def test_prefetch_under_concurrency_keeps_the_cache_consistent(tiny_graph):
    """Many Act calls prefetching the same and different texts at once: every id in the cache is
    the one a plain lookup gives, and nothing is searched twice once cached."""
    retriever = tiny_graph.retriever
    retriever.retrieve_cache._items.clear()
    texts = ["Notes on the Analytical Engine", "Ada Lovelace", "Charles Babbage", "Alan Turing"]
    expected = {}
    for text in texts:
        expected[text] = retriever.retrieve_node(text)
    retriever.retrieve_cache._items.clear()
    errors = []

    def act_call(i):
        try:
            with ThreadPoolExecutor(2) as pool:
                prefetcher = Prefetcher(retriever.retrieve_node, pool)
                for text in texts[i % 4:] + texts[: i % 4]:
                    prefetcher.feed(f'x = RetrieveNode("{text}")\n')
                prefetcher.wait()
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=act_call, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert {text: retriever.retrieve_cache.get(text) for text in texts} == expected


def test_snippets_from_many_threads_on_one_executor_and_store_give_what_one_thread_gives(nobel_graph):
    """GLM.batch's sharing: one executor pool and one Kuzu store serving many questions at once."""
    snippets = [
        'print(NodeFeature(RetrieveNode("Marie Curie"), "birth_date"))',
        'print(NodeDegree(RetrieveNode("Niels Bohr"), "student"))',
        'print(sorted(NodeFeature(NeighbourCheck(RetrieveNode("Marie Curie"), "prize"), "year")))',
        'print(NodeInfo(RetrieveNode("Albert Einstein"))[:200])',
    ]
    executor = nobel_graph.executor(num_workers=4)
    expected = [executor.run(code).output for code in snippets]
    assert all(expected) and not any("Error" in output for output in expected)
    results, lock = {}, threading.Lock()

    def worker(i):
        for j in range(8):
            k = (i + j) % len(snippets)
            output = executor.run(snippets[k]).output
            with lock:
                results.setdefault(k, []).append(output)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(len(outputs) for outputs in results.values()) == 64
    assert all(set(outputs) == {expected[k]} for k, outputs in results.items())
