"""Functors: CUDA C source plus named captures, typed from their dtypes."""
import os

import numpy

from .backend import device_of
from .errors import MinigrError

# C type of each capturable dtype; the same names on both backends (dialect headers).
C_TYPES = {
    numpy.dtype(numpy.bool_): "bool",
    numpy.dtype(numpy.int8): "int8_t",
    numpy.dtype(numpy.uint8): "uint8_t",
    numpy.dtype(numpy.int16): "int16_t",
    numpy.dtype(numpy.uint16): "uint16_t",
    numpy.dtype(numpy.int32): "int32_t",
    numpy.dtype(numpy.uint32): "uint32_t",
    numpy.dtype(numpy.int64): "int64_t",
    numpy.dtype(numpy.uint64): "uint64_t",
    numpy.dtype(numpy.float32): "float",
    numpy.dtype(numpy.float64): "double",
}


def c_type(dtype):
    """The C type of a dtype, or a MinigrError naming what is supported."""
    dtype = numpy.dtype(dtype)
    if dtype not in C_TYPES:
        raise MinigrError(f"dtype {dtype} has no functor C type; supported: "
                        + ", ".join(sorted(str(d) for d in C_TYPES)))
    return C_TYPES[dtype]


def _capture(name, value):
    """(C declaration type, value to pass) for one capture."""
    if isinstance(value, (bool, numpy.bool_)):
        return "bool", numpy.bool_(value)
    if isinstance(value, int):
        return "int64_t", numpy.int64(value)
    if isinstance(value, float):
        return "double", numpy.float64(value)
    if isinstance(value, numpy.generic):
        return c_type(value.dtype), value
    try:
        device_of(value)
    except TypeError:
        raise MinigrError(f"capture {name!r} has unsupported type {type(value).__name__}: pass a NumPy "
                        "or CuPy array, a Python bool/int/float or a NumPy scalar") from None
    if not value.flags.c_contiguous:
        raise MinigrError(f"capture {name!r} is not contiguous: pass array.copy() or a contiguous view")
    try:
        return c_type(value.dtype) + "*", value
    except MinigrError as exc:
        raise MinigrError(f"capture {name!r}: {exc}") from None


class Functor:
    """A functor: CUDA C++ source that transforms and operators call, with named captures.

    The body of a C++ struct (an ``operator()`` and any helpers) whose members are the
    named captures: arrays become typed pointers (``int32_t*``, ``double*``, ...), scalars
    values, and a capture that is itself a Functor a member struct, so a functor can call
    another (operators wrap user functors this way). The same source compiles with NVRTC
    for the GPU and as C++ for the CPU; functions need no ``__device__``.

    Parameters
    ----------
    source : str
        The struct's body.
    filename : str, default "<functor>"
        The name compile errors give the source, with its line numbers.
    headers : sequence of path, default ()
        C++ headers the source uses (templates shared by many functors, such as the
        operators' glue), compiled into the kernel before the functor.
    **captures
        By name: NumPy or CuPy arrays (contiguous, all on one device, which is the
        functor's), Python bools, ints (int64_t) and floats (double), NumPy scalars (their
        own type), or Functors.

    Attributes
    ----------
    device : {'gpu', 'cpu'} or None
        The device of the captured arrays; None without any.

    Examples
    --------
    >>> from minigr.transforms import Functor, array_module, resolve_device, transform
    >>> x = array_module(resolve_device()).asarray([1.0, 2.0, 3.0])
    >>> square = Functor("double operator()(double v) const { return v * v; }")
    >>> transform(3, Functor("void operator()(long long i) const { x[i] = scale * f(x[i]); }",
    ...                      x=x, scale=0.5, f=square))
    >>> x.tolist()
    [0.5, 2.0, 4.5]
    """

    def __init__(self, source, filename="<functor>", headers=(), **captures):
        if not isinstance(source, str) or not source.strip():
            raise MinigrError(f"functor {filename}: source must be a non-empty string of CUDA C")
        self.source = source
        self.filename = filename
        self.headers = tuple(str(h) for h in headers)
        self.members = []    # (name, C type or nested Functor)
        self.params = []     # flattened leaves: (C type, name), nested names joined by "__"
        self.values = []     # the leaves' values, in the order of params
        for name in sorted(captures):
            value = captures[name]
            if isinstance(value, Functor):
                self.members.append((name, value))
                self.params += [(ctype, f"{name}__{leaf}") for ctype, leaf in value.params]
                self.values += value.values
            else:
                ctype, value = _capture(name, value)
                self.members.append((name, ctype))
                self.params.append((ctype, name))
                self.values.append(value)
        devices = {device_of(v) for v in self.values if not isinstance(v, numpy.generic)}
        if len(devices) > 1:
            raise MinigrError(f"functor {filename}: captures mix NumPy and CuPy arrays; "
                              "keep them all on one device")
        self.device = devices.pop() if devices else None
        self.signature = (source, filename, self.headers,
                          tuple((name, kind.signature if isinstance(kind, Functor) else kind)
                                for name, kind in self.members))

    def with_values(self, **scalars):
        """This functor with other values for some of its scalar captures.

        Made without building anything again, each value keeping its capture's C type:
        for a value that changes with each call (a source vertex) of a functor made once.

        Parameters
        ----------
        **scalars
            New values of scalar captures, by name (a nested functor's as
            ``name__leaf``); any other name is refused (a MinigrError).

        Returns
        -------
        Functor
            A copy; this functor is left as it was.

        Examples
        --------
        >>> from minigr.transforms import Functor, array_module, resolve_device, transform
        >>> x = array_module(resolve_device()).zeros(3, dtype="int64")
        >>> add = Functor("void operator()(long long i) const { x[i] += step; }", x=x, step=1)
        >>> transform(3, add)
        >>> transform(2, add.with_values(step=10))
        >>> x.tolist()
        [11, 11, 1]
        """
        copy = object.__new__(Functor)
        copy.__dict__.update(self.__dict__)
        copy.values = list(self.values)
        names = [name for _, name in self.params]
        for name, value in scalars.items():
            i = names.index(name) if name in names else None
            if i is None or not isinstance(self.values[i], numpy.generic):
                raise MinigrError(f"functor {self.filename}: {name!r} is not one of its scalar captures")
            copy.values[i] = self.values[i].dtype.type(value)
        return copy

    @classmethod
    def from_file(cls, path, **captures):
        """A functor whose source is a .cu file; compile errors name that file and its lines.

        Parameters
        ----------
        path : str or path
            The file.
        **captures
            As for `Functor`.

        Returns
        -------
        Functor
            Its filename is the file's name.

        Examples
        --------
        >>> import os, tempfile
        >>> from minigr.transforms import Functor, array_module, resolve_device, transform
        >>> path = os.path.join(tempfile.mkdtemp(), "double.cu")
        >>> with open(path, "w") as file:
        ...     _ = file.write("void operator()(long long i) const { x[i] *= 2; }")
        >>> x = array_module(resolve_device()).asarray([1, 2, 3])
        >>> double = Functor.from_file(path, x=x)
        >>> transform(3, double)
        >>> double.filename, x.tolist()
        ('double.cu', [2, 4, 6])
        """
        try:
            with open(path) as f:
                source = f.read()
        except OSError as exc:
            raise MinigrError(f"cannot read functor file {path}: {exc.strerror}") from None
        return cls(source, filename=os.path.basename(path), **captures)
