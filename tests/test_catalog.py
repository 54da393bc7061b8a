"""The catalog of primitives (minigr.catalog): every app module has one record, consistent
with its app, and the CLI, the top-level functions, doctor and the bench all read it."""
import dataclasses
import inspect
import sys
import types

import numpy
import pytest

import minigr
from minigr import MinigrError, apps, catalog
from minigr.catalog import App, Option

NAMES = apps.names()


def test_every_app_module_is_in_the_catalog():
    assert {"bfs", "sssp", "pagerank", "color"} <= set(NAMES)
    assert list(apps.records()) == NAMES
    assert set(NAMES) <= set(minigr.__all__)


@pytest.mark.parametrize("name", NAMES)
def test_record_matches_its_app(name):
    app = apps.record(name)
    parameters = inspect.signature(app.run).parameters
    assert list(parameters)[0] == "graph"
    keywords = {p.name for p in parameters.values() if p.kind is p.KEYWORD_ONLY}
    for option in app.options:
        assert option.name in keywords, option.name
        assert parameters[option.name].default == option.default, option.name
        assert option.check(option.default) == option.default
    for variant in app.variants:
        assert set(variant) <= keywords
    assert set(app.needs) <= {"undirected", "no_self_loops", "weights", "weighted"}
    assert app.columns and app.run.__doc__ and app.help


@pytest.mark.parametrize("name", NAMES)
def test_record_columns_are_the_results_and_its_check_passes(name):
    """Each app on a small weighted graph, with its options' defaults or its first variant's: its
    columns are arrays of its result, one value per vertex (or all of one length, rows of edges
    or pairs), and its own reference check says ok."""
    app = apps.record(name)
    graph = minigr.load("kron:scale=6,edge_factor=4,seed=3", weights="random", device="cpu")
    source = int(graph.out_degrees().argmax()) if app.sourced else None
    options = {option.name: app.variants[0].get(option.name, option.default) for option in app.options}
    result = app.run(graph, *([source] if app.sourced else []), **options)
    assert set(app.columns) == set(result.values)
    rows = graph.num_vertices if app.rows == "vertex" else len(result.values[app.columns[0]])
    assert app.rows in ("vertex", "edge") and all(len(result.values[c]) == rows for c in app.columns)
    assert app.check(graph, source, result.values, options).startswith("ok")  # coloring adds its counts


@pytest.mark.gpu
@pytest.mark.parametrize("spec", ["kron:scale=8,edge_factor=4,seed=3", "grid:scale=6,seed=2"])
@pytest.mark.parametrize("name, loop", [(name, loop) for name in NAMES for loop in apps.record(name).loop_modes])
def test_every_loop_mode_of_every_app_passes_its_check(name, loop, spec):
    """Every loop mode an app's record names runs on the GPU (persistent: its body as the stages
    of one kernel) and its own reference check says ok."""
    app = apps.record(name)
    graph = minigr.load(spec, weights="random", device="gpu")
    source = int(graph.out_degrees().argmax()) if app.sourced else None
    options = {option.name: app.variants[0].get(option.name, option.default) for option in app.options}
    result = getattr(minigr, name)(graph, *([source] if app.sourced else []), loop=loop, **options)
    assert app.check(graph, source, result.values, options).startswith("ok")


def test_a_loop_mode_an_app_does_not_name_is_refused():
    """pagerank's loop body launches kernels that need a grid of their own on some graphs (its pull
    over kron's skew): loop="persistent" failed there, deep in the run; any mode the record does not
    name is refused before any work, each naming the ones there are."""
    graph = minigr.load("grid:scale=4", device="cpu")
    with pytest.raises(MinigrError, match=r"^pagerank: loop must be one of \('device', 'host'\), got 'persistent'$"):
        minigr.pagerank(graph, loop="persistent")
    modes = r"\('device', 'host', 'persistent', 'auto', 'async'\)"
    with pytest.raises(MinigrError, match=rf"^bfs: loop must be one of {modes}, got 'fast'$"):
        minigr.bfs(graph, 0, loop="fast")
    assert apps.record("betweenness").loop_modes == ("device", "host", "persistent", "auto")
    assert apps.record("triangles").loop_modes == ()  # it does not loop: loop= is an unknown keyword


