"""A primitive on a graph split over several ranks (minigr.partition): on the
CPU backend the ranks are threads of this process (comm.ThreadGroup); on
GPUs, one process per GPU talking through NCCL, spawned here or started by an
MPI launcher. Every rank runs the primitive's partitioned form on its part;
the parts' values are joined in rank order, as the vertex ranges are."""
import dataclasses
from concurrent.futures import ThreadPoolExecutor

import numpy

from . import catalog
from .arrays import to_host
from .comm import ThreadGroup
from .enactor import Result
from .partition import Part
from .transforms.errors import MinigrError


def partitioned_record(name):
    """The catalog record of primitive `name`, which must have a partitioned form."""
    record = catalog.app(name)
    if record.partitioned is None:
        have = [n for n, r in catalog.apps().items() if r.partitioned is not None]
        raise MinigrError(f"{name} has no partitioned form yet; these have: {', '.join(have)}")
    return record


def run_threads(graph, parts, name, *args, **options):
    """Primitive `name` on `graph` (on the CPU) split into `parts` parts, one
    thread each: the whole graph's Result, with each part's in extra["parts"]."""
    record = partitioned_record(name)
    if graph.device != "cpu":
        raise MinigrError("partitions as threads run on the CPU backend; use run_gpus for GPUs")
    if not isinstance(parts, int) or parts < 1:
        raise MinigrError(f"parts must be a positive integer, got {parts!r}")
    group = ThreadGroup(parts)

    def rank(r):
        try:
            part = Part.from_graph(group.communicator(r), graph)
            return record.partitioned(part, *args, **options)
        except BaseException:
            group.abort()
            raise

    with ThreadPoolExecutor(parts) as pool:
        futures = [pool.submit(rank, r) for r in range(parts)]
    errors = [f.exception() for f in futures if f.exception() is not None]
    if errors:  # the first rank's own error, not another's "a rank failed"
        own = [e for e in errors if "another rank" not in str(e)]
        raise (own or errors)[0]
    return join([f.result() for f in futures])


def join(results):
    """One Result from the parts' Results, in rank order (values on the host)."""
    values = {name: numpy.concatenate([to_host(r.values[name]) for r in results]) for name in results[0].values}
    first = results[0]
    parts = [dict(ms=r.ms, iterations=r.iterations, edges_visited=r.edges_visited, **r.extra) for r in results]
    return dataclasses.replace(first, values=values, ms=max(r.ms for r in results),
                               edges_visited=sum(r.edges_visited for r in results), extra={**first.extra, "parts": parts})


__all__ = ["Result", "join", "partitioned_record", "run_threads"]
