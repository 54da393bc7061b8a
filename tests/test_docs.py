"""The user guide and API reference (docs/, Sphinx with numpydoc and MyST) build without
a warning; the public functions document their Parameters, Returns and Examples (numpydoc's
own checks), and the Examples run, on the GPU where there is one and on the CPU elsewhere."""
import doctest
import os
import subprocess
import sys

import pytest
from numpydoc.validate import validate

import minigr
from minigr import apps

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The public API that the reference documents with numpydoc's sections.
PUBLIC = ["minigr.load", "minigr.Graph", "minigr.Graph.from_edges", "minigr.Graph.from_csr",
          "minigr.Graph.from_scipy", "minigr.Graph.from_networkx", *(f"minigr.{name}" for name in apps.names())]
# numpydoc's codes for: no docstring; parameters missing, unknown or out of order; no Returns; no Examples.
REQUIRED = {"GL08", "PR01", "PR02", "PR03", "RT01", "EX01"}


def test_docs_build_without_warnings(tmp_path):
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           os.path.join(ROOT, "docs"), str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_reference_has_every_primitive():
    reference = open(os.path.join(ROOT, "docs", "reference.md")).read()
    assert [name for name in apps.names() if f".. autofunction:: minigr.{name}\n" not in reference] == []


@pytest.mark.parametrize("name", PUBLIC)
def test_public_functions_document_parameters_returns_and_examples(name):
    errors = [f"{code}: {message}" for code, message in validate(name)["errors"] if code in REQUIRED]
    assert not errors, "\n".join(errors)


def _object(name):
    found = minigr
    for part in name.split(".")[1:]:
        found = getattr(found, part)
    return found


@pytest.mark.parametrize("name", PUBLIC)
def test_docstring_examples_run(name):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder(recurse=False).find(_object(name), name, globs={}):
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.attempted and not results.failed, f"{results.failed} of {results.attempted} examples failed"
