"""A primitive on a graph split over several ranks (minigr.partition): on the
CPU backend the ranks are threads of this process (comm.ThreadGroup); on
GPUs, one process per GPU talking through NCCL, spawned here or started by an
MPI launcher. The vertices are cut into ranges in the order minigr.reorder
chooses (reorder="auto": the one leaving the fewest proxies, the user's
included; "none": the user's). Every rank runs the primitive's partitioned
form on its part; the parts' values are joined in rank order, as the vertex
ranges are, and put back in the user's order."""
import dataclasses
import multiprocessing
import numbers
import os
import queue
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

import numpy

from . import apps
from .arrays import to_host
from .comm import FAILED, NcclCommunicator, ThreadGroup, TimedCommunicator, new_nccl_id
from .part_checks import check_on_part
from .partition import Part, load_part
from .reorder import choose
from .transforms.backend import gpu_unavailable_reason
from .transforms.errors import DeviceError, MinigrError

# Set in every rank's environment: NVLink multicast can put a host's shared
# GPUs out of service; NCCL's bootstrap on one host goes over loopback; and
# without graph mixing support NCCL's calls can sit in a conditional node of
# a CUDA graph (with it, cudaGraphInstantiate refuses the loop: 2 H200s,
# NCCL 2.28.9, 2026-11-23).
NCCL_ENVIRONMENT = {"NCCL_NVLS_ENABLE": "0", "NCCL_SOCKET_IFNAME": "lo", "NCCL_GRAPH_MIXING_SUPPORT": "0"}
MPI_SIZE_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS")
# How long an MPI rank that failed waits for the others to end too before it aborts the job (see _meet_or_abort):
# ranks that fail alike (a user's mistake every rank sees) end within the time their work differs.
MPI_FAILED_WAIT_S = 30


def partitioned_record(name):
    """The catalog record of primitive `name`, which must have a partitioned form."""
    record = apps.record(name)
    if not record.partitioned:
        have = [n for n, r in apps.records().items() if r.partitioned]
        raise MinigrError(f"{name} has no partitioned form yet; these have: {', '.join(have)}")
    return record


def run_threads(graph, parts, name, *args, reorder="auto", **options):
    """Primitive `name` on `graph` (on the CPU) split into `parts` parts, one
    thread each, cut in the order minigr.reorder.choose(graph, parts,
    reorder) keeps: the whole graph's Result, with each part's in
    extra["parts"] and the order's facts (Part.order_facts) in extra."""
    run = apps.on_parts(partitioned_record(name))
    if graph.device != "cpu":
        raise MinigrError("partitions as threads run on the CPU backend; use run_gpus for GPUs")
    parts = _positive_count(parts, "parts")
    order = choose(graph, parts, reorder)
    group = ThreadGroup(parts)

    def rank(r):
        try:
            part = Part.from_graph(group.communicator(r), graph, order=order)
            result = run(part, *args, **options), part.order_facts()
        except BaseException:
            group.abort()
            raise
        group.leave()
        return result

    with ThreadPoolExecutor(parts) as pool:
        futures = [pool.submit(rank, r) for r in range(parts)]
    errors = [f.exception() for f in futures if f.exception() is not None]
    if errors:  # the first rank's own error, not another's "a rank failed"
        own = [e for e in errors if FAILED not in str(e)]
        raise (own or errors)[0]
    result = join([f.result()[0] for f in futures], order.user_ids)
    result.extra.update(futures[0].result()[1])
    return result


def _positive_count(value, name):
    """value (an int or a NumPy integer) as an int, or a MinigrError unless it is one of at least 1 (True is
    not a count)."""
    if isinstance(value, (bool, numpy.bool_)) or not isinstance(value, numbers.Integral) or value < 1:
        raise MinigrError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def mpi_size():
    """The number of ranks an MPI launcher (mpirun, srun) started, or 0 outside one."""
    for name in MPI_SIZE_VARIABLES:
        if os.environ.get(name, "").isdigit() and int(os.environ[name]) > 1:
            return int(os.environ[name])
    return 0


