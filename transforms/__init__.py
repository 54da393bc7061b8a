"""minigr.transforms: generic data-parallel transforms over user functors, for the
GPU (CUDA C through NVRTC) and the CPU (the same functors as C++). Knows nothing
of graphs."""
from .api import (DeviceCount, Partition, compact_transform, intersect_transform, lbs_transform, scan_transform,
                  segment_transform, segreduce_transform, transform)
from .backend import array_module, copied, device_of, gpu_available, read_waiting, resolve_device
from .errors import CompileError, DeviceError, MinigrError
from .functor import Functor
from .worklist import Worklist, worklist_transform

__all__ = ["Functor", "DeviceCount", "Partition", "transform", "scan_transform", "compact_transform",
           "lbs_transform", "segment_transform", "segreduce_transform", "intersect_transform", "Worklist",
           "worklist_transform", "array_module", "copied", "device_of", "gpu_available", "read_waiting",
           "resolve_device", "MinigrError", "CompileError", "DeviceError"]
