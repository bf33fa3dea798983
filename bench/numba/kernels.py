"""The benchmark kernels in Numba CUDA: the same algorithms, shapes and launch shapes as the
CUDA C++ references in ../cuda/ and the Cuprum kernels (the contract is ../SPEC.md).

Numba types float literals as float64 and promotes mixed integer arithmetic, so every float
constant here is wrapped in float32(...) to keep the arithmetic in single precision, as in
the C++ and Rust versions. Arrays carry their length (len(x)), so no length arguments.

KERNELS maps each kernel's name to its function and its arguments in order: the names the
harness uses in params.json for arrays and scalars.
"""

import math

import numpy

# numba-cuda 0.30.4 still refers to numpy.row_stack, which recent NumPy removed: alias it
# before numba is imported.
numpy.row_stack = numpy.vstack

from numba import cuda, float32, uint32  # noqa: E402

FULL_MASK = 0xFFFFFFFF
BLOCK = 256  # threads per block of the 1-D kernels with shared reductions
WARPS = 8  # BLOCK // 32
TILE = 32
TILE_PADDED = 33  # transpose's tile row: one spare column against bank conflicts
ROWS_PER_PASS = 8  # transpose's block is (TILE, ROWS_PER_PASS)
SCAN_ELEMS = 1024  # block_scan: elements per block (2 per thread, 512 threads)
SOFTMAX_PER_THREAD = 4  # softmax: cols / BLOCK
TPB = 16  # fast_matmul: threads per block along each side, the tiles' side
RADIUS = 8  # convolution: taps on each side of the centre
TAPS = 2 * RADIUS + 1
CONV_TILE = 128  # convolve_rows: outputs (threads) per block
COLS_X = 16  # convolve_cols: block (COLS_X, COLS_Y), STEPS outputs per thread
COLS_Y = 8
STEPS = 8
NBODY_TILE = 256  # nbody: bodies per tile, threads per block
# Shared array shapes must be constants, not expressions in the kernel:
CONV_ROW_TILE = CONV_TILE + 2 * RADIUS  # convolve_rows: the tile and its halos
CONV_COL_TILE = (STEPS + 2) * COLS_Y + 1  # convolve_cols: a column of the tile, padded
NBODY_SHARED = 4 * NBODY_TILE  # nbody: [x, y, z, m] of a tile's bodies
# The 17-tap binomial filter C(16, k) / 2^16 (exact in float32), in constant memory.
FILTER = numpy.array([1, 16, 120, 560, 1820, 4368, 8008, 11440, 12870, 11440, 8008, 4368,
                      1820, 560, 120, 16, 1], dtype=numpy.float32) / numpy.float32(65536)


@cuda.jit
def saxpy(y, x, a):
    i = cuda.grid(1)
    if i < len(y):
        y[i] = a * x[i] + y[i]


@cuda.jit
def reduce_sum(out, x):
    warp_sums = cuda.shared.array(WARPS, float32)
    tid = cuda.threadIdx.x
    lane = tid & 31
    warp = tid >> 5

    v = float32(0.0)
    for i in range(cuda.grid(1), len(x), cuda.gridsize(1)):
        v += x[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset >>= 1
    if lane == 0:
        warp_sums[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = warp_sums[lane] if lane < WARPS else float32(0.0)
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset >>= 1
        if lane == 0:
            cuda.atomic.add(out, 0, v)


@cuda.jit
def histogram(bins, data):
    s = cuda.shared.array(256, uint32)
    t = cuda.threadIdx.x
    s[t] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), len(data), cuda.gridsize(1)):
        cuda.atomic.add(s, data[i] & 255, uint32(1))
    cuda.syncthreads()
    if s[t] != 0:
        cuda.atomic.add(bins, t, s[t])


