"""AdvanceFunctor: an advance functor stated by its cond and apply bodies alone, the same
as one written out in full; mistakes named before and by the compiler, at the user's line."""
import numpy
import pytest

from conftest import to_host
from minigr import Graph
from minigr.frontier import Frontier
from minigr.operators import AdvanceFunctor, advance, advance_pull
from minigr.transforms import CompileError, Functor, MinigrError

FULL = """
bool cond(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    return atomicCAS(&hops[dst], -1, iteration + 1) == -1;
}
void apply(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    parent[dst] = src;
}"""


def levels(graph, make):
    """BFS by push advance from vertex 0 with the functor make(hops, parent) builds."""
    n = graph.num_vertices
    hops, parent = graph.xp.full(n, -1, dtype=numpy.int32), graph.xp.full(n, -1, dtype=numpy.int32)
    hops[0] = 0
    op, frontier, level = make(hops, parent), Frontier.from_ids(0, n, graph.device), 0
    while frontier.wait_size():
        advance(graph, frontier, op, out=frontier, iteration=level)
        frontier.next_level()
        level += 1
    return to_host(hops), to_host(parent)


def test_the_same_as_the_functor_written_out(device):
    graph = Graph.from_edges([0, 0, 1, 2, 3, 5], [1, 2, 3, 3, 4, 6], num_vertices=7, device=device)
    short = levels(graph, lambda hops, parent: AdvanceFunctor(
        cond="return atomicCAS(&hops[dst], -1, iteration + 1) == -1;", apply="parent[dst] = src;",
        hops=hops, parent=parent))
    full = levels(graph, lambda hops, parent: Functor(FULL, hops=hops, parent=parent))
    assert short[0].tolist() == full[0].tolist() == [0, 1, 1, 2, 3, -1, -1]
    assert short[1].tolist() == full[1].tolist()


def test_pull_takes_one_too(device):
    graph = Graph.from_edges([0, 1], [2, 2], device=device)
    seen = graph.xp.zeros(3, dtype=numpy.int32)
    advance_pull(graph, AdvanceFunctor(cond="return src == 1;", apply="seen[dst] = src + 10;", seen=seen),
                 Functor("bool operator()(int v) const { return v == 2; }"))
    assert to_host(seen).tolist() == [0, 0, 11]


def test_a_compile_error_names_the_body_and_its_line():
    graph = Graph.from_edges([0], [1], device="cpu")
    op = AdvanceFunctor(cond="return true;", apply="\n    parent[dst] = sorce;", filename="<mine>",
                        parent=numpy.zeros(2, numpy.int32))
    with pytest.raises(CompileError, match=r"<mine> apply:2:.*sorce"):
        advance(graph, None, op)


def test_a_gpu_only_construct_is_named_at_its_line():
    graph = Graph.from_edges([0], [1], device="cpu")
    op = AdvanceFunctor(cond="\n\n    return __shfl_sync(0, dst, 0) > 0;", filename="<mine>")
    with pytest.raises(MinigrError, match=r"<mine> cond:3: `__shfl_sync` is GPU-only"):
        advance(graph, None, op)


@pytest.mark.parametrize("name", ["src", "iteration", "edge"])
def test_a_capture_a_parameter_would_hide_is_refused(name):
    with pytest.raises(MinigrError, match=f"capture {name!r} has the name of a parameter of cond and apply"):
        AdvanceFunctor(cond="return true;", **{name: numpy.zeros(1)})


def test_a_functor_without_cond_or_apply_is_refused_before_compiling():
    graph = Graph.from_edges([0], [1], device="cpu")
    only_cond = Functor("bool cond(int s, int d, long long e, long long r, long long o, int it) const "
                        "{ return true; }", filename="<half>")
    with pytest.raises(MinigrError, match=r"advance: functor <half> defines no apply; write it as AdvanceFunctor"):
        advance(graph, None, only_cond)


def test_a_file_defining_cond_and_apply_loads_as_a_functor_not_an_advance_functor(device, tmp_path):
    """A .cu file defines cond and apply itself: Functor.from_file takes it, and advance
    runs it as it runs the functor written out; AdvanceFunctor.from_file, which would make
    the file's text cond's body, says so instead."""
    path = tmp_path / "visit.cu"
    path.write_text(FULL)
    graph = Graph.from_edges([0, 0, 1, 2, 3, 5], [1, 2, 3, 3, 4, 6], num_vertices=7, device=device)
    loaded = levels(graph, lambda hops, parent: Functor.from_file(str(path), hops=hops, parent=parent))
    assert loaded[0].tolist() == [0, 1, 1, 2, 3, -1, -1]
    with pytest.raises(MinigrError, match=r"visit\.cu.*load it with Functor\.from_file"):
        AdvanceFunctor.from_file(str(path), hops=graph.xp.zeros(7, dtype=numpy.int32))