def run_gpus(source, gpus, name, *args, runs=1, load_options=None, reorder="auto", profile=False, check=False,
             **options):
    """Primitive `name` on the graph minigr.load(source, **load_options) gives
    (a file or generator spec), split over `gpus` GPUs, one process each
    talking through NCCL: spawned here, or, under an MPI launcher, the
    launcher's ranks (then only rank 0 gets the results; the others get None).
    Each rank builds its own part (load_part, cut in the order `reorder`
    keeps) and runs the primitive `runs` times after one warm-up: a list of
    joined Results, one per run, with the graph's, the order's and each
    part's facts in extra (Part.facts). A source of None is the vertex of
    highest out-degree. profile: each part's time in its own work and in
    communication (comm.TimedCommunicator) in its extra too. check: each
    rank checks the last run's result on its part (part_checks.check_on_part,
    for graphs no host holds whole), the verdict in extra["check"]."""
    partitioned_record(name)
    gpus = None if gpus is None else _positive_count(gpus, "gpus")  # None: under MPI, the launcher's ranks
    task = (source, name, args, options, dict(load_options or {}, reorder=reorder), runs, profile, check)
    if mpi_size():
        return _run_under_mpi(gpus, task)
    reason = gpu_unavailable_reason()
    found = 0 if reason else _gpu_count()
    if gpus is None or gpus > found:
        raise MinigrError(f"asked for {gpus} GPUs and this machine has {found}" + (f" ({reason})" if reason else ""))
    os.environ.update(NCCL_ENVIRONMENT)  # the spawned ranks inherit it
    context = multiprocessing.get_context("spawn")
    replies = context.Queue()
    unique_id = new_nccl_id()  # its bootstrap root lives in this process, which waits for the ranks
    ranks = [context.Process(target=_spawned_rank, args=(r, gpus, r, unique_id, task, replies), daemon=True)
             for r in range(gpus)]
    for process in ranks:
        process.start()
    try:
        return _gather(ranks, replies)
    finally:
        for process in ranks:
            if process.is_alive():
                process.terminate()
            process.join()


def _gpu_count():
    import cupy
    return cupy.cuda.runtime.getDeviceCount()


def _spawned_rank(rank, size, gpu, unique_id, task, replies):
    """A spawned rank: runs its part and puts (rank, error or None, results) on replies."""
    try:
        replies.put((rank, None, _rank_work(rank, size, gpu, unique_id, task)))
    except BaseException as exc:
        replies.put((rank, _error_text(exc), None))


def _rank_work(rank, size, gpu, unique_id, task):
    """This rank's part built and the primitive run on it: (its Results, values
    on the host; the user's ids of its own vertices, or None where the order is the user's)."""
    import cupy
    os.environ.update(NCCL_ENVIRONMENT)
    source, name, args, options, load_options, runs, profile, check = task
    cupy.cuda.Device(gpu).use()
    comm = NcclCommunicator(unique_id, size, rank)
    if profile:
        comm = TimedCommunicator(comm)
    part = load_part(comm, source, device="gpu", **load_options)
    record = partitioned_record(name)
    run = apps.on_parts(record)
    if record.sourced and args[0] is None:
        args = (part.highest_degree_vertex(),) + args[1:]
    facts = dict(part.facts(), source=args[0] if record.sourced else None)
    try:
        run(part, *args, **options)  # warm-up: compiles, builds the device loop
    except DeviceError as exc:  # every rank fails alike: their loops are captured alike
        if "cudaGraphInstantiate" not in str(exc) or options.get("loop", "device") != "device":
            raise
        options = dict(options, loop="host")
        facts["loop"] = f"host (the loop on the device failed: {exc})"
        run(part, *args, **options)
    results = []
    for i in range(runs):
        comm.barrier()  # the ranks start together, so no rank's time holds another's late start
        if profile:
            comm.restart()
        result = run(part, *args, **options)
        if profile:
            facts["local_ms"], facts["communication_ms"] = comm.wait_ms()
        if check and i == runs - 1:
            settings = {key: options[key] for key in ("damping", "tol") if key in options}
            facts["check"] = check_on_part(part, name, result.values, facts["source"], **settings)
        results.append(dataclasses.replace(result.to_host(), extra={**result.extra, **facts}))
    return results, part.owned_user_ids()


