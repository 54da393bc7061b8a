"""Frontier: a set of vertex ids on one device, sparse (compacted int32 ids) or
dense (a bitmap of 32-bit words), converted both ways with the transforms."""
import numpy

from .transforms import Functor, compact_transform, transform
from .transforms.backend import array_module, device_of
from .transforms.errors import MinigrError

_SET_BITS = "void operator()(long long i) const { int v = ids[i]; atomicOr(&words[v >> 5], 1u << (v & 31)); }"
_BIT_SET = "bool operator()(long long v) const { return (words[v >> 5] >> (v & 31)) & 1u; }"
_WRITE_ID = "void operator()(long long dest, long long src) const { ids[dest] = (int)src; }"


class Frontier:
    """Vertex ids in [0, num_vertices): `ids` when sparse, `bitmap` when dense."""

    def __init__(self, num_vertices, *, ids=None, bitmap=None):
        if (ids is None) == (bitmap is None):
            raise MinigrError("a Frontier is either sparse (ids=) or dense (bitmap=)")
        self.num_vertices = int(num_vertices)
        self._ids = ids
        self._bitmap = bitmap
        array = ids if ids is not None else bitmap
        self.device = device_of(array)
        self.xp = array_module(self.device)

    @classmethod
    def from_ids(cls, ids, num_vertices, device):
        """A sparse frontier on `device` of the given vertex ids (checked to be in range)."""
        ids = array_module(device).asarray(ids, dtype=numpy.int32).ravel()
        if len(ids) and (int(ids.min()) < 0 or int(ids.max()) >= num_vertices):
            raise MinigrError(f"frontier ids must be in [0, {num_vertices}), got {int(ids.min())}..{int(ids.max())}")
        return cls(num_vertices, ids=ids)

    @classmethod
    def all_vertices(cls, num_vertices, device):
        return cls(num_vertices, ids=array_module(device).arange(num_vertices, dtype=numpy.int32))

    @classmethod
    def empty(cls, num_vertices, device):
        return cls(num_vertices, ids=array_module(device).zeros(0, dtype=numpy.int32))

    @property
    def is_dense(self):
        return self._bitmap is not None

    @property
    def ids(self):
        """The vertex ids (int32), converting from the bitmap if needed (ascending then)."""
        if self._ids is None:
            self._ids = self.xp.empty(self.num_vertices, dtype=numpy.int32)
            _, count = compact_transform(self.num_vertices, Functor(_BIT_SET, filename="<bitmap>", words=self._bitmap),
                                         Functor(_WRITE_ID, filename="<bitmap to ids>", ids=self._ids))
            self._ids = self._ids[:count]
        return self._ids

    @property
    def bitmap(self):
        """The bitmap (uint32 words, bit v of word v / 32), converting from ids if needed."""
        if self._bitmap is None:
            self._bitmap = self.xp.zeros((self.num_vertices + 31) // 32, dtype=numpy.uint32)
            transform(len(self._ids), Functor(_SET_BITS, filename="<frontier to bitmap>", ids=self._ids,
                                              words=self._bitmap))
        return self._bitmap

    def to_sparse(self):
        return Frontier(self.num_vertices, ids=self.ids)

    def to_dense(self):
        return Frontier(self.num_vertices, bitmap=self.bitmap)

    def __len__(self):
        """Number of entries (for a dense frontier, the number of bits set)."""
        return len(self.ids)

    def __repr__(self):
        kind = "dense" if self.is_dense else f"sparse, {len(self._ids)} ids"
        return f"Frontier({kind}, num_vertices={self.num_vertices}, device={self.device!r})"
