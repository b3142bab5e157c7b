"""glm_dspy.optimize.compile's control flow with DummyLM: bootstrapped demos join the hand-written ones,
and the saved program loads back."""

import json
from pathlib import Path

import dspy
from dspy.utils import DummyLM

from glm_dspy.modules.counselor import GraphCounselor
from glm_dspy.modules.glm import GLM
from glm_dspy.optimize.compile import compile_glm

P1_YEAR = 'print(NodeFeature(RetrieveNode("Notes on the Analytical Engine"), "year"))'


def test_bootstrapped_demos_are_appended_and_the_program_round_trips(tiny_graph, tmp_path):
    program = GLM(tiny_graph, readings=False)
    hand = {name: len(p.demos) for name, p in program.named_predictors()}
    trainset = [dspy.Example(question="In which year was Notes on the Analytical Engine published?",
                             answer="1843").with_inputs("question")]
    with dspy.context(lm=DummyLM([{"kind": "deterministic"}, {"code": P1_YEAR}] * 3)):
        compiled = compile_glm(program, trainset)
    counts = {name: len(p.demos) for name, p in compiled.named_predictors()}
    assert counts["classify.predict"] == hand["classify.predict"] + 1
    assert counts["act.predict"] == hand["act.predict"] + 1 and counts["reason.predict"] == hand["reason.predict"]
    assert compiled.act.predict.demos[-1].code == P1_YEAR
    path = tmp_path / "glm.json"
    compiled.save(str(path))
    loaded = GLM(tiny_graph, readings=False)
    loaded.load(str(path))
    assert loaded.act.predict.demos[-1]["code"] == P1_YEAR  # loaded demos are dicts


def test_eval_takes_a_compiled_program_and_leaves_out_its_training_questions(tiny_graph, tmp_path):
    import json

    import pytest

    from glm_dspy.evaluation.evaluate import make_program, train_qids

    program = GLM(tiny_graph, readings=False)
    program.act.predict.demos.append(dspy.Example(request="r", previous_code="", error="", code=P1_YEAR))
    path = tmp_path / "glm.json"
    program.save(str(path))
    path.with_suffix(".train.json").write_text(json.dumps({"train_qids": ["nobel-01", "nobel-02"]}))
    loaded = make_program("glm", tiny_graph, path)
    assert loaded.act.predict.demos[-1]["code"] == P1_YEAR
    assert len(make_program("glm", tiny_graph).act.predict.demos) == len(program.act.predict.demos) - 1
    assert train_qids(path) == {"nobel-01", "nobel-02"}
    with pytest.raises(FileNotFoundError, match="glm_dspy.optimize.compile"):
        make_program("glm", tiny_graph, tmp_path / "missing.json")


# -- the optimizers, resume, save/load, default loading (issue 12 §4, §6) ---------------------------

import pytest
from dspy import lm15

from glm_dspy.backends.vllm_priority.hints import Tier

from glm_dspy.optimize.compile import compile_program
from glm_dspy.optimize.optimizers import OPTIMIZERS, Budget
from glm_dspy.optimize.prompts import agent_messages

QUESTION = "In which year was Notes on the Analytical Engine published?"
# keyed by the field header only that agent's final message has (DummyLM answers the first key found)
BY_AGENT = {"[[ ## request ## ]]": {"code": P1_YEAR},
            "[[ ## notebook ## ]]": {"finished": True, "answer": "1843", "missing_information": ""},
            "[[ ## question ## ]]": {"kind": "deterministic"}}
# MIPROv2's own calls (dspy/propose/grounded_proposer.py, dataset_summary_generator.py), matched first
PROPOSER = {"[[ ## basic_instruction ## ]]": {"proposed_instruction": "Answer from the graph, briefly."},
            "[[ ## module ## ]]": {"module_description": "writes a snippet"},
            "[[ ## program_example ## ]]": {"program_description": "answers questions over a graph"},
            "[[ ## prior_observations ## ]]": {"observations": "questions about works"},
            "[[ ## observations ## ]]": {"summary": "questions about works"},
            "[[ ## examples ## ]]": {"observations": "questions about works"}}
