"""Scaling over GPUs: BFS, SSSP, PageRank and WCC on one GPU (the plain primitive)
and on the graph split over P GPUs (minigr.multi.run_gpus: one process per GPU,
NCCL), on the same graphs and sources, side by side: median time, iterations,
speedup over one GPU (in time; per iteration it differs where the parts take
more iterations: SSSP's buckets, WCC's rounds), the bytes each rank sends per
iteration, and where the P-GPU time goes: each rank's own work and its time in
communication (transfers, and waiting for slower ranks), from one more run with
timing marks (comm.TimedCommunicator; they cost a little, so that run is not
the one timed), the order the parts are cut in (minigr.reorder: its name, the
proxies it leaves as a share of the vertices, and the time to choose it and
renumber, apart from the runs). The P-GPU results are checked against one
GPU's; a graph larger than one GPU (graphs.LARGER, chosen by name with
--graph kron_s28_e16) runs on the P GPUs only, its results checked on the
parts by invariants (part_checks)."""
import statistics

import numpy

from .. import apps
from ..graph import to_host
from . import progress
from .graphs import LARGER
from .report import Column, format_table

# grid_22_ordered: ids row by row, as a road network's file order keeps neighbours close
GRAPHS = {"kron_s25_e16": "kron:scale=25,edge_factor=16,seed=1", "grid_22": "grid:scale=22,seed=1",
          "grid_22_ordered": "grid:scale=22,seed=1,permute=0"}
QUICK = {"kron_s16_e16": "kron:scale=16,edge_factor=16,seed=1", "grid_16": "grid:scale=16,seed=1",
         "grid_16_ordered": "grid:scale=16,seed=1,permute=0"}
CASES = (("bfs", "depth", {}), ("sssp", "distance", {}), ("pagerank", "rank", {"tol": 1e-9, "max_iter": 1000}),
         ("wcc", "component", {}))
COLUMNS = [Column("graph", "graph", "{}", True), Column("primitive", "primitive", "{}", True),
           Column("GPUs", "gpus", "{}"), Column("ms", "ms", "{:.3f}"), Column("iterations", "iterations", "{}"),
           Column("ms/iteration", "ms_per_iteration", "{:.4f}"), Column("speedup", "speedup", "{:.2f}x"),
           Column("order", "order", "{}", True), Column("proxies", "proxies", "{}", True),
           Column("order ms", "order_ms", "{}", True),
           Column("MB sent/iteration/rank", "mb_sent_per_iteration", "{}", True),
           Column("own work ms by rank", "own_ms", "{}", True),
           Column("communication ms by rank", "communication_ms", "{}", True), Column("check", "check", "{}", True)]


def run(args, graphs):
    """The scaling rows for each graph (default GRAPHS, --quick QUICK) on 1 and --gpus GPUs."""
    import cupy
    gpus = args.gpus or cupy.cuda.runtime.getDeviceCount()
    if args.graph is None:
        graphs = dict(QUICK if args.quick else GRAPHS)
    rows = []
    for name, spec in graphs.items():
        if spec in LARGER.values():
            single = {app: (dict(source=None), None) for app, _, _ in CASES}
        else:
            progress(f"scaling: {name} on 1 GPU ...")
            single = _one_gpu(spec, args)
            rows += [dict(graph=name, primitive=app, gpus=1, **row) for app, (row, _) in single.items()]
        for app, key, options in CASES:
            progress(f"scaling: {name} {app} on {gpus} GPUs ...")
            rows.append(dict(graph=name, primitive=app, gpus=gpus,
                             **_gpus(spec, gpus, app, key, options, single[app], args)))
    for row in rows:
        row["suite"] = "scaling"
    print(format_table(rows, COLUMNS))
    return rows


def _one_gpu(spec, args):
    """app -> (row, values) of the plain primitives on one GPU; the graph is freed after."""
    import cupy
    import minigr
    graph = minigr.load(spec, weights="random", device="gpu")
    source = int(graph.out_degrees().argmax())
    found = {}
    for app, key, options in CASES:
        run = getattr(minigr, app)
        arguments = (source,) if apps.record(app).sourced else ()
        for _ in range(args.warmup):
            run(graph, *arguments, **options)
        results = [run(graph, *arguments, **options) for _ in range(args.runs)]
        ms = statistics.median(r.ms for r in results)
        found[app] = (dict(ms=ms, iterations=results[0].iterations, ms_per_iteration=ms / results[0].iterations,
                           source=source), to_host(results[-1].values[key]))
    del graph, results
    cupy.get_default_memory_pool().free_all_blocks()
    return found


def _gpus(spec, gpus, app, key, options, single, args):
    """The row of `app` on `gpus` GPUs, checked against the one-GPU values."""
    from ..multi import run_gpus
    row, expected = single
    arguments = (row["source"],) if apps.record(app).sourced else ()
    load = {"weights": "random"}
    results = run_gpus(spec, gpus, app, *arguments, runs=args.runs, load_options=load, check=expected is None,
                       **options)
    (profiled,) = run_gpus(spec, gpus, app, *arguments, load_options=load, profile=True, **options)
    ms = statistics.median(r.ms for r in results)
    got = results[-1].values[key]
    if expected is None:  # checked on the parts instead
        check = f"invariants {results[-1].check}"
    else:
        same = (numpy.allclose(got, expected, rtol=0, atol=1e-12) if app == "pagerank" else
                numpy.array_equal(got, expected))
        check = "same" if same else "DIFFERENT"
    iterations = results[0].iterations
    first = results[0]
    proxies = sum(p["proxies"] for p in first.parts)
    return dict(ms=ms, iterations=iterations, ms_per_iteration=ms / iterations,
                speedup=row["ms"] / ms if "ms" in row else None,
                order=first.extra.get("reorder", "by parts"), proxies=f"{proxies} ({proxies / first.vertices:.1%})",
                order_ms=first.extra.get("reorder_ms", "-"),
                mb_sent_per_iteration=" ".join(f"{p['bytes_sent_per_iteration'] / 1e6:.2f}" for p in results[0].parts),
                own_ms=" ".join(f"{p['local_ms']:.2f}" for p in profiled.parts),
                communication_ms=" ".join(f"{p['communication_ms']:.2f}" for p in profiled.parts), check=check)