@cuda.jit
def transpose(out, inp, rows, cols):
    tile = cuda.shared.array((TILE, TILE_PADDED), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y

    in_col = bx * TILE + tx
    for k in range(0, TILE, ROWS_PER_PASS):
        in_row = by * TILE + ty + k
        if in_row < rows and in_col < cols:
            tile[ty + k, tx] = inp[in_row * cols + in_col]
    cuda.syncthreads()
    out_col = by * TILE + tx
    for k in range(0, TILE, ROWS_PER_PASS):
        out_row = bx * TILE + ty + k
        if out_row < cols and out_col < rows:
            out[out_row * rows + out_col] = tile[tx, ty + k]


@cuda.jit
def sgemm(c, a, b, m, n, k):
    a_tile = cuda.shared.array((TILE, TILE), float32)
    b_tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx

    acc = float32(0.0)
    for t in range(k // TILE):
        a_tile[ty, tx] = a[row * k + t * TILE + tx]
        b_tile[ty, tx] = b[(t * TILE + ty) * n + col]
        cuda.syncthreads()
        for kk in range(TILE):
            acc += a_tile[ty, kk] * b_tile[kk, tx]
        cuda.syncthreads()
    c[row * n + col] = acc


@cuda.jit
def block_scan(out, inp):
    temp = cuda.shared.array(0, uint32)  # dynamic: SCAN_ELEMS * 4 bytes at launch
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * SCAN_ELEMS

    v0 = inp[base + 2 * t]
    v1 = inp[base + 2 * t + 1]
    temp[2 * t] = v0
    temp[2 * t + 1] = v1

    offset = 1
    d = SCAN_ELEMS >> 1
    while d > 0:
        cuda.syncthreads()
        if t < d:
            ai = offset * (2 * t + 1) - 1
            bi = offset * (2 * t + 2) - 1
            temp[bi] += temp[ai]
        offset *= 2
        d >>= 1
    if t == 0:
        temp[SCAN_ELEMS - 1] = 0
    d = 1
    while d < SCAN_ELEMS:
        offset >>= 1
        cuda.syncthreads()
        if t < d:
            ai = offset * (2 * t + 1) - 1
            bi = offset * (2 * t + 2) - 1
            a = temp[ai]
            temp[ai] = temp[bi]
            temp[bi] += a
        d *= 2
    cuda.syncthreads()
    out[base + 2 * t] = temp[2 * t] + v0
    out[base + 2 * t + 1] = temp[2 * t + 1] + v1


@cuda.jit
def softmax(out, x, cols):
    red = cuda.shared.array(WARPS, float32)
    tid = cuda.threadIdx.x
    lane = tid & 31
    warp = tid >> 5
    base = cuda.blockIdx.x * cols

    v0 = x[base + tid]
    v1 = x[base + tid + BLOCK]
    v2 = x[base + tid + 2 * BLOCK]
    v3 = x[base + tid + 3 * BLOCK]

    m = max(max(max(v0, v1), v2), v3)
    mask = 16
    while mask > 0:
        m = max(m, cuda.shfl_xor_sync(FULL_MASK, m, mask))
        mask >>= 1
    if lane == 0:
        red[warp] = m
    cuda.syncthreads()
    m = red[0]
    for w in range(1, WARPS):
        m = max(m, red[w])
    cuda.syncthreads()  # every thread has read red before it is reused for the sums

    e0 = math.exp(v0 - m)
    e1 = math.exp(v1 - m)
    e2 = math.exp(v2 - m)
    e3 = math.exp(v3 - m)
    s = e0 + e1 + e2 + e3
    mask = 16
    while mask > 0:
        s += cuda.shfl_xor_sync(FULL_MASK, s, mask)
        mask >>= 1
    if lane == 0:
        red[warp] = s
    cuda.syncthreads()
    s = red[0]
    for w in range(1, WARPS):
        s += red[w]

    out[base + tid] = e0 / s
    out[base + tid + BLOCK] = e1 / s
    out[base + tid + 2 * BLOCK] = e2 / s
    out[base + tid + 3 * BLOCK] = e3 / s


@cuda.jit
def jacobi(out, inp, n):
    j = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x  # column
    i = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y  # row
    if i < n and j < n:
        idx = i * n + j
        if i == 0 or j == 0 or i == n - 1 or j == n - 1:
            out[idx] = inp[idx]
        else:
            out[idx] = float32(0.25) * (
                (inp[idx - n] + inp[idx + n]) + (inp[idx - 1] + inp[idx + 1])
            )


@cuda.jit(device=True)
def cnd(d):
    k = float32(1.0) / (float32(1.0) + float32(0.2316419) * abs(d))
    poly = k * (
        float32(0.31938153)
        + k
        * (
            float32(-0.356563782)
            + k * (float32(1.781477937) + k * (float32(-1.821255978) + k * float32(1.330274429)))
        )
    )
    c = float32(0.3989422804) * math.exp(float32(-0.5) * d * d) * poly
    return float32(1.0) - c if d > float32(0.0) else c


@cuda.jit
def black_scholes(call, put, s, x, t, r, v):
    i = cuda.grid(1)
    if i < len(call):
        price = s[i]
        strike = x[i]
        years = t[i]
        sqrt_t = math.sqrt(years)
        d1 = (math.log(price / strike) + (r + float32(0.5) * v * v) * years) / (v * sqrt_t)
        d2 = d1 - v * sqrt_t
        cnd_d1 = cnd(d1)
        cnd_d2 = cnd(d2)
        exp_rt = math.exp(-r * years)
        call[i] = price * cnd_d1 - strike * exp_rt * cnd_d2
        put[i] = strike * exp_rt * (float32(1.0) - cnd_d2) - price * (float32(1.0) - cnd_d1)


@cuda.jit
def vector_add(c, a, b):
    i = cuda.grid(1)
    if i < len(c):
        c[i] = a[i] + b[i]


@cuda.jit
def transpose_coalesced(out, inp, width, height):
    tile = cuda.shared.array((TILE, TILE_PADDED), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    for j in range(0, TILE, ROWS_PER_PASS):
        if x < width and y + j < height:
            tile[ty + j, tx] = inp[(y + j) * width + x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    for j in range(0, TILE, ROWS_PER_PASS):
        if x < height and y + j < width:
            out[(y + j) * height + x] = tile[tx, ty + j]


@cuda.jit
def convolve_rows(out, inp, width):
    flt = cuda.const.array_like(FILTER)
    tile = cuda.shared.array(CONV_ROW_TILE, float32)
    t = cuda.threadIdx.x
    row = cuda.blockIdx.y
    x0 = cuda.blockIdx.x * CONV_TILE
    j = t
    while j < CONV_ROW_TILE:
        x = x0 + j - RADIUS
        tile[j] = inp[row * width + x] if x >= 0 and x < width else float32(0.0)
        j += CONV_TILE
    cuda.syncthreads()
    x = x0 + t
    if x < width:
        acc = float32(0.0)
        for k in range(TAPS):
            acc += flt[k] * tile[t + k]
        out[row * width + x] = acc


@cuda.jit
def convolve_cols(out, inp, width, height):
    flt = cuda.const.array_like(FILTER)
    tile = cuda.shared.array((COLS_X, CONV_COL_TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * COLS_X + tx
    y0 = cuda.blockIdx.y * STEPS * COLS_Y  # tile row r holds image row y0 + r - COLS_Y
    for i in range(1, STEPS + 1):
        tile[tx, ty + i * COLS_Y] = inp[(y0 + ty + (i - 1) * COLS_Y) * width + x]
    tile[tx, ty] = inp[(y0 + ty - COLS_Y) * width + x] if y0 > 0 else float32(0.0)
    below = y0 + STEPS * COLS_Y + ty
    tile[tx, ty + (STEPS + 1) * COLS_Y] = inp[below * width + x] if below < height else float32(0.0)
    cuda.syncthreads()
    for i in range(1, STEPS + 1):
        r = ty + i * COLS_Y
        acc = float32(0.0)
        for k in range(TAPS):
            acc += flt[k] * tile[tx, r + k - RADIUS]
        out[(y0 + r - COLS_Y) * width + x] = acc


@cuda.jit
def fast_matmul(c, a, b, m, n, k):
    # As Numba's documentation writes it, on flat row-major arrays.
    sa = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sb = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tmp = float32(0.0)
    for i in range((k + TPB - 1) // TPB):
        sa[ty, tx] = float32(0.0)
        sb[ty, tx] = float32(0.0)
        if y < m and tx + i * TPB < k:
            sa[ty, tx] = a[y * k + tx + i * TPB]
        if x < n and ty + i * TPB < k:
            sb[ty, tx] = b[(ty + i * TPB) * n + x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sa[ty, j] * sb[j, tx]
        cuda.syncthreads()
    if y < m and x < n:
        c[y * n + x] = tmp


@cuda.jit
def laplace(out, inp, nx, ny):
    i, j = cuda.grid(2)
    if i >= 1 and j >= 1 and i < nx - 1 and j < ny - 1:
        out[j * nx + i] = float32(0.25) * (
            inp[j * nx + i - 1] + inp[j * nx + i + 1] + inp[(j - 1) * nx + i] + inp[(j + 1) * nx + i]
        )


@cuda.jit
def reduce6(out, x):
    sdata = cuda.shared.array(BLOCK, float32)
    tid = cuda.threadIdx.x
    n = len(x)
    grid_size = BLOCK * 2 * cuda.gridDim.x
    i = cuda.blockIdx.x * BLOCK * 2 + tid
    s = float32(0.0)
    while i < n:
        s += x[i]
        if i + BLOCK < n:
            s += x[i + BLOCK]
        i += grid_size
    sdata[tid] = s
    cuda.syncthreads()
    half = BLOCK // 2
    while half > 32:
        if tid < half:
            s += sdata[tid + half]
            sdata[tid] = s
        cuda.syncthreads()
        half //= 2
    if tid < 32:
        s += sdata[tid + 32]
        offset = 16
        while offset > 0:
            s += cuda.shfl_down_sync(FULL_MASK, s, offset)
            offset //= 2
    if tid == 0:
        out[cuda.blockIdx.x] = s


@cuda.jit
def nbody(accel, body, eps2):
    tile = cuda.shared.array(NBODY_SHARED, float32)
    n = len(body) // 4
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    px = py = pz = float32(0.0)
    if i < n:
        px = body[4 * i]
        py = body[4 * i + 1]
        pz = body[4 * i + 2]
    ax = ay = az = float32(0.0)
    for start in range(0, n, NBODY_TILE):
        j = start + t
        for c in range(4):
            tile[4 * t + c] = body[4 * j + c] if j < n else float32(0.0)
        cuda.syncthreads()
        for k in range(NBODY_TILE):
            dx = tile[4 * k] - px
            dy = tile[4 * k + 1] - py
            dz = tile[4 * k + 2] - pz
            d2 = dx * dx + dy * dy + dz * dz + eps2
            inv = float32(1.0) / math.sqrt(d2)
            s = tile[4 * k + 3] * (inv * inv * inv)
            ax += dx * s
            ay += dy * s
            az += dz * s
        cuda.syncthreads()
    if i < n:
        accel[3 * i] = ax
        accel[3 * i + 1] = ay
        accel[3 * i + 2] = az


@cuda.jit
def spin(iters):
    """The timing guard (SPEC.md, "Timing"): one thread sleeps about `iters` microseconds."""
    for _ in range(iters):
        cuda.nanosleep(uint32(1000))


# name -> (kernel, argument names in launch order)
KERNELS = {
    "saxpy": (saxpy, ("y", "x", "a")),
    "reduce_sum": (reduce_sum, ("out", "x")),
    "histogram": (histogram, ("bins", "data")),
    "transpose": (transpose, ("out", "in", "rows", "cols")),
    "sgemm_tiled": (sgemm, ("c", "a", "b", "m", "n", "k")),
    "block_scan": (block_scan, ("out", "in")),
    "softmax_rows": (softmax, ("out", "x", "cols")),
    "jacobi_2d": (jacobi, ("out", "in", "n")),
    "black_scholes": (black_scholes, ("call", "put", "s", "x", "t", "r", "v")),
    "vector_add": (vector_add, ("c", "a", "b")),
    "transpose_coalesced": (transpose_coalesced, ("out", "in", "width", "height")),
    "convolve_rows": (convolve_rows, ("out", "in", "width")),
    "convolve_cols": (convolve_cols, ("out", "in", "width", "height")),
    "fast_matmul": (fast_matmul, ("c", "a", "b", "m", "n", "k")),
    "laplace": (laplace, ("out", "in", "nx", "ny")),
    "reduce6": (reduce6, ("out", "x")),
    "nbody": (nbody, ("accel", "body", "eps2")),
}
