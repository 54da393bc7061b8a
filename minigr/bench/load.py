"""Getting graphs in, per graph, each task against what a user would do instead:

  generate    minigr's generator on the GPU and on the host (rgg also: SciPy's cKDTree pairs)
  read .mtx   minigr.load of the graph written as Matrix Market; scipy.io.mmread + tocsr
  read .mgr   minigr.load of the same file again, from the .mgr cache the first load wrote
  read .txt   minigr.load of the graph written as an edge list; pandas.read_csv +
              scipy.sparse (when pandas is installed); networkx.read_edgelist (small graphs)
  build CSR   Graph.from_edges from shuffled edge arrays, on the GPU (CuPy arrays) and the
              host; cupyx.scipy.sparse / scipy.sparse coo -> csr

Host clock, the GPU synchronized; GPU work is the median of GPU_RUNS after a warm-up run
(which compiles CuPy's kernels), host work runs once. Every result is checked to be the same
graph as minigr's."""
import os
import statistics
import tempfile
import time

import numpy

from ..graph import to_host
from ..transforms.backend import gpu_unavailable_reason
from . import progress
from .report import Column, format_table

GPU_RUNS = 3
NETWORKX_MAX_EDGES = 1_000_000
COLUMNS = [Column("graph", "graph", "{}", True), Column("task", "task", "{}", True),
           Column("system", "system", "{}", True), Column("edges", "edges", "{}"),
           Column("s", "s", "{:.3f}"), Column("Medges/s", "Medges_per_s", "{:.1f}"),
           Column("minigr speedup", "minigr_speedup", "{:.1f}x"), Column("check", "check", "{}", True)]


def run(args, graphs):
    from ..io import load, specs
    gpu = gpu_unavailable_reason() is None
    rows = []
    for name, spec in graphs.items():
        progress(f"load: {name} ...")
        graph = load(spec, device="cpu", cache=False)
        if specs.is_spec(spec):
            rows += _generation(name, spec, graph, gpu)
        with tempfile.TemporaryDirectory(prefix="minigr-bench-") as folder:
            rows += _files(name, graph, folder, gpu)
        rows += _building(name, graph, gpu)
    for row in rows:
        row["suite"] = "load"
    _speedups(rows)
    print(format_table(rows, COLUMNS))
    return rows


def _generation(name, spec, graph, gpu):
    from ..io import specs
    generate, params = specs.parse(spec)
    systems = [("minigr (GPU)", lambda: generate(**params, device="gpu"), True)] if gpu else []
    systems.append(("minigr (host)", lambda: generate(**params, device="cpu"), False))
    if spec.startswith("rgg:"):
        systems.append(("SciPy cKDTree pairs (host)", lambda: _kdtree_rgg(params), False))
    return [_measure(name, "generate", system, fn, on_gpu, graph)
            for system, fn, on_gpu in systems]


def _files(name, graph, folder, gpu):
    import scipy.io
    from ..io import load
    mtx, txt = os.path.join(folder, f"{name}.mtx"), os.path.join(folder, f"{name}.txt")
    progress(f"load: writing {mtx} and {txt} ...")
    # every stored edge as an entry ("general"), so the files have num_edges lines
    scipy.io.mmwrite(mtx, graph.to_scipy(), field="pattern", symmetry="general")
    _write_edge_list(txt, graph)
    systems = [("read .mtx", "minigr", lambda: load(mtx, device="cpu", cache=False)),
               ("read .mtx", "scipy.io.mmread + tocsr", lambda: scipy.io.mmread(mtx).tocsr()),
               *([("read .mtx", "minigr, CSR built on the GPU", lambda: load(mtx, device="gpu", cache=False))]
                 if gpu else []),
               ("read .mgr", "minigr, the .mtx file's cache", _cached(mtx)),
               ("read .txt", "minigr", lambda: load(txt, device="cpu", cache=False))]
    if _importable("pandas"):
        systems.append(("read .txt", "pandas.read_csv + scipy.sparse", lambda: _pandas(txt)))
    if graph.num_edges <= NETWORKX_MAX_EDGES:
        systems.append(("read .txt", "networkx.read_edgelist", lambda: _networkx(txt, graph)))
    rows = [_measure(name, task, system, fn, False, graph) for task, system, fn in systems]
    rows.append({"graph": name, "task": "files", "system": f".mtx {os.path.getsize(mtx) / 1e6:.0f} MB, "
                 f".txt {os.path.getsize(txt) / 1e6:.0f} MB"})
    return rows


def _cached(path):
    """A loader of `path`'s .mgr cache, which it writes first (untimed)."""
    from ..io import load
    load(path, device="cpu")
    return lambda: load(path, device="cpu")


def _building(name, graph, gpu):
    import scipy.sparse
    from ..graph import Graph
    n = graph.num_vertices
    order = numpy.random.default_rng(0).permutation(graph.num_edges)
    src, dst = graph.edge_sources()[order], graph.col_indices[order]
    systems = []
    if gpu:
        import cupy
        import cupyx.scipy.sparse
        gsrc, gdst = cupy.asarray(src), cupy.asarray(dst)
        ones = cupy.ones(len(gsrc), numpy.float32)
        systems += [("minigr (GPU, CuPy arrays)",
                     lambda: Graph.from_edges(gsrc, gdst, num_vertices=n, device="gpu"), True),
                    ("cupyx.scipy.sparse coo -> csr",
                     lambda: cupyx.scipy.sparse.coo_matrix((ones, (gsrc, gdst)), shape=(n, n)).tocsr(),
                     True)]
    systems += [("minigr (host)", lambda: Graph.from_edges(src, dst, num_vertices=n, device="cpu"), False),
                ("scipy.sparse coo -> csr", lambda: scipy.sparse.coo_matrix(
                    (numpy.ones(len(src), numpy.float32), (src, dst)), shape=(n, n)).tocsr(), False)]
    return [_measure(name, "build CSR", system, fn, on_gpu, graph) for system, fn, on_gpu in systems]


