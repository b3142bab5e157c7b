"""The package's lazy attributes: `import glm_dspy` stays light, and its names stay the API."""

import ast
import subprocess
import sys
import tomllib
from pathlib import Path


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


ROOT = Path(__file__).resolve().parents[1]
INSTALLED_AS = {"graphs": "glm_dspy.graphs", "backends": "glm_dspy.backends", "optimize": "glm_dspy.optimize",
                "bench": "glm_dspy.bench"}


def test_every_package_folder_is_installed_under_glm_dspy():
    # pyproject.toml lists the packages by hand: the top-level folders install under glm_dspy (package-dir)
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["package-dir"] == {name: folder for folder, name in INSTALLED_AS.items()}
    found = {".".join((INSTALLED_AS.get(init.relative_to(ROOT).parts[0], "glm_dspy"),
                       *init.parent.relative_to(ROOT).parts[1:]))
             for folder in ("glm_dspy", *INSTALLED_AS) for init in (ROOT / folder).rglob("__init__.py")}
    assert sorted(setuptools["packages"]) == sorted(found)


def test_no_module_imports_graphs_backends_optimize_or_bench_by_their_folder_names():
    # from the repository root `import graphs` would still work, as a second copy of every module
    wrong = []
    for folder in ("glm_dspy", *INSTALLED_AS, "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
                wrong += [f"{path.relative_to(ROOT)}:{node.lineno} {name}" for name in names
                          if name.split(".")[0] in INSTALLED_AS]
    assert not wrong, f"import glm_dspy.graphs (not graphs), glm_dspy.bench, ...: {wrong}"
