"""Kernel source generation: the functors as structs, one template call, and an
entry point whose parameters are the fixed arguments and every capture. The
per-item code is emitted once; only the headers differ between GPU and CPU."""
import re
from pathlib import Path

from .errors import MinigrError

KERNELS = Path(__file__).parent / "kernels"
HEADERS = {
    "gpu": ("dialect_gpu.cuh", "builtin_functors.h", "worklist.h", "worklist.cuh", "block.cuh", "transform.cuh",
            "segments.cuh", "scan.cuh", "lbs.cuh", "segreduce.cuh", "intersect.cuh"),
    "cpu": ("dialect_cpu.h", "builtin_functors.h", "worklist.h", "transforms_cpu.h"),
}
# What the CPU dialect cannot provide: warps, blocks, shared memory, fences.
GPU_ONLY = re.compile(r"\b(__syncthreads\w*|__syncwarp|__shfl\w*|__ballot\w*|__any_sync|__all_sync|__activemask|"
                      r"__shared__|__threadfence\w*|threadIdx|blockIdx|blockDim|gridDim|warpSize|"
                      r"atomic\w+_(?:block|system))\b")


LINE = re.compile(r'\s*#\s*line\s+(\d+)(?:\s+"([^"]*)")?')


def _header_text(device, functors):
    """The transforms' headers, then the functors' own (nested ones included), each once."""
    paths = [KERNELS / name for name in HEADERS[device]]
    pending = list(functors)
    while pending:
        functor = pending.pop(0)
        paths += [Path(h) for h in functor.headers if Path(h) not in paths]
        pending += [kind for _, kind in functor.members if not isinstance(kind, str)]
    return "".join(f'#line 1 "{path.name}"\n' + path.read_text() for path in paths)


def check_cpu_dialect(functor):
    """Refuses, naming it, a GPU-only construct that the CPU backend cannot run (its file and
    line as the compiler would name them, `#line` directives in the source followed)."""
    filename, number = functor.filename, 0
    for line in functor.source.splitlines():
        number += 1
        directive = LINE.match(line)
        if directive:
            filename, number = directive.group(2) or filename, int(directive.group(1)) - 1
            continue
        found = GPU_ONLY.search(line)
        if found:
            raise MinigrError(f"{filename}:{number}: `{found.group(1)}` is GPU-only; the CPU backend runs "
                              "functors one item at a time, without warps, blocks or shared memory. "
                              "Use device='gpu', or write the functor without it")


def _struct(functor, name, device):
    """C++ definitions of a functor's struct (nested functors first)."""
    if device == "cpu":
        check_cpu_dialect(functor)
    text, members = "", ""
    for member, kind in functor.members:
        if isinstance(kind, str):
            members += f"    {kind} {member};\n"
        else:
            text += _struct(kind, f"{name}_{member}", device)
            members += f"    {name}_{member} {member};\n"
    return (text + f"struct {name} {{\n{members}"
            f'#line 1 "{functor.filename}"\n{functor.source}\n#line 1 "minigr_kernel"\n}};\n')


def _initializer(functor, prefix):
    """Brace initializer of a functor's struct from the kernel parameters."""
    parts = [prefix + member if isinstance(kind, str) else _initializer(kind, f"{prefix}{member}__")
             for member, kind in functor.members]
    return "{" + ", ".join(parts) + "}"


def kernel_source(device, fixed_params, functors, call, block=1, min_blocks=None):
    """Source of entry point `minigr_kernel(fixed..., captures...)` that builds the
    functors f0, f1, ... from their captures and runs `call` (a template call).
    On the GPU, min_blocks asks the compiler to fit that many blocks per SM."""
    parts = [_header_text(device, functors)] + [_struct(f, f"F{i}", device) for i, f in enumerate(functors)]
    params = [f"{ctype} {name}" for ctype, name in fixed_params]
    builds = ""
    for i, functor in enumerate(functors):
        params += [f"{ctype} f{i}_{name}" for ctype, name in functor.params]
        builds += f"    F{i} f{i}{_initializer(functor, f'f{i}_')};\n"
    bounds = f"{block}, {min_blocks}" if min_blocks else f"{block}"
    qualifier = f'extern "C" __global__ void __launch_bounds__({bounds})' if device == "gpu" else 'extern "C" void'
    parts.append(f"{qualifier} minigr_kernel({', '.join(params)})\n{{\n{builds}    {call};\n}}\n")
    return "".join(parts)