def _measure(name, task, system, fn, on_gpu, expected):
    """One row: the seconds of fn() (GPU: median of GPU_RUNS after a warm-up) and whether its
    result is the same graph as `expected`; an error goes in the row."""
    progress(f"load: {name}: {task}: {system} ...")
    row = {"graph": name, "task": task, "system": system}
    try:
        if on_gpu:
            fn()
            seconds = [_seconds(fn, True) for _ in range(GPU_RUNS)]
            result, row["s"] = seconds[-1][0], statistics.median(s for _, s in seconds)
        else:
            result, row["s"] = _seconds(fn, False)
    except Exception as exc:  # a failing system is reported in its row; the others go on
        row["error"] = f"{type(exc).__name__}: {exc}"
        return row
    row["edges"] = expected.num_edges
    row["Medges_per_s"] = expected.num_edges / row["s"] / 1e6
    row["check"] = "same graph" if _same_pattern(result, expected) else "DIFFERENT graph"
    return row


def _seconds(fn, on_gpu):
    if on_gpu:
        import cupy
        cupy.cuda.Device().synchronize()
    start = time.perf_counter()
    result = fn()
    if on_gpu:
        cupy.cuda.Device().synchronize()
    return result, time.perf_counter() - start


def _same_pattern(result, expected):
    """Whether `result` (a Graph, a (cupyx.)scipy.sparse matrix, or (src, dst) pairs of an
    undirected graph) has exactly the edges of the Graph `expected`."""
    from ..graph import Graph
    if isinstance(result, tuple):
        import scipy.sparse
        n = expected.num_vertices
        src, dst = result
        result = scipy.sparse.coo_matrix((numpy.ones(2 * len(src)), (numpy.r_[src, dst], numpy.r_[dst, src])),
                                         shape=(n, n)).tocsr()
    if isinstance(result, Graph):
        offsets, columns = result.row_offsets, result.col_indices
    else:
        result = result.get() if hasattr(result, "get") else result
        result.sort_indices()
        offsets, columns = result.indptr, result.indices
    offsets, want = to_host(offsets), to_host(expected.row_offsets)
    if 0 < len(offsets) < len(want):  # an edge list does not know isolated vertices at the end
        offsets = numpy.r_[offsets, numpy.full(len(want) - len(offsets), offsets[-1])]
    return (numpy.array_equal(offsets, want)
            and numpy.array_equal(to_host(columns), to_host(expected.col_indices)))


def _speedups(rows):
    """minigr_speedup in each alternative's row: its seconds over minigr's best for the task."""
    best = {}
    for row in rows:
        if row["system"].startswith("minigr") and "s" in row:
            key = (row["graph"], row["task"])
            best[key] = min(best.get(key, row["s"]), row["s"])
    for row in rows:
        key = (row["graph"], row["task"])
        if not row["system"].startswith("minigr") and "s" in row and key in best:
            row["minigr_speedup"] = row["s"] / best[key]


def _write_edge_list(path, graph):
    """`graph` as a SNAP-style edge list "src dst", one line per stored edge."""
    import pyarrow
    import pyarrow.csv
    table = pyarrow.table({"src": graph.edge_sources(), "dst": graph.col_indices})
    pyarrow.csv.write_csv(table, path, pyarrow.csv.WriteOptions(include_header=False, delimiter=" "))


def _kdtree_rgg(params):
    """The pairs a SciPy user would find for rgg's points and radius (cKDTree.query_pairs)."""
    import math

    from scipy.spatial import cKDTree
    from ..generators import rgg_points
    n = 1 << params["scale"]
    points = numpy.column_stack(rgg_points(numpy, n, params["seed"])) / 2.0**30
    radius = 0.55 * math.sqrt(math.log(n) / n)
    pairs = cKDTree(points).query_pairs(radius, output_type="ndarray")
    near = ((points[pairs[:, 0]] - points[pairs[:, 1]]) ** 2).sum(axis=1) < radius * radius
    return pairs[near, 0], pairs[near, 1]


def _pandas(path):
    import pandas
    import scipy.sparse
    frame = pandas.read_csv(path, sep=" ", header=None, names=["src", "dst"], dtype="int64")
    n = int(max(frame["src"].max(), frame["dst"].max())) + 1
    return scipy.sparse.coo_matrix((numpy.ones(len(frame), numpy.float32), (frame["src"], frame["dst"])),
                                   shape=(n, n)).tocsr()


def _networkx(path, graph):
    import networkx
    g = networkx.read_edgelist(path, nodetype=int, create_using=networkx.MultiDiGraph)
    g.add_nodes_from(range(graph.num_vertices))  # isolated vertices are not in the file
    return networkx.to_scipy_sparse_array(g, nodelist=range(graph.num_vertices), format="csr")


def _importable(module):
    import importlib.util
    return importlib.util.find_spec(module) is not None
