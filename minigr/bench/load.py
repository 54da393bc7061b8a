"""Loading benchmark: each graph written as a Matrix Market file (one line per
stored edge), then loaded from the text (which also writes the binary cache
beside it) and again from the cache. Host work, timed with a host clock."""
import os
import tempfile
import time

import numpy

from . import progress


def _timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def run(args, graphs):
    import scipy.io
    from ..io import load
    rows = []
    for name, spec in graphs.items():
        progress(f"load: generating {name} ...")
        graph = load(spec, device="cpu", cache=False)
        with tempfile.TemporaryDirectory(prefix="minigr-bench-") as folder:
            path = os.path.join(folder, f"{name}.mtx")
            progress(f"load: writing {path} ...")
            # every stored edge as an entry ("general"), so the file has num_edges lines
            scipy.io.mmwrite(path, graph.to_scipy(), field="pattern", symmetry="general")
            megabytes = os.path.getsize(path) / 1e6
            text, text_s = _timed(lambda: load(path, device="cpu", progress=False))
            cached, binary_s = _timed(lambda: load(path, device="cpu", progress=False))
            same = all(numpy.array_equal(numpy.asarray(a), numpy.asarray(b)) for a, b in
                       [(text.row_offsets, graph.row_offsets), (text.col_indices, graph.col_indices),
                        (cached.row_offsets, graph.row_offsets), (cached.col_indices, graph.col_indices)])
        rows.append({"suite": "load", "graph": name, "edges": graph.num_edges, "file_MB": megabytes,
                     "text_s": text_s, "binary_s": binary_s, "speedup": text_s / binary_s,
                     "text_Medges_per_s": graph.num_edges / text_s / 1e6, "validated": same})
    print(f"{'graph':<16}{'stored edges':>14}{'.mtx MB':>9}{'text s':>9}{'cache s':>9}{'speedup':>9}  same graph")
    for r in rows:
        print(f"{r['graph']:<16}{r['edges']:>14}{r['file_MB']:>9.0f}{r['text_s']:>9.2f}{r['binary_s']:>9.3f}"
              f"{r['speedup']:>8.0f}x  {r['validated']}")
    return rows