TINY = Budget(candidates=1, trials=1, minibatch=1, metric_calls=4, steps=1, batch=2, threads=1)


def examples(n=2):
    return [dspy.Example(question=QUESTION, answer="1843", golds=["1843"], tier="single_hop", qid=f"q{i}")
            .with_inputs("question") for i in range(n)]


def hand_demos(program):
    return {name: list(p.demos) for name, p in program.named_predictors()}


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_each_optimizer_compiles_keeping_the_hand_written_demos_first(optimizer, tiny_graph):
    if optimizer == "mipro":
        pytest.importorskip("optuna", reason="MIPROv2 needs optuna (pip install -e '.[optimize]'); not installed here")
    program = GLM(tiny_graph, readings=False, compiled=None)
    with dspy.context(lm=DummyLM({**PROPOSER, **BY_AGENT} if optimizer == "mipro" else BY_AGENT)):
        compiled = compile_program(program, examples(), examples(1), optimizer, TINY)
    for name, predictor in compiled.named_predictors():
        assert type(predictor) is dspy.Predict, name  # unpinned: saves like a hand-built program
        hand = hand_demos(program)[name]
        assert predictor.demos[: len(hand)] == hand, name
    if optimizer == "bootstrap":  # the clean runs' calls became demos
        assert compiled.act.predict.demos[-1].code == P1_YEAR


def test_save_and_load_reproduce_every_prompt_byte_for_byte(tiny_graph, tmp_path):
    with dspy.context(lm=DummyLM(BY_AGENT)):
        compiled = compile_program(GLM(tiny_graph, readings=False, compiled=None), examples(), [], "bootstrap", Budget())
    compiled.act.predict.signature = compiled.act.predict.signature.with_instructions("Write a snippet. Be brief.")
    path = tmp_path / "glm.json"
    compiled.save(str(path))
    loaded = GLM(tiny_graph, readings=False, compiled=path)
    assert loaded.program_path == path
    question = "Who wrote Notes on the Analytical Engine?"
    before, after = agent_messages(compiled, question), agent_messages(loaded, question)
    assert after == before
    assert "Write a snippet. Be brief." in after["act"][0]["content"]
    assert P1_YEAR in "".join(m["content"] for m in after["act"])  # the bootstrapped demo is in the prompt


class ScriptedEngine:
    """A dspy engine (dspy/clients/engines/base.py protocol) answering each agent by its field header."""

    def __init__(self):
        self.num_calls = 0

    def complete(self, request):
        self.num_calls += 1
        last = request.messages[-1].parts[0].text
        fields = next(v for k, v in BY_AGENT.items() if k in last)
        text = "\n\n".join(f"[[ ## {k} ## ]]\n{v}" for k, v in fields.items()) + "\n\n[[ ## completed ## ]]"
        return lm15.Response(id=None, model="scripted", message=lm15.Message.assistant([lm15.TextPart(text)]),
                             finish_reason="stop", usage=lm15.Usage(input_tokens=1, output_tokens=1, total_tokens=2))


@pytest.fixture
def disk_cache(tmp_path):
    from glm_dspy.optimize.compile import configure_disk_cache

    saved = dspy.cache
    yield configure_disk_cache(tmp_path / "cache")
    dspy.cache = saved


