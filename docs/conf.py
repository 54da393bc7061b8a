"""Sphinx's settings for minigr's user guide and API reference: the guide's pages are
Markdown (MyST), most of them sections of the README included as they are, and the
reference is built from the docstrings (numpydoc). tests/test_docs.py builds it with
warnings as errors."""
project = "minigr"
extensions = ["sphinx.ext.autodoc", "numpydoc", "myst_parser"]
exclude_patterns = ["_build"]
myst_heading_anchors = 3              # the README's links to its own headings
numpydoc_show_class_members = False   # the reference lists the members it documents
autodoc_member_order = "bysource"