@pytest.mark.parametrize("name", NAMES)
def test_top_level_function_follows_the_record(name):
    app = apps.record(name)
    function = getattr(minigr, name)
    assert function.__name__ == name
    assert set(inspect.cleandoc(app.run.__doc__).splitlines()) <= set(function.__doc__.splitlines())  # the app's doc
    parameters = inspect.signature(function).parameters
    assert ("source" in parameters) == app.sourced and "device" in parameters
    for option in app.options:
        wrong = "yes" if option.kind is not bool else 2
        with pytest.raises(MinigrError, match=f"{option.name} must be "):
            function("grid:scale=4", *([0] if app.sourced else []), device="cpu", **{option.name: wrong})
    # run's other flags (weighted, normalized) too: "no" is truthy, and weighted="no" ran weighted
    for flag in [p.name for p in inspect.signature(app.run).parameters.values() if isinstance(p.default, bool)]:
        with pytest.raises(MinigrError, match=f"^{flag} must be True or False, got 'no'$"):
            function("grid:scale=4", *([0] if app.sourced else []), device="cpu", **{flag: "no"})


def test_needs_are_checked_on_every_call():
    """What a primitive needs (catalog.needs) refuses a graph on a direct call as through
    minigr.<name>, and its record reads it; a source is checked by position or keyword."""
    from minigr.apps.bfs import bfs
    path = minigr.Graph.from_edges([0, 1], [1, 2], device="cpu")
    assert apps.record("ktruss").needs == {"undirected": "ktruss", "no_self_loops": "the k-truss is"}
    assert apps.record("wcc").needs == {} and apps.record("sssp").needs == {"weights": "SSSP"}
    for call in (lambda: bfs(path, 3), lambda: bfs(path, source=3), lambda: minigr.bfs(path, 3)):
        with pytest.raises(MinigrError, match="source 3 is out of range"):
            call()
    assert bfs(path, source=numpy.int64(1)).depth.tolist() == [-1, 0, 1]
    for source, refusal in ((3, "source 3 is out of range"), (0, "SSSP needs edge weights")):  # the source first
        with pytest.raises(MinigrError, match=refusal):
            apps.record("sssp").run(path, source)
    for name in ("pagerank", "louvain"):
        with pytest.raises(MinigrError, match="needs edge weights" if name == "pagerank" else "undirected"):
            apps.record(name).run(path, weighted=True)


def test_option_checks():
    flag = Option("fast", bool, False, "")
    assert flag.flag == "--fast" and flag.check(numpy.bool_(True))
    with pytest.raises(MinigrError, match="fast must be True or False, got 1"):
        flag.check(1)
    count = Option("max_iter", int, 10, "", catalog.ITERATIONS)
    assert count.flag == "--max-iter" and count.check(numpy.int64(3)) == 3
    assert type(count.check(numpy.int64(3))) is int and type(flag.check(numpy.bool_(True))) is bool
    for wrong in (0, 2**31):
        with pytest.raises(MinigrError, match=rf"--max-iter must be from 1 to 2\^31 - 1, got {wrong}"):
            count.check(wrong, "--max-iter")
    with pytest.raises(MinigrError, match=r"max_iter must be an integer, got True"):
        count.check(True)
    width = Option("delta", float, None, "", catalog.POSITIVE)
    assert width.check(None) is None and width.check(2) == 2
    with pytest.raises(MinigrError, match=r"delta must be a positive number, got inf"):
        width.check(float("inf"))


def test_positive_or_words():
    """A kind of positive numbers or words: the CLI's text read, Python's values (NumPy's too) checked."""
    import argparse
    kind = catalog.PositiveOrWords({"all": -1, "half": "half"}, "a positive number, 'all' or 'half'")
    width = Option("width", kind, "half", "", kind.valid)
    assert kind("all") == -1 and kind("half") == "half" and kind("0.5") == 0.5
    assert width.check(-1) == -1 and width.check("half") == "half" and width.check(numpy.float32(2)) == 2.0
    with pytest.raises(argparse.ArgumentTypeError, match="expected a positive number, 'all' or 'half', got 'x'"):
        kind("x")
    for wrong in (0, -2, float("inf"), float("nan"), True, numpy.bool_(True), "all", None):
        with pytest.raises(MinigrError, match="width must be a positive number, 'all' or 'half', got "):
            width.check(wrong)