def test_a_rerun_replays_every_call_from_the_disk_cache(tiny_graph, disk_cache):
    from glm_dspy.optimize.progress import CallCounter

    engine = ScriptedEngine()
    lm = dspy.LM("openai/scripted", engine=engine, cache=True)
    assert (disk_cache / ".gitignore").read_text() == "*\n"
    runs = []
    for _ in range(2):
        dspy.cache.reset_memory_cache()  # a fresh process: only the disk remembers
        calls_before = engine.num_calls
        with dspy.context(lm=lm), CallCounter() as counter:
            compiled = compile_program(GLM(tiny_graph, readings=False, compiled=None), examples(3), examples(1), "random-search",
                                       TINY)
        runs.append((engine.num_calls - calls_before, counter.snapshot(), agent_messages(compiled, QUESTION)))
    (first_calls, first, first_prompts), (second_calls, second, second_prompts) = runs
    assert first_calls > 0 and first["made"] == first_calls and first["glm_runs"] > 0
    assert second_calls == 0 and second["made"] == 0 and second["replayed"] == second["requests"] == first["requests"]
    assert second_prompts == first_prompts


def test_the_default_program_is_loaded_only_for_the_model_it_was_compiled_for(tiny_graph, tmp_path, monkeypatch):
    import glm_dspy.compiled.programs
    from glm_dspy.compiled.programs import default_program, write_metadata

    monkeypatch.setattr(glm_dspy.compiled.programs, "COMPILED_DIR", tmp_path)
    program = GLM(tiny_graph, readings=False, compiled=None)
    program.act.predict.demos.append(dspy.Example(request="r", previous_code="", error="", code=P1_YEAR))
    shipped = tmp_path / "glm-tiny-model.json"
    program.save(str(shipped))
    num_hand = len(GLM(tiny_graph, readings=False, compiled=None).act.predict.demos)

    lm = DummyLM([])
    lm.model = "vllm/tiny-model"
    with dspy.context(lm=lm):
        assert GLM(tiny_graph, readings=False).program_path is None  # no metadata: never the default
        write_metadata(shipped, model="vllm/other/tiny-model", dataset="nobel", optimizer="bootstrap", seed=0,
                       train_qids=[])
        assert GLM(tiny_graph, readings=False).program_path is None  # compiled for another model with the same folder name
        write_metadata(shipped, model="vllm/tiny-model", dataset="nobel", optimizer="bootstrap", seed=0,
                       train_qids=["q1"])
        default = GLM(tiny_graph, readings=False)
        assert default.program_path == shipped and len(default.act.predict.demos) == num_hand + 1
        assert GLM(tiny_graph, readings=False, compiled=None).program_path is None
        assert len(GLM(tiny_graph, readings=False, compiled="none").act.predict.demos) == num_hand
    assert GLM(tiny_graph, readings=False).program_path is None  # no LM configured: nothing to match
    assert default_program("vllm/tiny-model", tmp_path) == shipped


def test_glm_program_none_gives_the_hand_written_program_on_every_command(tmp_path, monkeypatch):
    import glm_dspy.compiled.programs
    from glm_dspy import cli
    from glm_dspy.compiled.programs import DEFAULT, write_metadata

    for command in (["ask", "q", "--db", "d"], ["demo", "--db", "d"], ["eval", "--dataset", "nobel", "--db", "d"]):
        parser = cli.build_parser()
        assert parser.parse_args(command).glm_program == DEFAULT
        assert parser.parse_args([*command, "--glm-program", "none"]).glm_program is None
        assert parser.parse_args([*command, "--glm-program", "p.json"]).glm_program == Path("p.json")
    monkeypatch.setattr(glm_dspy.compiled.programs, "COMPILED_DIR", tmp_path)
    shipped = tmp_path / "glm-qwen2.5-coder-0.5b.json"
    shipped.write_text("{}")
    write_metadata(shipped, model="vllm/qwen2.5-coder-0.5b", dataset="nobel", optimizer="bootstrap", seed=0,
                   train_qids=["t2"])
    monkeypatch.delenv("GLM_MODEL", raising=False)
    args = cli.build_parser().parse_args(["eval", "--dataset", "nobel", "--db", "d", "--model", "qwen2.5-coder-0.5b"])
    assert cli.resolve_glm_program(args) == shipped
    args.glm_program = None
    assert cli.resolve_glm_program(args) is None


