"""Graph operators, each a short composition of transforms and a graph functor."""
from .advance import AdvanceFunctor, advance, advance_pull
from .compute import compute
from .filter import filter_frontier
from .intersect import intersect_neighbors
from .neighbor_groups import NeighborGroups
from .neighbor_reduce import neighbor_reduce, smallest_in_neighbour
from .priority_queue import Buckets
from .pull import Pull, gather, pull_blocks
from .push_pull import PushPull
from .reduce_vertices import reduce_vertices
from .relax import Relax, lone_in_buckets_only
from .select_edges import select_edges
from .union_find import UnionFind

__all__ = ["AdvanceFunctor", "Buckets", "NeighborGroups", "Pull", "PushPull", "Relax", "UnionFind", "advance",
           "advance_pull", "compute", "filter_frontier", "gather", "intersect_neighbors", "lone_in_buckets_only",
           "neighbor_reduce", "pull_blocks", "reduce_vertices", "select_edges", "smallest_in_neighbour"]