def _gather(ranks, replies):
    """The joined Results of the spawned ranks, or the first error (the other ranks are then stopped)."""
    results = {}
    while len(results) < len(ranks):
        try:
            rank, error, value = replies.get(timeout=1)
        except queue.Empty:
            # a rank that ended without a reply (killed, or its reply could not be sent) never sends one;
            # one more wait, for a reply it sent just before it ended
            ended = [r for r, p in enumerate(ranks) if p.exitcode is not None and r not in results]
            if not ended:
                continue
            try:
                rank, error, value = replies.get(timeout=5)
            except queue.Empty:
                raise MinigrError(f"GPU rank {ended[0]} ended (exit code {ranks[ended[0]].exitcode}) without "
                                  "reporting; its error, if any, is above on stderr") from None
        if error is not None:
            raise MinigrError(f"GPU rank {rank}: {error}")
        results[rank] = value
    return _join_runs([results[r] for r in range(len(ranks))])


def _run_under_mpi(gpus, task):
    """run_gpus under an MPI launcher: this process is one of its ranks, on GPU local rank % GPUs."""
    from mpi4py import MPI
    world = MPI.COMM_WORLD
    rank, size = world.Get_rank(), world.Get_size()
    if gpus not in (None, size):
        raise MinigrError(f"asked for {gpus} GPUs and the MPI launcher started {size} ranks; they must be equal")
    local = world.Split_type(MPI.COMM_TYPE_SHARED).Get_rank()
    unique_id = world.bcast(new_nccl_id() if rank == 0 else None, root=0)
    try:
        mine = (None, _rank_work(rank, size, local % _gpu_count(), unique_id, task))
    except BaseException as exc:
        mine = (_error_text(exc), None)
    _meet_or_abort(world, rank, mine[0])
    everyone = world.gather(mine, root=0)
    if rank != 0:
        return None
    for r, (error, _) in enumerate(everyone):
        if error is not None:
            raise MinigrError(f"MPI rank {r}: {error}")
    return _join_runs([value for _, value in everyone])


def _meet_or_abort(world, rank, error):
    """Every MPI rank meets here after its work. A rank that failed (error: its text) waits
    up to MPI_FAILED_WAIT_S for the others, which come where they failed alike (a mistake
    every rank sees); where they do not, they wait in NCCL for its part and would hang:
    it says its error on stderr and aborts the job (the launcher ends every rank)."""
    met = world.Ibarrier()
    if error is None:
        met.Wait()
        return
    deadline = time.monotonic() + MPI_FAILED_WAIT_S
    while not met.Test():
        if time.monotonic() > deadline:
            print(f"minigr: MPI rank {rank}: {error}\nminigr: the other ranks wait for this one's part; aborting "
                  "the job", file=sys.stderr, flush=True)
            world.Abort(1)
        time.sleep(0.01)


def _error_text(exc):
    """What a rank says of its error: a user's mistake in a line, anything else with its traceback."""
    if isinstance(exc, MinigrError):
        return str(exc)
    return "".join(traceback.format_exception(exc)).rstrip()


def _join_runs(ranks):
    """The joined Result of each run from every rank's (Results, user's ids of its own vertices)."""
    user_ids = None if ranks[0][1] is None else numpy.concatenate([ids for _, ids in ranks])
    return [join([results[i] for results, _ in ranks], user_ids) for i in range(len(ranks[0][0]))]


def join(results, user_ids=None):
    """One Result from the parts' Results, in rank order (values on the host),
    vertex i of that order put at user_ids[i] (None: the identity)."""
    values = {name: numpy.concatenate([to_host(r.values[name]) for r in results]) for name in results[0].values}
    if user_ids is not None:
        for name, joined in values.items():
            values[name] = numpy.empty_like(joined)
            values[name][user_ids] = joined
    first = results[0]
    parts = [dict(ms=r.ms, iterations=r.iterations, edges_visited=r.edges_visited, **r.extra) for r in results]
    return dataclasses.replace(first, values=values, ms=max(r.ms for r in results),
                               edges=sum(r.edges_visited for r in results), extra={**first.extra, "parts": parts})


__all__ = ["join", "mpi_size", "partitioned_record", "run_gpus", "run_threads"]