def test_the_compiled_prefix_is_byte_stable_across_calls_and_counts_its_demos(tiny_graph):
    """With the default model's real tokenizer (skipped where it was never fetched)."""
    from glm_dspy.lm import PromptRenderer
    from glm_dspy.lm.models import DEFAULT_MODEL, cache_root
    from glm_dspy.optimize.prompts import prefix_lengths

    folder = cache_root() / "models" / DEFAULT_MODEL / "hf"
    if not (folder / "tokenizer.json").exists():
        pytest.skip(f"no tokenizer at {folder} (glm-dspy model fetch)")
    renderer = PromptRenderer.from_pretrained(str(folder))
    hand = GLM(tiny_graph, readings=False, compiled=None)
    with dspy.context(lm=DummyLM(BY_AGENT)):
        compiled = compile_program(hand, examples(), [], "bootstrap", Budget())
    first = agent_messages(compiled, QUESTION)
    second = agent_messages(compiled, "Who wrote Notes on the Analytical Engine?")
    for agent in ("classify", "reason", "act"):
        a, b = renderer.render(first[agent]), renderer.render(second[agent])
        end = a.segments[0].end
        assert a.segments[0].tier == b.segments[0].tier == Tier.PREFIX and a.token_ids[:end] == b.token_ids[:b.segments[0].end]
    before, after = prefix_lengths(hand, QUESTION, renderer), prefix_lengths(compiled, QUESTION, renderer)
    assert after["act"] > before["act"] and after["classify"] > before["classify"]  # the new demos are prefix
    assert after["reason"] == before["reason"]  # the bootstrapped run never called Reason


def test_the_compile_reports_on_the_dev_sample_eval_asks():
    """`optimize.compile --dev N --seed S` and `glm-dspy eval --split dev --shuffle --seed S --limit N`
    ask the same dev questions, so their EMs compare; the dev file is ordered by family."""
    import argparse

    from glm_dspy.cli import build_parser, eval_questions
    from glm_dspy.optimize.compile import load_splits

    args = argparse.Namespace(questions=None, dataset="nobel", db=None, seed=3, dev=30, train=5,
                              exclude_families=None)
    train, dev = load_splits(args)
    asked = eval_questions(build_parser().parse_args(
        ["eval", "--dataset", "nobel", "--db", "unused", "--split", "dev", "--shuffle", "--seed", "3", "--limit", "30",
         "--glm-program", "none"]))
    assert [q.qid for q in dev] == [q.qid for q in asked]
    assert len({q.tier for q in dev}) == 3  # not the first family's questions only
    assert not {q.qid for q in train} & {q.qid for q in dev}


def test_a_compile_logged_to_a_file_prints_a_progress_line_every_few_runs(tiny_graph, tmp_path):
    from rich.console import Console

    from glm_dspy.optimize.progress import LOG_EVERY, CallCounter

    log = tmp_path / "compile.log"
    with log.open("w") as stream:
        console = Console(file=stream, force_terminal=False, width=200)
        counter = CallCounter(console)
        with counter, counter.phase("dev, hand-written program", LOG_EVERY + 1):
            for i in range(LOG_EVERY + 1):
                counter.on_module_start(f"c{i}", GLM.__new__(GLM), {})
                counter.on_module_end(f"c{i}", None)
    lines = [line for line in log.read_text().splitlines() if "GLM runs," in line]
    assert [line.split(":")[1].split()[0] for line in lines] == [f"{LOG_EVERY}/{LOG_EVERY + 1}",
                                                                 f"{LOG_EVERY + 1}/{LOG_EVERY + 1}"]


# -- one program over several graphs, and the proposer (optimize/on_graphs.py) ------------------------


def on_two_graphs(graph):
    from glm_dspy.optimize.on_graphs import OnGraphs

    return OnGraphs({"a": GLM(graph, readings=False, compiled=None), "b": GLM(graph, readings=False, compiled=None)})


