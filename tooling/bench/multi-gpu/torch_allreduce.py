"""The anchor of allreduce.mjs: torch.distributed's NCCL all-reduce (sum,
float32), one process per GPU, timed with CUDA events on rank 0 over
`iterations` calls per size after 5 warm-ups. Reads {"sizes": [bytes...],
"iterations": n} on stdin; prints one JSON line {"version", "ms": [...]}
(milliseconds per call), or {"error": ...}."""
import json
import os
import sys


def worker(rank, world, sizes, iterations, port, out):
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    times = []
    for size in sizes:
        x = torch.ones(size // 4, dtype=torch.float32, device=f"cuda:{rank}")
        for _ in range(5):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iterations):
            dist.all_reduce(x)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / iterations)
    if rank == 0:
        out.put({"version": f"torch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}", "ms": times})
    dist.destroy_process_group()


def main():
    request = json.loads(sys.stdin.read())
    try:
        import torch
        import torch.multiprocessing as mp
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"error": f"no torch: {e}"}))
        return
    if torch.cuda.device_count() < 2:
        print(json.dumps({"error": "needs 2 GPUs"}))
        return
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    port = 29500 + os.getpid() % 1000
    procs = [ctx.Process(target=worker, args=(r, 2, request["sizes"], request["iterations"], port, out)) for r in range(2)]
    for p in procs:
        p.start()
    result = out.get(timeout=600)
    for p in procs:
        p.join()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