def test_list_options():
    """Lists of vertex ids or pairs: read from the CLI's text, checked in Python (arrays too)."""
    import argparse
    sources = Option("sources", catalog.vertex_ids, None, "", catalog.IDS)
    assert catalog.vertex_ids("3,8,12") == [3, 8, 12] and sources.check(numpy.array([1, 2])).tolist() == [1, 2]
    assert catalog.vertex_pairs("0-1,2-7") == [(0, 1), (2, 7)] and catalog.vertex_pairs("") == []
    for text, parse in (("1,x", catalog.vertex_ids), ("0-1,2", catalog.vertex_pairs), ("0:1", catalog.vertex_pairs)):
        with pytest.raises(argparse.ArgumentTypeError, match="expected"):
            parse(text)
    for bad in ([], "12", 3, [1.5], [[1, 2]], [True]):
        with pytest.raises(MinigrError, match="sources must be a non-empty list of vertex ids"):
            sources.check(bad)
    pairs = Option("pairs", catalog.vertex_pairs, None, "", catalog.PAIRS)
    assert pairs.check([(0, 1)]) == [(0, 1)] and pairs.check([]) == []
    for bad in ([1, 2], [(0, 1, 2)], [(0, 1), (2,)]):
        with pytest.raises(MinigrError, match="pairs must be a list of vertex pairs"):
            pairs.check(bad)


def test_a_module_without_a_record_is_named(monkeypatch):
    monkeypatch.setattr(apps, "names", lambda: ["stray"])
    monkeypatch.setitem(sys.modules, "minigr.apps.stray", types.ModuleType("minigr.apps.stray"))
    apps.record.cache_clear()
    try:
        with pytest.raises(MinigrError, match=r"minigr.apps.stray must end with APP = App\('stray', \.\.\.\)"):
            apps.records()
    finally:
        apps.record.cache_clear()


def test_a_record_needs_no_other_file(monkeypatch, capsys):
    """A primitive added as one module: the CLI, the top-level function and doctor's samples take it."""
    from minigr import doctor
    from minigr.cli import main
    from minigr.enactor import Result

    def degree(graph, *, scale=1.0):
        """Each vertex's out-degree times scale."""
        return Result({"degree": graph.out_degrees() * scale}, 1, 0.0, graph.num_edges)

    module = types.ModuleType("minigr.apps.degree")
    module.APP = App("degree", degree, "out-degree of every vertex", ("degree",),
                     lambda graph, source, values, options: "ok",
                     options=(Option("scale", float, 1.0, "a factor", catalog.POSITIVE),))
    monkeypatch.setitem(sys.modules, "minigr.apps.degree", module)
    monkeypatch.setattr(apps, "names", lambda: NAMES + ["degree"])
    monkeypatch.setattr(minigr, "_EXPORTS", {**minigr._EXPORTS, "degree": "primitives"})
    apps.record.cache_clear()
    try:
        assert main(["degree", "grid:scale=4", "--device", "cpu", "--scale", "2", "--validate", "--json"]) == 0
        assert '"validation": "ok"' in capsys.readouterr().out
        assert main(["degree", "grid:scale=4", "--scale", "-1"]) == 2
        assert "--scale must be a positive number, got -1.0" in capsys.readouterr().err
        assert minigr.degree("grid:scale=4", device="cpu", scale=3.0).degree.max() == 12
        calls = []
        module.APP = dataclasses.replace(module.APP, run=lambda graph, **options: calls.append(graph.directed))
        monkeypatch.setattr(apps, "names", lambda: ["degree"])
        apps.record.cache_clear()
        doctor.primitive_samples()
        assert calls == [bool(options.get("directed")) for _, options in doctor.SAMPLE_GRAPHS]  # each sample graph
    finally:
        apps.record.cache_clear()
        vars(minigr).pop("degree", None)  # kept there by its first use
