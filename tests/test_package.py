"""The package's lazy attributes: `import glm_dspy` stays light, and its names stay the API."""

import subprocess
import sys


def test_configure_stays_the_function_after_its_module_is_imported():
    # a submodule named like a package attribute replaces it on import (the CLI imports the
    # module, then a notebook's glm_dspy.configure() was "'module' object is not callable")
    import glm_dspy
    import glm_dspy.configuration  # noqa: F401

    assert callable(glm_dspy.configure) and glm_dspy.configure.__module__ == "glm_dspy.configuration"
    for name in glm_dspy.__all__:
        assert not isinstance(getattr(glm_dspy, name), type(glm_dspy)), f"glm_dspy.{name} is a module"


def test_importing_the_package_imports_neither_dspy_nor_vllm():
    code = "import sys, glm_dspy; print(sorted({'dspy', 'vllm'} & set(sys.modules)))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"
