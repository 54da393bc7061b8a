"""The user guide and API reference (docs/, Sphinx with numpydoc and MyST) build without
a warning; the public functions document their Parameters, Returns and Examples (numpydoc's
own checks), and the Examples run, on the GPU where there is one and on the CPU elsewhere:
those of the primitives and of the layers they are written with (minigr.operators,
minigr.transforms)."""
import doctest
import inspect
import os
import subprocess
import sys

import pytest
from numpydoc.validate import get_doc_object, validate

import minigr
from minigr import apps, operators, transforms

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The small helpers of minigr.transforms, which need only a docstring of a paragraph.
HELPERS = {"array_module", "device_of", "gpu_available", "resolve_device", "read_waiting"}


def _framework():
    """Every public name of minigr.operators and minigr.transforms, and the public methods of their
    classes, but for the errors (documented as minigr.MinigrError, ...) and the HELPERS."""
    names = []
    for module in (operators, transforms):
        for name in module.__all__:
            found = getattr(module, name)
            if name in HELPERS or inspect.isclass(found) and issubclass(found, Exception):
                continue
            names.append(f"{module.__name__}.{name}")
            if inspect.isclass(found):
                names += [f"{module.__name__}.{name}.{method}" for method, value in vars(found).items()
                          if not method.startswith("_")
                          and (inspect.isfunction(value) or isinstance(value, (classmethod, staticmethod)))]
    return names


# The public API that the reference documents with numpydoc's sections.
PUBLIC = ["minigr.load", "minigr.Graph", "minigr.Graph.from_edges", "minigr.Graph.from_csr",
          "minigr.Graph.from_scipy", "minigr.Graph.from_networkx", "minigr.Graph.in_blocks",
          "minigr.operators.relax.lone_in_buckets_only",
          *(f"minigr.{name}" for name in apps.names()),
          *_framework()]
# numpydoc's codes for: no docstring; parameters missing, unknown or out of order; no Returns; no Examples.
REQUIRED = {"GL08", "PR01", "PR02", "PR03", "RT01", "EX01"}


def test_docs_build_without_warnings(tmp_path):
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           os.path.join(ROOT, "docs"), str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_reference_has_every_primitive():
    reference = open(os.path.join(ROOT, "docs", "reference.md")).read()
    assert [name for name in apps.names() if f".. autofunction:: minigr.{name}\n" not in reference] == []


def test_the_reference_has_the_framework():
    """Every public name of minigr.operators and minigr.transforms under "Writing primitives"."""
    section = open(os.path.join(ROOT, "docs", "reference.md")).read().split("## Writing primitives\n")[1]
    listed = [f"{module.__name__}.{name}" for module in (operators, transforms) for name in module.__all__
              if not (inspect.isclass(getattr(module, name)) and issubclass(getattr(module, name), Exception))]
    assert [name for name in listed if f":: {name}\n" not in section] == []


def _object(name):
    found = minigr
    for part in name.split(".")[1:]:
        found = getattr(found, part)
    return found


@pytest.mark.parametrize("name", PUBLIC)
def test_public_functions_document_parameters_returns_and_examples(name):
    # The object itself: numpydoc's validate("minigr.operators.advance") would import the module of that name.
    errors = [f"{code}: {message}" for code, message in validate(get_doc_object(_object(name)))["errors"]
              if code in REQUIRED]
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("name", sorted(HELPERS))
def test_helpers_have_a_docstring(name):
    assert inspect.getdoc(getattr(transforms, name))


@pytest.mark.parametrize("name", PUBLIC)
def test_docstring_examples_run(name):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder(recurse=False).find(_object(name), name, globs={}):
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.attempted and not results.failed, f"{results.failed} of {results.attempted} examples failed"
