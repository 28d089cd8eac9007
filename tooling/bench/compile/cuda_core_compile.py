"""The cuda.core side of the compile benchmark (run by run.mjs).

Reads a JSON request on stdin: {"source", "arch", "iterations", "warmup"};
prints JSON timings in milliseconds for Program(...).compile("cubin" | "ptx").
"""
import json
import sys
import time

try:
    from cuda.core import Program, ProgramOptions
except ImportError:  # cuda.core before 1.0
    from cuda.core.experimental import Program, ProgramOptions
import cuda.core
from cuda.bindings import nvrtc


def timed(fn, iterations, warmup):
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(iterations):
        start = time.perf_counter_ns()
        fn()
        out.append((time.perf_counter_ns() - start) / 1e6)
    return out


def main():
    request = json.load(sys.stdin)
    source, arch = request["source"], request["arch"]
    iterations, warmup = request["iterations"], request["warmup"]

    def compile_to(target):
        def run():
            program = Program(source, "c++", ProgramOptions(arch=arch))
            program.compile(target)
            program.close()
        return run

    err, major, minor = nvrtc.nvrtcVersion()
    print(json.dumps({
        "version": getattr(cuda.core, "__version__", "?"),
        "nvrtc": f"{major}.{minor}",
        "cases": {
            "cubin": timed(compile_to("cubin"), iterations, warmup),
            "ptx": timed(compile_to("ptx"), iterations, warmup),
        },
    }))


if __name__ == "__main__":
    main()
