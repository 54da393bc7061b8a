"""The scripts of examples/ run as written, on each backend, and give what an
independent reference gives (networkx, SciPy)."""
import os
import runpy
import subprocess
import sys

import networkx
import numpy
import pytest
import scipy.sparse.csgraph as csgraph

from conftest import to_host

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(name, device, monkeypatch, capsys):
    """examples/<name>.py run in this process on `device`: (its globals, what it printed)."""
    monkeypatch.setenv("MINIGR_DEVICE", device)
    found = runpy.run_path(os.path.join(ROOT, "examples", f"{name}.py"), run_name="__main__")
    return found, capsys.readouterr().out


def test_reach_example():
    done = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "reach.py")], capture_output=True,
                          text=True, env=dict(os.environ, MINIGR_DEVICE="cpu"))
    assert done.returncode == 0, done.stderr
    assert "2982 vertices reached from 777 in 4 hops" in done.stdout


def test_khop(device, monkeypatch, capsys):
    found, out = run("khop", device, monkeypatch, capsys)
    hops = networkx.single_source_shortest_path_length(networkx.from_scipy_sparse_array(found["graph"].to_scipy()),
                                                       found["center"], cutoff=found["k"])
    assert numpy.flatnonzero(to_host(found["within"])).tolist() == sorted(hops)
    assert f"{len(hops)} vertices within 3 hops of vertex 0" in out
    assert f"  3 hops: {sum(h == 3 for h in hops.values())}" in out


def test_multi_source_bfs(device, monkeypatch, capsys):
    found, out = run("multi_source_bfs", device, monkeypatch, capsys)
    sources, hops, nearest = (to_host(found[name]) for name in ("sources", "hops", "nearest"))
    distances = csgraph.shortest_path(found["graph"].to_scipy(), unweighted=True, indices=sources)
    expected = distances.min(axis=0)
    assert numpy.array_equal(numpy.where(hops < 0, numpy.inf, hops), expected)
    reached = numpy.flatnonzero(hops >= 0)
    row = {source: i for i, source in enumerate(sources.tolist())}
    assert all(distances[row[nearest[v]], v] == hops[v] for v in reached)   # nearest is a nearest source
    assert f"{int((hops < 0).sum())} unreached" in out


def test_personalized_pagerank(device, monkeypatch, capsys):
    found, out = run("personalized_pagerank", device, monkeypatch, capsys)
    g = networkx.from_scipy_sparse_array(found["graph"].to_scipy(), create_using=networkx.DiGraph)
    expected = networkx.pagerank(g, personalization={seed: 1 for seed in found["seeds"]}, weight=None)
    assert numpy.abs(found["rank"] - numpy.array([expected[v] for v in range(len(g))])).sum() < 1e-6  # same criterion
    assert found["top"][:3].tolist() == sorted(expected, key=lambda v: (-expected[v], v))[:3]
    assert "closest to [3, 5, 8]: [" in out


def test_random_walk(device, monkeypatch, capsys):
    found, out = run("random_walk", device, monkeypatch, capsys)
    graph, walks = found["graph"], to_host(found["walks"])
    adjacency, degree = graph.to_scipy(), to_host(graph.out_degrees())
    here, there = walks[:-1].ravel(), walks[1:].ravel()
    moved = numpy.asarray(adjacency[here, there]).ravel() != 0
    assert (moved | (here == there) & (degree[here] == 0)).all()       # every step follows an edge
    n = graph.num_vertices                                              # walkers w and w + n start alike
    twins = [w for w in range(walks.shape[1] - n) if degree[walks[0, w]] > 1]
    assert sum(numpy.array_equal(walks[:, w], walks[:, w + n]) for w in twins) < len(twins) / 2  # and part
    assert "2000 walks of 10 steps; most visited vertices: [" in out


def test_neighbor_reduction(device, monkeypatch, capsys):
    found, out = run("neighbor_reduction", device, monkeypatch, capsys)
    adjacency = found["graph"].to_scipy()
    expected = networkx.average_neighbor_degree(networkx.from_scipy_sparse_array(adjacency))
    assert numpy.allclose(to_host(found["average"]), [expected[v] for v in range(adjacency.shape[0])])
    degree = numpy.diff(adjacency.indptr)
    largest = [degree[adjacency.indices[a:b]].max(initial=0) for a, b in zip(adjacency.indptr, adjacency.indptr[1:])]
    assert to_host(found["largest"]).tolist() == largest
    assert f"largest neighbour degree: {max(largest)}" in out