def _stage_code(k, stage, settled, after_counted):
    """A persistent loop's stage k: its launch's call run by the whole grid (or
    one thread, for a one-thread launch), with its parameters under the names
    the call uses. dirty: a stage ran since the last barrier. settled: no
    stage before it in an iteration changes its count. after_counted: a stage
    before it is counted, whose count a one-item stage (a frontier's
    next_level) may change: blocks that read that count at different times
    differ in dirty, so a one-item stage then waits at a barrier every block
    calls, lest a late block read the changed count and call a barrier the
    others do not. Each thread reads a count once, a plain (L1-cached) load,
    and its call takes the value read: with every warp of the grid reading it
    past L1 (volatile), and again in the call, the reads queued at one L2 line.
    H100, 2026-11-27, persistent BFS / SSSP ms: rgg_n22 10.26 / 31.9 -> 8.84 /
    28.6, grid_22 16.75 / 29.4 -> 15.7 / 27.4, USA-road-d.NY 2.00 / 6.16 ->
    1.85 / 5.89, kron scale 12 0.137 / 0.273 -> 0.108 / 0.242."""
    counted = stage.count is not None
    aliases = "".join(f"const long long {name} = count; " if counted and arg is stage.count.cell
                      else f"{ctype} {name} = s{k}_{name}; "
                      for (ctype, name), arg in zip(stage.fixed_params, stage.fixed_args))
    aliases += "".join(f"auto& f{i} = s{k}f{i}; " for i in range(len(stage.functors)))
    run = f"{{ {aliases}{stage.call}; }}"
    if stage.serial:
        run = f"if (blockIdx.x == 0 && threadIdx.x == 0) {run}"
    wait = "if (dirty) minigr::grid_barrier(barrier, minigr::NoSerial{});"
    if stage.one_item and after_counted:
        wait = "minigr::grid_barrier(barrier, minigr::NoSerial{});"
    if not counted:
        return f"        {wait}\n        {run}\n        dirty = true;\n"
    count = f"const long long count = *s{k}_count; if (count > 0)"
    if settled:  # read it without waiting for the stages before
        return f"        {{ {count} {{\n            {wait}\n            {run}\n            dirty = true;\n        }} }}\n"
    return (f"        {wait}\n        dirty = false;\n"
            f"        {{ {count} {{\n            {run}\n            dirty = true;\n        }} }}\n")


def loop_kernel_source(starts, stages, step, block):
    """Source of a persistent loop's entry point `minigr_kernel(barrier,
    captures...)`: first the start transforms (functors over their items,
    independent of each other: each run's reset, the loop's own start), then
    after a grid barrier each iteration runs the stages (launches recorded
    from a loop's body) in order on the whole resident grid, with a grid
    barrier before a stage wherever one ran since the last, and skips a stage
    whose count is 0; a last barrier runs step() on one thread, and the loop
    ends when it is false. Only for stages whose kernels stride over any grid."""
    functors = starts + [f for stage in stages for f in stage.functors] + [step]
    parts = [_header_text("gpu", functors), f'#line 1 "persistent.cuh"\n{(KERNELS / "persistent.cuh").read_text()}']
    params, builds, body = ["unsigned long long* barrier"], "", ""
    first = "    const long long thread = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    for k, start in enumerate(starts):
        parts.append(_struct(start, f"Start{k}", "gpu"))
        params += [f"long long start{k}_items"] + [f"{ctype} start{k}_{name}" for ctype, name in start.params]
        builds += f"    Start{k} start{k}{_initializer(start, f'start{k}_')};\n"
        first += (f"    for (long long i = thread; i < start{k}_items; i += gridDim.x * (long long)blockDim.x) "
                  f"start{k}(i);\n")
    for k, stage in enumerate(stages):
        params += [f"{ctype} s{k}_{name}" for ctype, name in stage.fixed_params]
        if stage.count is not None:
            params.append(f"const long long* s{k}_count")
        for i, functor in enumerate(stage.functors):
            parts.append(_struct(functor, f"S{k}F{i}", "gpu"))
            params += [f"{ctype} s{k}f{i}_{name}" for ctype, name in functor.params]
            builds += f"    S{k}F{i} s{k}f{i}{_initializer(functor, f's{k}f{i}_')};\n"
        settled = stage.count is not None and stage.count.stable and not any(s.one_item for s in stages[:k])
        body += _stage_code(k, stage, settled, any(s.count is not None for s in stages[:k]))
    parts.append(_struct(step, "Step", "gpu"))
    params += [f"{ctype} step_{name}" for ctype, name in step.params]
    builds += f"    Step step{_initializer(step, 'step_')};\n"
    parts.append(f'extern "C" __global__ void __launch_bounds__({block}) minigr_kernel({", ".join(params)})\n{{\n'
                 f"{builds}{first}    minigr::grid_barrier(barrier, minigr::NoSerial());\n"
                 f"    bool dirty;\n    do {{\n        dirty = false;\n{body}"
                 f"    }} while (minigr::grid_barrier(barrier, step));\n}}\n")
    return "".join(parts)
