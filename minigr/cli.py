"""The `minigr` command. User mistakes end in a one-line message and a non-zero
exit code, never a traceback."""
import argparse
import sys

from .transforms.errors import MinigrError


def _doctor(args):
    from . import doctor
    return doctor.run()


def _bench(args):
    from . import bench
    return bench.run(args)


def parser():
    p = argparse.ArgumentParser(prog="minigr", description="Transform-based GPU graph analytics.")
    commands = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("doctor", help="report GPU, NVRTC, compiler and cache; compile every built-in kernel"
                        ).set_defaults(run=_doctor)
    from .bench import add_arguments
    add_arguments(commands.add_parser("bench", help="benchmarks, side by side with what users would do instead")
                  ).set_defaults(run=_bench)
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except MinigrError as exc:
        print(f"minigr: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError as exc:  # CuPy's OutOfMemoryError is one
        print(f"minigr: error: out of memory ({exc}); try a smaller graph or free GPU memory", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("minigr: interrupted", file=sys.stderr)
        return 130
