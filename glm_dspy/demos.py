"""Hand-written few-shot demos for the three agents, fitting our graphs (Nobel, academic).

They sit in each agent's stable prompt prefix; `python -m optimize.compile` may replace them
with bootstrapped ones. Node ids and chunks follow the real Nobel and synthetic graphs.
"""

import dspy

CLASSIFY_DEMOS = [
    dspy.Example(question="When was Marie Curie born?", kind="deterministic").with_inputs("question"),
    dspy.Example(question="Who are the co-authors of Ada Lovelace on \"Notes on the Analytical Engine\"?",
                 kind="deterministic").with_inputs("question"),
    dspy.Example(question="How many students did Niels Bohr mentor?", kind="deterministic").with_inputs("question"),
    dspy.Example(question="Which of the papers Ada Lovelace cites would you recommend she read next, and why?",
                 kind="non_deterministic").with_inputs("question"),
    dspy.Example(question="Was Pierre Curie's career more influential than his wife's?",
                 kind="non_deterministic").with_inputs("question"),
]

_CURIE_CHUNK = (
    "[Node:l6 {birth_date:1867-11-07, death_date:1934-07-04, family_name:Curie, gender:female, "
    "given_name:Marie, name:Marie Curie, type:laureate}]\n"
    "[neighbours:(l12:mentor {name:Gabriel Lippmann}),(inst_sorbonne_university_paris:institution "
    "{name:Sorbonne University}),(l194:student {name:Irène Joliot-Curie}),(prize_physics_1903:prize "
    "{name:Nobel Prize in Physics 1903}),(city_warsaw_poland:birth_city {name:Warsaw}),"
    "(prize_chemistry_1911:prize {name:Nobel Prize in Chemistry 1911})]"
)

REASON_DEMOS = [
    dspy.Example(
        notebook="",
        question="Which prizes did the mentor of Irène Joliot-Curie win?",
        finished=False, answer="",
        missing_information="the mentor of Irène Joliot-Curie and the prizes that mentor won",
    ).with_inputs("notebook", "question"),
    dspy.Example(
        notebook=_CURIE_CHUNK,
        question="Which prizes did the mentor of Irène Joliot-Curie win?",
        finished=True, answer="Nobel Prize in Physics 1903, Nobel Prize in Chemistry 1911",
        missing_information="",
    ).with_inputs("notebook", "question"),
    dspy.Example(
        notebook=_CURIE_CHUNK,
        question="In which country was Marie Curie's mentor born?",
        finished=False, answer="",
        missing_information="the birth country of Gabriel Lippmann (node l12)",
    ).with_inputs("notebook", "question"),
]

ACT_DEMOS = [
    dspy.Example(
        request="the birth date of Marie Curie", previous_code="", error="",
        code='curie = RetrieveNode("Marie Curie")\nprint(NodeFeature(curie, "birth_date"))',
    ).with_inputs("request", "previous_code", "error"),
    dspy.Example(
        request="the prizes won by Niels Bohr", previous_code="", error="",
        code='bohr = RetrieveNode("Niels Bohr")\nprint(", ".join(NodeFeature(NeighbourCheck(bohr, "prize"), "name")))',
    ).with_inputs("request", "previous_code", "error"),
    dspy.Example(
        request="the co-authors of Ada Lovelace", previous_code="", error="",
        code=('ada = RetrieveNode("Ada Lovelace")\nnames = set()\nfor paper in NeighbourCheck(ada, "paper"):\n'
              '    for author in NeighbourCheck(paper, "author"):\n        if author != ada:\n'
              '            names.add(NodeFeature(author, "name"))\nprint(", ".join(sorted(names)))'),
    ).with_inputs("request", "previous_code", "error"),
    dspy.Example(
        request="everything about the mentor of Irène Joliot-Curie", previous_code="", error="",
        code='irene = RetrieveNode("Irène Joliot-Curie")\nprint(NodeInfo(NeighbourCheck(irene, "mentor")))',
    ).with_inputs("request", "previous_code", "error"),
    dspy.Example(
        request="how many students Niels Bohr had",
        previous_code='print(NodeDegree(RetrieveNodes("Niels Bohr"), "student"))',
        error="NameError: name 'RetrieveNodes' is not defined (line 1)",
        code='print(NodeDegree(RetrieveNode("Niels Bohr"), "student"))',
    ).with_inputs("request", "previous_code", "error"),
]
