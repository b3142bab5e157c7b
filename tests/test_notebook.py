"""The notebook's blocks: what was asked, then what came back; vertex chunks verbatim."""

from glm_dspy.prompts.notebook import Notebook, retrieval_block

CHUNK = "[Node:l27 {name:Niels Bohr, type:laureate}]\n[neighbours:(l6:student {name:X})]"


def test_a_value_is_labelled_with_its_request():
    assert retrieval_block("death date of  Niels Bohr\n", " 1962-11-18\n") == "death date of Niels Bohr -> 1962-11-18"
    assert retrieval_block("students of Bohr", "A\nB") == "students of Bohr ->\nA\nB"


def test_a_vertex_chunk_goes_in_byte_for_byte():  # it names its node; its KV blocks are shared
    assert retrieval_block("everything about Niels Bohr", CHUNK) == CHUNK


def test_the_notebook_only_grows_and_skips_repeated_outputs():
    notebook = Notebook()
    assert notebook.add("everything about Niels Bohr", CHUNK)
    first = notebook.text
    assert not notebook.add("Niels Bohr", CHUNK)  # the same chunk, asked in other words
    assert notebook.add("death date of Niels Bohr", "1962-11-18")
    assert notebook.text.startswith(first + "\n\n") and len(notebook) == 2
    assert notebook.retrieved_text == "1962-11-18\n" + CHUNK  # outputs only, no requests
