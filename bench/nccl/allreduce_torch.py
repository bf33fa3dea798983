#!/usr/bin/env python3
"""All-reduce bus bandwidth with torch.distributed (NCCL), measured as bench_nccl measures
Cuprum's: one process per GPU, in-place f32 sums of 1 MiB ... 1 GiB, the result of one
all-reduce checked, then ROUNDS rounds of ITERS back-to-back calls timed with CUDA events
after a barrier; a round takes as long as its slowest rank; the median round is reported.

Run on the GPU host (PyTorch's python), through scripts/nccl-run so that NVLink multicast
stays off:

    scripts/nccl-run /opt/torch/.venv/bin/python3 bench/nccl/allreduce_torch.py \
        [--max-mib 1024] [--rounds 5] [--cuprum cuprum.txt]

With --cuprum (the saved output of bench_nccl), adds Cuprum's bus bandwidth (non-blocking and
blocking communicators) and its ratio to PyTorch's per size.
"""

import argparse
import os

# NVLink multicast must stay off on the GPU host, whatever the caller's environment says.
os.environ["NCCL_NVLS_ENABLE"] = "0"
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
os.environ["NVSHMEM_DISABLE_NVLS"] = "1"

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402


def rank_main(rank, world, port, sizes, rounds, queue):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device("cuda", rank))
    buf = torch.full((max(sizes) // 4,), float(rank + 1), dtype=torch.float32, device="cuda")
    token = torch.zeros(1, dtype=torch.int32, device="cuda")
    times = []
    for nbytes in sizes:
        n = nbytes // 4
        view = buf[:n]
        view.fill_(float(rank + 1))
        dist.all_reduce(view)
        torch.cuda.synchronize()
        want = world * (world + 1) / 2
        for k in (0, n // 2, n - 1):
            got = view[k].item()
            if got != want:
                raise SystemExit(f"all_reduce of {nbytes} bytes: element {k} is {got}, expected {want}")
        iters = min(max((4 << 30) // nbytes, 20), 500)
        for _ in range(5):
            dist.all_reduce(view)
        per_round = []
        for _ in range(rounds):
            dist.all_reduce(token)
            torch.cuda.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(iters):
                dist.all_reduce(view)
            end.record()
            torch.cuda.synchronize()
            per_round.append(start.elapsed_time(end) / iters)
        times.append(per_round)
    queue.put((rank, times))
    dist.destroy_process_group()


def cuprum_rows(path):
    """tag -> {bytes: busbw} from bench_nccl's csv lines (tags cuprum, cuprum-blocking)."""
    rows = {}
    with open(path) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) == 7 and parts[0] == "csv" and parts[1].startswith("cuprum"):
                rows.setdefault(parts[1], {})[int(parts[3])] = float(parts[6])
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-mib", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cuprum", help="bench_nccl's output, to compare")
    ap.add_argument("--port", type=int, default=29533)
    args = ap.parse_args()
    world = torch.cuda.device_count()
    if world < 2:
        print(f"allreduce_torch: SKIPPED: all-reduce needs at least 2 GPUs, this machine has {world}")
        return
    sizes = [1 << s for s in range(20, 31) if (1 << s) <= args.max_mib << 20]
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [
        ctx.Process(target=rank_main, args=(r, world, args.port, sizes, args.rounds, queue))
        for r in range(world)
    ]
    for p in procs:
        p.start()
    results = dict(queue.get() for _ in procs)
    for p in procs:
        p.join()
        if p.exitcode != 0:
            raise SystemExit(f"a rank failed (exit code {p.exitcode})")
    cuprum = cuprum_rows(args.cuprum) if args.cuprum else {}
    print(
        f"allreduce_torch: all_reduce (sum, f32, in place), torch {torch.__version__}, "
        f"NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, {world} x {torch.cuda.get_device_name(0)}, "
        f"NCCL_NVLS_ENABLE={os.environ['NCCL_NVLS_ENABLE']}"
    )
    header = f"{'size':>10} {'time (us)':>12} {'algbw (GB/s)':>14} {'busbw (GB/s)':>14}"
    for tag in cuprum:
        header += f" {tag + ' busbw':>22} {'/ torch':>8}"
    print(header)
    factor = 2 * (world - 1) / world
    rows = []
    for i, nbytes in enumerate(sizes):
        slowest = sorted(max(results[r][i][k] for r in range(world)) for k in range(args.rounds))
        ms = slowest[len(slowest) // 2]
        algbw = nbytes / (ms * 1e-3) / 1e9
        rows.append((nbytes, ms, algbw, algbw * factor))
    for nbytes, ms, algbw, busbw in rows:
        line = f"{nbytes >> 20:>6} MiB {ms * 1e3:>12.1f} {algbw:>14.1f} {busbw:>14.1f}"
        for rows_of_tag in cuprum.values():
            if nbytes in rows_of_tag:
                line += f" {rows_of_tag[nbytes]:>22.1f} {rows_of_tag[nbytes] / busbw:>8.3f}"
        print(line)
    for nbytes, ms, algbw, busbw in rows:
        print(f"csv,torch,{world},{nbytes},{ms * 1e3:.3f},{algbw:.2f},{busbw:.2f}")

if __name__ == "__main__":
    main()
