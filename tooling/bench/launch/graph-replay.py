"""cuda.core's side of graph-replay.mjs: µs per kernel of a graph of KERNELS nodes
(captured with cuda.core's GraphBuilder, launched with one Graph.launch) and of
the same KERNELS kernels launched one by one on a stream, the median of ROUNDS
alternating rounds, each from the first submission to the end of a stream sync.

usage: python3 graph-replay.py <cubin> <kernels> <rounds>
prints one JSON object: {"results": {form: {"total": µs, "submit": µs}}, "errors": {form: reason}}
Where cuda.core cannot be imported or used, the form is reported as not measured, with the reason.
"""
import json
import statistics
import sys
import time

CUBIN, KERNELS, ROUNDS = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
WARMUP_ROUNDS = 3
N = 32
results = {}
errors = {}

try:
    import numpy as np
    from cuda.core import Device, LaunchConfig, ObjectCode, launch
except Exception as e:  # noqa: BLE001 - any import failure is the reason
    errors["cuda.core"] = f"not measured: cuda.core is not importable ({type(e).__name__}: {e})"
else:
    try:
        dev = Device(0)
        dev.set_current()
        stream = dev.create_stream()
        kernel = ObjectCode.from_cubin(open(CUBIN, "rb").read()).get_kernel("tick")
        config = LaunchConfig(grid=1, block=32)
        buf = dev.allocate(N * 4, stream=stream)
        args = (buf.handle, np.int32(N))

        t0 = time.perf_counter()
        builder = dev.create_graph_builder()
        builder.begin_building()
        for _ in range(KERNELS):
            launch(builder, config, kernel, *args)
        builder.end_building()
        graph = builder.complete()
        setup_ms = (time.perf_counter() - t0) * 1e3
        graph.upload(stream)
        stream.sync()

        def stream_round():
            start = time.perf_counter()
            for _ in range(KERNELS):
                launch(stream, config, kernel, *args)
            submitted = time.perf_counter()
            stream.sync()
            end = time.perf_counter()
            return (end - start) * 1e6 / KERNELS, (submitted - start) * 1e6 / KERNELS

        def graph_round():
            start = time.perf_counter()
            graph.launch(stream)
            submitted = time.perf_counter()
            stream.sync()
            end = time.perf_counter()
            return (end - start) * 1e6 / KERNELS, (submitted - start) * 1e6 / KERNELS

        s_rounds, g_rounds = [], []
        for r in range(WARMUP_ROUNDS + ROUNDS):
            s = stream_round()
            g = graph_round()
            if r >= WARMUP_ROUNDS:
                s_rounds.append(s)
                g_rounds.append(g)

        def summary(rounds):
            return {"total": statistics.median(t for t, _ in rounds), "submit": statistics.median(s for _, s in rounds)}

        results[f"cuda.core: {KERNELS} stream launches (launch)"] = summary(s_rounds)
        results["cuda.core: graph replay (Graph.launch)"] = summary(g_rounds)
        results["cuda.core: graph replay (Graph.launch)"]["captureAndCompleteMs"] = setup_ms
        graph.close()
        builder.close()
    except Exception as e:  # noqa: BLE001 - report any failure as the reason
        errors["cuda.core"] = f"not measured: {type(e).__name__}: {e}"

print(json.dumps({"results": results, "errors": errors}))