def test_the_graphs_share_one_set_of_agents_which_the_first_program_saves(tiny_graph, tmp_path):
    program = on_two_graphs(tiny_graph)
    names = [name for name, _ in program.named_predictors()]
    assert names == [f"program.{name}" for name, _ in program.program.named_predictors()]  # one set, not two
    program.program.act.predict.signature = program.program.act.predict.signature.with_instructions("Be brief.")
    lm = DummyLM(BY_AGENT)
    with dspy.context(lm=lm):
        answer = program(question=QUESTION, graph="b")
    assert answer.answer == "1843"
    act_prompts = [entry["messages"][0]["content"] for entry in lm.history if "[[ ## request ## ]]" in
                   entry["messages"][-1]["content"]]
    assert act_prompts and all(prompt.startswith("Be brief.") or "Be brief." in prompt for prompt in act_prompts)
    with pytest.raises(ValueError, match="no program for graph 'c'"):
        program(question=QUESTION, graph="c")


def test_a_copy_of_the_program_shares_no_agent_with_the_original(tiny_graph):
    program = on_two_graphs(tiny_graph)
    copy = program.deepcopy()
    (_, other), = copy.others
    assert copy.program.act.predict is not program.program.act.predict
    assert other.act.predict is copy.program.act.predict  # shared within the copy
    copy.program.act.predict.demos.append("x")
    assert program.program.act.predict.demos == hand_demos(GLM(tiny_graph, readings=False, compiled=None))["act.predict"]


def test_programs_with_different_agents_cannot_share_them(tiny_graph, nobel_graph):
    from glm_dspy.optimize.on_graphs import OnGraphs

    with pytest.raises(ValueError, match="different agents"):
        OnGraphs({"tiny": GLM(tiny_graph, readings=False, compiled=None), "nobel": GLM(nobel_graph, readings=False, compiled=None)})


def test_a_compile_on_two_graphs_learns_one_set_of_demos_from_both(tiny_graph, tmp_path):
    from glm_dspy.optimize.compile import examples

    program = on_two_graphs(tiny_graph)
    questions = examples_of(2)
    trainset = examples(questions[:1], "a") + examples(questions[1:], "b")
    with dspy.context(lm=DummyLM(BY_AGENT)):
        compiled = compile_program(program, trainset, [], "bootstrap", Budget(max_demos=2))
        compiled(question=QUESTION, graph="b")  # the other graph's program answers with the compiled agents
    hand = hand_demos(GLM(tiny_graph, readings=False, compiled=None))["act.predict"]
    assert len(compiled.program.act.predict.demos) == len(hand) + 2  # one bootstrapped from each graph's question
    (_, other), = compiled.others
    assert other.act.predict is compiled.program.act.predict
    path = tmp_path / "glm.json"
    compiled.program.save(str(path))
    assert len(GLM(tiny_graph, readings=False, compiled=path).act.predict.demos) == len(hand) + 2


def examples_of(n):
    from glm_dspy.graphs.questions import Question

    return [Question(qid=f"q{i}", question=QUESTION, answer="1843", tier="single_hop")
            for i in range(n)]


def test_one_database_per_dataset_and_a_second_model_needs_a_server():
    import argparse

    from glm_dspy.optimize.compile import build_parser, graph_splits, make_proposer

    args = build_parser().parse_args(["--dataset", "nobel,pathquestion", "--db", "data/nobel", "--dev", "3",
                                      "--train", "4"])
    with pytest.raises(ValueError, match="one --db per dataset"):
        graph_splits(args)
    args = build_parser().parse_args(["--dataset", "nobel,pathquestion", "--db", "a,b", "--dev", "3", "--train", "4"])
    found = graph_splits(args)
    assert [(name, str(db), len(train), len(dev)) for name, db, train, dev in found] == [
        ("nobel", "a", 4, 3), ("pathquestion", "b", 4, 3)]
    lm = DummyLM([])
    lm.model = "vllm/qwen2.5-coder-0.5b"
    assert make_proposer(argparse.Namespace(reflection_server=None, reflection_model=None, model=None), lm) is None
    with pytest.raises(SystemExit, match="--reflection-server"):
        make_proposer(argparse.Namespace(reflection_server=None, reflection_model="qwen2.5-coder-1.5b", model=None), lm)


