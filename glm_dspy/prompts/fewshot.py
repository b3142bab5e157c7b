"""Hand-written few-shot demos for the three agents, fitting our graphs (Nobel, academic).

They sit in each agent's stable prompt prefix; `python -m glm_dspy.optimize.compile` may replace them
with bootstrapped ones. Node ids and chunks follow the real Nobel and synthetic graphs.
"""

import dspy

CLASSIFY_DEMOS = [
    dspy.Example(question="When was Max Planck born?", kind="deterministic").with_inputs("question"),
    dspy.Example(question="Who are the co-authors of Ada Lovelace on \"Notes on the Analytical Engine\"?",
                 kind="deterministic").with_inputs("question"),
    dspy.Example(question="How many students did Niels Bohr mentor?", kind="deterministic").with_inputs("question"),
    dspy.Example(question="Which of the papers Ada Lovelace cites would you recommend she read next, and why?",
                 kind="non_deterministic").with_inputs("question"),
    dspy.Example(question="Was Pierre Curie's career more influential than his wife's?",
                 kind="non_deterministic").with_inputs("question"),
]

# Linus Pauling's real chunk (glm-dspy build nobel, k=10) without the long motivation feature.
_PAULING_CHUNK = (
    "[Node:l217 {birth_date:1901-02-28, death_date:1994-08-19, family_name:Pauling, full_name:Linus Carl "
    "Pauling, gender:male, given_name:Linus, name:Linus Pauling, type:laureate}]\n"
    "[neighbours:(l27:mentor {name:Niels Bohr}),(inst_california_institute_of_technology_caltech_pasadena_ca:"
    "institution {name:California Institute of Technology (Caltech)}),(l212:student {name:Edwin M. McMillan}),"
    "(city_portland_or_usa:birth_city {name:Portland, OR}),(prize_chemistry_1954:prize {name:Nobel Prize in "
    "Chemistry 1954}),(s1647:mentor {name:Arnold Sommerfeld}),(l249:student {name:William Lipscomb}),"
    "(prize_peace_1962:prize {name:Nobel Prize in Peace 1962}),(l39:mentor {name:Erwin Schrödinger}),"
    "(l410:student {name:D. Carleton Gajdusek})]"
)

REASON_DEMOS = [
    dspy.Example(
        notebook="",
        question="In which year did Linus Pauling receive the Nobel Peace Prize?",
        finished=False, answer="",
        missing_information="everything about Linus Pauling",
    ).with_inputs("notebook", "question"),
    dspy.Example(  # a value labelled with its request (glm_dspy/prompts/notebook.py) is accepted as it is
        notebook="When did Max Planck die? -> 1947-10-04",
        question="When did Max Planck die?",
        finished=True, answer="1947-10-04", missing_information="",
    ).with_inputs("notebook", "question"),
    dspy.Example(
        notebook=_PAULING_CHUNK,
        question="In which year did Linus Pauling receive the Nobel Peace Prize?",
        finished=True, answer="1962", missing_information="",
    ).with_inputs("notebook", "question"),
    dspy.Example(
        notebook=_PAULING_CHUNK,
        question="When did Linus Pauling die?",
        finished=True, answer="1994-08-19", missing_information="",
    ).with_inputs("notebook", "question"),
    dspy.Example(
        notebook=_PAULING_CHUNK,
        question="In which country is the institution of Linus Pauling?",
        finished=False, answer="",
        missing_information="the country of California Institute of Technology (Caltech) "
                            "(node inst_california_institute_of_technology_caltech_pasadena_ca)",
    ).with_inputs("notebook", "question"),
    dspy.Example(
        notebook=_PAULING_CHUNK,
        question="Which Nobel Prizes did Linus Pauling receive?",
        finished=True, answer="Nobel Prize in Chemistry 1954, Nobel Prize in Peace 1962", missing_information="",
    ).with_inputs("notebook", "question"),
]

ACT_DEMOS = [
    dspy.Example(
        request="the birth date of Max Planck", previous_code="", error="",
        code='planck = RetrieveNode("Max Planck")\nprint(NodeFeature(planck, "birth_date"))',
    ).with_inputs("request", "previous_code", "error"),
    dspy.Example(
        request="the prizes won by Niels Bohr", previous_code="", error="",
        code='bohr = RetrieveNode("Niels Bohr")\nprint(", ".join(NodeFeature(NeighbourCheck(bohr, "prize"), "name")))',
    ).with_inputs("request", "previous_code", "error"),
    dspy.Example(
        request="In which year did Linus Pauling receive the Nobel Prize in Chemistry?", previous_code="", error="",
        code=('pauling = RetrieveNode("Linus Pauling")\nfor prize in NeighbourCheck(pauling, "prize"):\n'
              '    if NodeFeature(prize, "category") == "Chemistry":\n        print(NodeFeature(prize, "year"))'),
    ).with_inputs("request", "previous_code", "error"),
    dspy.Example(
        request="Who received the Nobel Prize in Physics 1921?", previous_code="", error="",
        code=('prize = RetrieveNode("Nobel Prize in Physics 1921")\n'
              'print(", ".join(NodeFeature(NeighbourCheck(prize, "laureate"), "name")))'),
    ).with_inputs("request", "previous_code", "error"),
    dspy.Example(
        request="the co-authors of Ada Lovelace", previous_code="", error="",
        code=('ada = RetrieveNode("Ada Lovelace")\nnames = set()\nfor paper in NeighbourCheck(ada, "paper"):\n'
              '    for author in NeighbourCheck(paper, "author"):\n        if author != ada:\n'
              '            names.add(NodeFeature(author, "name"))\nprint(", ".join(sorted(names)))'),
    ).with_inputs("request", "previous_code", "error"),
    dspy.Example(
        request="everything about the institution of Linus Pauling", previous_code="", error="",
        code='pauling = RetrieveNode("Linus Pauling")\nprint(NodeInfo(NeighbourCheck(pauling, "institution")))',
    ).with_inputs("request", "previous_code", "error"),
    dspy.Example(
        request="how many students Niels Bohr had",
        previous_code='print(NodeDegree(RetrieveNodes("Niels Bohr"), "student"))',
        error="NameError: name 'RetrieveNodes' is not defined (line 1)",
        code='print(NodeDegree(RetrieveNode("Niels Bohr"), "student"))',
    ).with_inputs("request", "previous_code", "error"),
]
