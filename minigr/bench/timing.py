"""GPU timing: CUDA events around each run, the median after warm-up."""
import numpy


def gpu_ms(fn, runs, warmup):
    """Median milliseconds of fn() on the GPU's current stream."""
    from cupyx.profiler import benchmark
    result = benchmark(fn, n_repeat=runs, n_warmup=warmup)
    return float(numpy.median(result.gpu_times[0]) * 1e3)


def copy_bandwidth(nbytes, runs, warmup):
    """Device-to-device copy rate, GB/s, counting bytes read plus bytes written."""
    import cupy
    src = cupy.ones(nbytes // 4, dtype=numpy.float32)
    dst = cupy.empty_like(src)
    ms = gpu_ms(lambda: dst.data.copy_from_device_async(src.data, src.nbytes), runs, warmup)
    return 2 * src.nbytes / ms / 1e6