def test_a_compiled_cypher_instruction_is_saved_and_reproduces_the_query_prompt(nobel_graph, tmp_path):
    program = GLM(nobel_graph, readings=False, compiled=None)
    assert program.cypher is not None  # the Nobel graph has example queries: Act answers in Cypher
    rule = "Count only the nodes that satisfy every condition of the question."
    program.cypher.generate.signature = program.cypher.generate.signature.with_instructions(rule)
    path = tmp_path / "glm.json"
    program.save(str(path))
    loaded = GLM(nobel_graph, readings=False, compiled=path)
    question = "How many laureates were born in Warsaw?"
    messages = agent_messages(loaded, question)
    assert messages == agent_messages(program, question)
    assert rule in messages["cypher"][0]["content"] and "Warsaw" in messages["cypher"][-1]["content"]
    assert rule not in agent_messages(GLM(nobel_graph, readings=False, compiled=None), question)["cypher"][0]["content"]


def test_the_compile_shows_a_training_question_no_example_about_itself(nobel_graph):
    """Its Cypher Act's bank is the train split; every candidate an optimizer copies keeps the rule."""
    from glm_dspy.optimize.compile import hold_out_own

    program = hold_out_own(GLM(nobel_graph, readings=False, compiled=None))
    assert program.cypher.hold_out_own and program.deepcopy().cypher.hold_out_own
    assert not GLM(nobel_graph, readings=False, compiled=None).cypher.hold_out_own  # ask/eval/demo: the whole bank
    assert not program.cypher.hold_out_family
    assert hold_out_own(GLM(nobel_graph, readings=False, compiled=None), family=True).deepcopy().cypher.hold_out_family


def test_the_compile_trains_on_no_question_of_a_held_out_test(tmp_path):
    """`--exclude-families` (a graphs.unseen_shapes families.json): none of its families' training
    questions, so the compiled program can be measured on that test; a wrong file says which."""
    import argparse

    from glm_dspy.graphs.cypher_examples import family
    from glm_dspy.optimize.compile import load_splits

    args = argparse.Namespace(questions=None, dataset="nobel", db=None, seed=3, dev=5, train=10_000,
                              exclude_families=None)
    everything, _ = load_splits(args)
    held = sorted({family(q) for q in everything})[:5]
    (tmp_path / "families.json").write_text(json.dumps({"held_out": held}))
    train, _ = load_splits(argparse.Namespace(**{**vars(args), "exclude_families": str(tmp_path / "families.json")}))
    assert train and not {family(q) for q in train} & set(held)
    assert len(train) == sum(family(q) not in held for q in everything)
    (tmp_path / "bad.json").write_text("[]")
    with pytest.raises(ValueError, match="bad.json: not a families.json"):
        load_splits(argparse.Namespace(**{**vars(args), "exclude_families": str(tmp_path / "bad.json")}))


