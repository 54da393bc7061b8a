"""Graph operators, each a short composition of transforms and a graph functor."""
from .advance import AdvanceFunctor, advance, advance_pull
from .compute import compute
from .filter import filter_frontier
from .neighbor_groups import NeighborGroups
from .neighbor_reduce import SMALLEST_FOUND, neighbor_reduce
from .priority_queue import split_near_far
from .reduce_vertices import reduce_vertices
from .relax import Relax

__all__ = ["AdvanceFunctor", "NeighborGroups", "Relax", "SMALLEST_FOUND", "advance", "advance_pull", "compute",
           "filter_frontier", "neighbor_reduce", "reduce_vertices", "split_near_far"]