def test_the_shipped_program_is_the_default_of_its_model_and_its_demos_a_stable_prefix(nobel_graph):
    """glm_dspy/compiled/glm-qwen2.5-coder-0.5b.json, compiled on questions of new shapes
    (docs/benchmarks.md), is what GLM loads for the default model, and for no other; its Cypher
    demo sits in the prompt's byte-stable prefix, before each question's own tables and examples."""
    from glm_dspy.lm.models import DEFAULT_MODEL
    from glm_dspy.compiled.programs import COMPILED_DIR, default_program, read_metadata

    path = default_program(f"vllm/{DEFAULT_MODEL}")
    assert path == COMPILED_DIR / f"glm-{DEFAULT_MODEL}.json"
    assert default_program("vllm/qwen2.5-coder-1.5b") is None
    metadata = read_metadata(path)
    assert metadata["new_shapes"] and metadata["optimizer"] == "random-search" and metadata["train_qids"]
    lm = DummyLM([])
    lm.model = f"vllm/{DEFAULT_MODEL}"
    with dspy.context(lm=lm):
        shipped = GLM(nobel_graph, readings=False)
    hand = GLM(nobel_graph, readings=False, compiled=None)
    assert shipped.program_path == path and hand.program_path is None
    assert len(shipped.cypher.generate.demos) > len(hand.cypher.generate.demos)
    first = agent_messages(shipped, "In which city was Marie Curie born?")["cypher"]
    second = agent_messages(shipped, "How many laureates were affiliated with University of Heidelberg?")["cypher"]
    assert first[:-1] == second[:-1] and first[-1] != second[-1]
    assert len(first) > len(agent_messages(hand, "In which city was Marie Curie born?")["cypher"])


def test_the_shipped_program_loads_into_every_glm_arm(nobel_graph, tmp_path):
    """The shipped program is GLM's agents; `glm-dspy eval --programs counselor` (Graph Counselor
    around a GLM) loads it into its GLM, its own plan, judge and reflection hand-written, and so
    does the Python-Act arm. A file of another program's state is refused."""
    from glm_dspy.evaluation.evaluate import make_program
    from glm_dspy.lm.models import DEFAULT_MODEL
    from glm_dspy.modules import Text2Cypher
    from glm_dspy.compiled.programs import default_program

    path = default_program(f"vllm/{DEFAULT_MODEL}")
    demo = json.loads(path.read_text())["cypher.generate"]["demos"][0]["question"]
    programs = {arm: make_program(arm, nobel_graph, path)
                for arm in ("counselor", "glm-python", "glm")}
    for program in programs.values():
        assert program.program_path == path
        glm = getattr(program, "glm", program)  # Graph Counselor's arm wraps a GLM
        if glm.cypher is not None:
            assert glm.cypher.generate.demos[-1]["question"] == demo
    hand = GraphCounselor(GLM(nobel_graph, readings=False, compiled=None))  # its own agents: hand-written
    assert programs["counselor"].plan.dump_state() == hand.plan.dump_state()
    assert programs["counselor"].reflection.dump_state() == hand.reflection.dump_state()
    other = tmp_path / "text2cypher.json"
    Text2Cypher(nobel_graph).save(str(other))
    with pytest.raises(ValueError, match="text2cypher.json: not a saved GLM program: it has no state for classify"):
        GLM(nobel_graph, readings=False, compiled=other)
    for text in ("{}", "[]", "{"):
        other.write_text(text)
        with pytest.raises(ValueError, match="text2cypher.json: "):
            GLM(nobel_graph, readings=False, compiled=other)


def test_each_eval_record_names_the_program_its_arm_loaded(tiny_graph, tmp_path):
    """Graph Counselor's arm is GLM too, so it loads the compiled program; its records say so (they
    said None, going by the arm's name), and a baseline's say none."""
    from glm_dspy.evaluation.evaluate import run_eval
    from glm_dspy.graphs.questions import Question

    path = tmp_path / "glm.json"
    GLM(tiny_graph, readings=False, compiled=None).save(str(path))
    question = Question("q1", "When was the paper Notes on the Analytical Engine published?", "1843")
    with dspy.context(lm=DummyLM([{"answer": "1843"}] * 20)):
        records = run_eval([question], ["counselor", "base"], tiny_graph, tmp_path / "out", glm_program=path)
    assert {r["arm"]: r["glm_program"] for r in records} == {"counselor": str(path), "base": None}
