#!/usr/bin/env python3
"""Runs the kernels of tests/codegen on a GPU and compares their results with Python references.

Usage: scripts/gpu_check.py CUBIN_DIR

CUBIN_DIR holds `<test>.cubin` files for sm_90, made on any machine with
`scripts/nvrtc_check.py --cubin-dir CUBIN_DIR DIR_OF_CU_FILES` (the CUDA C from
`cargo run --example emit_cuda -- --out DIR_OF_CU_FILES tests/codegen/*.sk`). Needs only libcuda (ctypes, no
numpy). Prints one line per kernel and exits 1 if any result differs.
"""
import ctypes
import math
import os
import random
import struct
import sys

cuda = ctypes.CDLL("libcuda.so.1")


def check(status, what):
    if status != 0:
        name = ctypes.c_char_p()
        cuda.cuGetErrorName(status, ctypes.byref(name))
        raise RuntimeError(f"{what}: {name.value.decode() if name.value else status}")


def init():
    check(cuda.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")


FORMATS = {"i32": "i", "u32": "I", "i64": "q", "u64": "Q", "f32": "f", "f64": "d", "bool": "?"}


class Buffer:
    """A device allocation of `count` elements of struct format `fmt`."""

    def __init__(self, fmt, values):
        self.fmt = fmt
        self.count = len(values)
        self.size = max(struct.calcsize(fmt) * self.count, 1)
        self.ptr = ctypes.c_uint64()
        check(cuda.cuMemAlloc_v2(ctypes.byref(self.ptr), ctypes.c_size_t(self.size)), "cuMemAlloc")
        data = struct.pack("<" + fmt * self.count, *values) if values else b"\0"
        check(cuda.cuMemcpyHtoD_v2(self.ptr, data, ctypes.c_size_t(self.size)), "cuMemcpyHtoD")

    def read(self):
        out = ctypes.create_string_buffer(self.size)
        check(cuda.cuMemcpyDtoH_v2(out, self.ptr, ctypes.c_size_t(self.size)), "cuMemcpyDtoH")
        return list(struct.unpack("<" + self.fmt * self.count, out.raw[: struct.calcsize(self.fmt) * self.count]))


def launch(cubin_dir, test, kernel, grid, block, args, shared=0):
    """args: Buffer, or (format, value) for scalars and records by value."""
    with open(os.path.join(cubin_dir, test + ".cubin"), "rb") as f:
        image = f.read()
    module = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), image), f"load {test}")
    function = ctypes.c_void_p()
    check(cuda.cuModuleGetFunction(ctypes.byref(function), module, kernel.encode()), f"get {kernel}")
    storage = []
    for a in args:
        if isinstance(a, Buffer):
            storage.append(ctypes.c_uint64(a.ptr.value))
        else:
            fmt, values = a
            raw = struct.pack("<" + fmt, *(values if isinstance(values, tuple) else (values,)))
            storage.append(ctypes.create_string_buffer(raw, len(raw)))
    params = (ctypes.c_void_p * len(storage))(*[ctypes.cast(ctypes.byref(s), ctypes.c_void_p) for s in storage])
    grid = tuple(grid) + (1,) * (3 - len(grid))
    block = tuple(block) + (1,) * (3 - len(block))
    check(cuda.cuLaunchKernel(function, *[ctypes.c_uint(x) for x in grid], *[ctypes.c_uint(x) for x in block],
                              ctypes.c_uint(shared), None, params, None), f"launch {kernel}")
    check(cuda.cuCtxSynchronize(), f"run {kernel}")


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def wrap(x, bits, signed=True):
    x &= (1 << bits) - 1
    if signed and x >= 1 << (bits - 1):
        x -= 1 << bits
    return x


def cdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def cmod(a, b):
    return a - cdiv(a, b) * b


def close(got, want, tol=1e-4):
    if isinstance(want, bool) or isinstance(want, int):
        return got == want
    return abs(got - want) <= tol * max(1.0, abs(want))


def compare(name, got, want, tol=1e-4):
    bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if not close(g, w, tol)]
    if len(got) != len(want):
        bad.append(("length", len(got), len(want)))
    print(("ok   " if not bad else "FAIL ") + name + ("" if not bad else f": first differences {bad[:5]}"))
    return not bad


# --- the tests --------------------------------------------------------------------------------------------------

def test_vector_add(d):
    n = 1000
    a = [random.uniform(-1, 1) for _ in range(n)]
    b = [random.uniform(-1, 1) for _ in range(n)]
    A, B, C = Buffer("f", a), Buffer("f", b), Buffer("f", [0.0] * n)
    launch(d, "vector_add", "vector_add", [4], [256], [A, B, C, ("i", n)])
    return compare("vector_add", C.read(), [f32(x) + f32(y) for x, y in zip(a, b)])


def test_reduce(d):
    n = 200
    xs = [random.randint(-1000, 1000) for _ in range(n)]
    S, I, O = Buffer("i", [0] * 256), Buffer("i", xs), Buffer("i", [0])
    launch(d, "reduce", "reduce", [1], [256], [S, I, O, ("i", n)])
    return compare("reduce", O.read(), [sum(xs)])


def test_warp_reduce(d):
    n = 1000
    xs = [random.randint(-50, 50) * 0.25 for _ in range(n)]
    I, O = Buffer("f", xs), Buffer("f", [0.0])
    launch(d, "warp_reduce", "warp_sum", [4], [256], [I, O, ("i", n)])
    ok = compare("warp_sum", O.read(), [sum(xs)])
    O2 = Buffer("f", [0.0] * 32)
    launch(d, "warp_reduce", "warp_sum_down", [4], [256], [I, O2, ("i", n)])
    want = [sum(xs[w * 32:(w + 1) * 32]) for w in range(32)]
    return compare("warp_sum_down", O2.read(), want) and ok


def test_scan(d):
    xs = [random.randint(-100, 100) for _ in range(512)]
    I, O = Buffer("i", xs), Buffer("i", [0] * 512)
    launch(d, "scan", "scan", [2], [256], [I, O])
    want = []
    for blk in range(2):
        acc = 0
        for x in xs[blk * 256:(blk + 1) * 256]:
            acc += x
            want.append(acc)
    return compare("scan", O.read(), want)


def test_histogram(d):
    n = 10000
    xs = [random.randint(0, 1 << 20) for _ in range(n)]
    D, H = Buffer("i", xs), Buffer("i", [0] * 64)
    launch(d, "histogram", "histogram", [8], [128], [D, H, ("i", n)])
    want = [0] * 64
    for x in xs:
        want[x & 63] += 1
    return compare("histogram", H.read(), want)


def test_transpose(d):
    w, h = 70, 45
    xs = [random.uniform(-1, 1) for _ in range(w * h)]
    I, O = Buffer("f", xs), Buffer("f", [0.0] * (w * h))
    launch(d, "transpose", "transpose", [3, 2], [32, 32], [I, O, ("i", w), ("i", h)])
    want = [0.0] * (w * h)
    for y in range(h):
        for x in range(w):
            want[x * h + y] = f32(xs[y * w + x])
    return compare("transpose", O.read(), want)


def test_tiles_2d(d):
    w, h = 70, 45
    xs = [random.uniform(-1, 1) for _ in range(w * h)]
    I, O = Buffer("f", xs), Buffer("f", [0.0] * (w * h))
    launch(d, "tiles_2d", "transpose_2d", [3, 2], [32, 32], [I, O, ("i", w), ("i", h)])
    want = [0.0] * (w * h)
    for y in range(h):
        for x in range(w):
            want[x * h + y] = f32(xs[y * w + x])
    ok = compare("transpose_2d", O.read(), want)
    C = Buffer("i", [0] * 64)
    launch(d, "tiles_2d", "cube", [1], [64], [C])
    return compare("cube", C.read(), [123 + 100 * (i % 2) + 10 for i in range(64)]) and ok


def test_matmul(d):
    n = 50
    a = [random.uniform(-1, 1) for _ in range(n * n)]
    b = [random.uniform(-1, 1) for _ in range(n * n)]
    A, B, C = Buffer("f", a), Buffer("f", b), Buffer("f", [0.0] * (n * n))
    launch(d, "matmul", "matmul", [4, 4], [16, 16], [A, B, C, ("i", n)])
    want = [sum(a[r * n + k] * b[k * n + c] for k in range(n)) for r in range(n) for c in range(n)]
    return compare("matmul", C.read(), want, 1e-3)


def test_constants(d):
    n = 100
    xs = [random.uniform(-1, 1) for _ in range(n)]
    xs[10] = xs[11] = xs[12] = 0.0
    I, O = Buffer("f", xs), Buffer("f", [0.0] * n)
    launch(d, "constants", "smooth", [1], [128], [I, O, ("i", n)])
    w = [0.25, 0.5, 0.25]
    want = []
    for i in range(n):
        acc = sum(w[k + 1] * xs[min(max(i + k, 0), n - 1)] for k in (-1, 0, 1))
        want.append(0.0 if abs(acc) < 1e-6 else acc)
    return compare("smooth", O.read(), want)


def test_dynamic_shared(d):
    n, block = 300, 128
    xs = [float(i) for i in range(n)]
    D = Buffer("f", xs)
    launch(d, "dynamic_shared", "block_reverse", [3], [block], [D, ("i", n), ("i", block)], shared=block * 4)
    want = list(xs)
    for blk in range(3):
        base = blk * block
        for tid in range(block):
            src = block - 1 - tid
            if base + src < n and base + tid < n:
                want[base + tid] = xs[base + src]
    return compare("block_reverse", D.read(), want)


def test_evaluation_order(d):
    a = [10, 20, 30, 40, 50, 60, 70, 80]
    A, O = Buffer("i", a), Buffer("i", [0] * 8)
    launch(d, "evaluation_order", "evaluation_order", [1], [1], [A, O])
    # out[0] = a[0] read before the atomic (10) + old value (10); bump runs before the second read of the cell;
    # the loads run in order; thread 0 fails `i > 0`; any (v < 0) is false; uniform_load reads 11. out[6] (a
    # shuffle from a lane that does not exist in a one-thread block) is undefined and not compared.
    got = O.read()
    return compare("evaluation_order", got[:6] + got[7:], [20, 2, -10, 0, 0, 11, 0])


def test_operators(d):
    a, b = -123456789, 1000
    u = 0x80000005
    # Signed overflow is undefined in .sk (as in CUDA C): pick l so that i64.(1) stays in range.
    l = 5
    x, y = 2.5, 2.0
    I32 = Buffer("i", [a, b, 0, 0, 0])
    U32 = Buffer("I", [u, 0])
    I64 = Buffer("q", [l, 0])
    U64 = Buffer("Q", [0, 7])
    F32 = Buffer("f", [x, 0.0])
    F64 = Buffer("d", [y, 0.0])
    FL = Buffer("?", [False, False])
    launch(d, "operators", "operators", [1], [1], [I32, U32, I64, U64, F32, F64, FL])
    i32 = [a, b,
           wrap(cdiv(a, b) + cmod(a, b) - wrap(a << 3, 32) + (a >> 2) + ((a & 0xFFFFFFFF) >> 28), 32),
           wrap((a & 0xFF) | (b ^ ~a), 32),
           wrap(-2**31 + -a + 0x7FFFFFFF, 32)]
    u32 = [u, wrap((u >> 1) + (wrap(u, 32) >> 31) + 7, 32, False)]
    i64 = [l, wrap(l * 10**12 + ((l & (2**64 - 1)) >> 60) - 2**63, 64)]
    u64 = [wrap((7 << 32) + 2**64 - 1, 64, False), 7]
    ok = compare("operators int32", I32.read(), i32)
    ok &= compare("operators uint32", U32.read(), u32)
    ok &= compare("operators int64", I64.read(), i64)
    ok &= compare("operators uint64", U64.read(), u64)
    ok &= compare("operators float32", F32.read(), [x, x ** 2 + math.sqrt(x) + x * 0.001 / 3])
    ok &= compare("operators float64", F64.read(), [y, y ** 0.5 + math.exp(y) + 1e300 + a])
    ok &= compare("operators bool", FL.read(), [True, True])
    return ok


def test_if_values(d):
    xs = [-5.0, 0.0, 5.0, 50.0, 500.0, 0.5, 1.5, 12345.0]
    n = len(xs)
    X, O, C = Buffer("f", xs), Buffer("i", [0] * n), Buffer("i", [0] * 3)
    launch(d, "if_values", "if_values", [1], [32], [X, O, C, ("i", n)])

    def classify(v):
        return -1 if v < 0 else (0 if v == 0 else 1)

    want = []
    for x in xs:
        c = classify(x)
        level = int(x / 100.0) * 10 if x > 100 else (2 if x > 10 else c)
        bonus = level * 2 + 1
        want.append(level + bonus + (classify(x - 1.0) if c > 0 else 0))
    return compare("if_values", O.read(), want)


def test_local_arrays(d):
    n = 100
    xs = [random.choice([-1, 1]) * random.uniform(0.5, 1) for _ in range(n)]
    I, O = Buffer("f", xs), Buffer("f", [0.0] * n)
    launch(d, "local_arrays", "window_sum", [1], [128], [I, O, ("i", n)])
    want = []
    for i in range(n):
        window = [xs[j] if 0 <= j < n else 0.0 for j in (i + k - 2 for k in range(5))]
        nonzero = sum(1 for v in window if v != 0.0)
        want.append(sum(window) + (i - 2 + nonzero))
    return compare("window_sum", O.read(), want)


def test_records(d):
    n = 64
    ps = []
    for _ in range(n):
        ps.append((random.uniform(0, 1), random.uniform(-0.01, 1), random.uniform(-1, 1), random.uniform(-1, 1),
                   random.uniform(0.5, 2)))
    flat = [v for p in ps for v in p]
    P, E = Buffer("f", flat), Buffer("f", [0.0] * n)
    dt, g = 0.1, 9.81
    launch(d, "records", "advance", [1], [64], [P, E, ("i", n), ("ff", (dt, g))])
    want_p, want_e = [], []
    for (px, py, vx, vy, m) in ps:
        vy2 = vy - g * dt
        nx, ny = px + vx * dt, py + vy2 * dt
        vy3 = -vy2 if ny < 0 else vy2
        want_p += [nx, ny, vx, vy3, m]
        want_e.append(0.5 * m * (vx * vx + vy2 * vy2))
    return compare("advance particles", P.read(), want_p) & compare("advance energy", E.read(), want_e)


def test_variants(d):
    """tests/codegen/variants.sk: a variant kernel parameter, a vector of variants, a shared array of them; the
    record layout is the tag (int32) and every constructor's payload fields in order."""
    n = 500
    kinds = [(i * 7) % 11 for i in range(n)]
    xs = [f32(math.sin(i * 0.37) * 4.0) for i in range(n)]
    # shape: Tag_shape, Circle_0, Rect_0, Rect_1 (Circle 0, Rect 1, Empty 2).
    shapes = [[(2, 0.0, 0.0, 0.0), (0, f32(i * 0.5), 0.0, 0.0), (1, 0.0, 1.5, f32(float(i)))][i % 3] for i in range(n)]

    def area(s):
        tag, r, w, h = s
        return f32(f32(3.0 * r) * r) if tag == 0 else (f32(w * h) if tag == 1 else 0.0)

    def shape_of(k, v):
        return [(0, v, 0.0, 0.0), (1, 0.0, v, 2.0), (2, 0.0, 0.0, 0.0)][min(k % 3, 2)]

    ok = True
    # op: Tag_op, Scale_0, Offset_0, Offset_1 (Keep 0, Scale 1, Offset 2).
    for name, op in [("keep", (0, 0.0, 0, 0.0)), ("scale", (1, 1.5, 0, 0.0)), ("offset", (2, 0.0, 3, 0.25))]:
        K, X = Buffer("i", kinds), Buffer("f", xs)
        # Buffer holds one format per element: the tags go in as the float32 values with their bits.
        as_f = [struct.unpack("<f", struct.pack("<i", sh[0]))[0] if j == 0 else sh[j] for sh in shapes for j in range(4)]
        S, O = Buffer("f", as_f), Buffer("f", [0.0] * n)
        launch(d, "variants", "variants", [2], [256], [("ifif", op), K, X, S, O, ("i", n)])
        want = []
        for i in range(n):
            mine = shape_of(kinds[i], xs[i])
            extra = f32(mine[1] + mine[1]) if mine[0] == 0 else (f32(mine[2] + mine[3]) if mine[0] == 1 else 0.0)
            given = -1.0 if shapes[i][0] == 2 else area(shapes[i])
            a = area(mine)
            applied = a if op[0] == 0 else (f32(a * op[1]) if op[0] == 1 else f32(a + f32(op[2] * op[3])))
            want.append(f32(f32(applied + extra) + given))
        ok &= compare(f"variants {name}", O.read(), want, tol=1e-6)
    return ok


def test_device_functions(d):
    n = 40
    xs = [random.uniform(0.5, 1.5) for _ in range(n)]
    xs[30] = -1.0
    X, Y = Buffer("f", xs), Buffer("f", [0.0] * n)
    launch(d, "device_functions", "apply", [1], [64], [X, Y, ("i", n)])

    def collatz(v):
        steps = 0
        while v > 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            steps += 1
        return steps

    want = []
    for i in range(n):
        total = sum(xs[min(max(i + dd, 0), n - 1)] ** 2 for dd in (-2, -3, -4)) + collatz(i)
        want.append(total * 2 + 30)
    return compare("apply", Y.read(), want)


def test_constant_folding(d):
    n = 1000
    xs = [random.uniform(-1, 1) for _ in range(n)]
    X, O = Buffer("f", xs), Buffer("f", [0.0] * n)
    launch(d, "constant_folding", "constant_folding", [4], [256], [X, O, ("i", n)])
    weights, kept = [0.25, 0.5, 0.125, 2.0], [3.0, 5.0, 7.0, 9.0]
    want = [sum((w + c) * f32(x) for w, c in zip(weights, kept)) + weights[i & 3] for i, x in enumerate(xs)]
    return compare("constant_folding", O.read(), want)


def test_dependent_launch(d):
    # Launched one after the other (the runtime's GPU test covers the overlapped launch): the sync returns at once.
    n = 1000
    B, O = Buffer("i", [0] * n), Buffer("i", [0] * n)
    launch(d, "dependent_launch", "producer", [4], [256], [B, ("i", n)])
    launch(d, "dependent_launch", "consumer", [4], [256], [B, O, ("i", n)])
    return compare("dependent_launch", O.read(), [5 * i for i in range(n)])


def test_function_args(d):
    blocks, n = 3, 700
    xs = [random.randint(-1000, 1000) for _ in range(n)]
    ys = [random.uniform(0.25, 100.0) for _ in range(n)]
    X, Yv = Buffer("i", xs), Buffer("f", ys)
    O, F = Buffer("i", [0] * (3 * blocks + n)), Buffer("f", [0.0] * n)
    launch(d, "function_args", "function_args", [blocks], [256], [X, Yv, O, F, ("i", n)])
    want = []
    again = []
    for b in range(blocks):
        values = [xs[i] if i < n else 0 for i in range(b * 256, (b + 1) * 256)]
        total = wrap(sum(values), 32)
        bits = 0
        for v in values:
            bits |= v
        want += [total, wrap(bits, 32), max(values)]
        again += [wrap(total + v, 32) for i, v in zip(range(b * 256, (b + 1) * 256), values) if i < n]
    ok = compare("function_args reductions", O.read(), want + again)
    fwant = [2 * math.sqrt(f32(y)) + 2 * (f32(y) * 0.5) for y in ys]
    return compare("function_args floats", F.read(), fwant) and ok


def test_intrinsics(d):
    """tests/codegen/intrinsics.sk: CUDA's definitions written out (Math API reference, Programming Guide)."""
    ok = True
    words = [0, 1, -1, -2**31, 0xF0, 12345678, -2**31 + 1, 2**30, -0x12345679]
    wides = [0, 1, -1, -2**63, 0xF0, 0x123456789ABCDEF0, -2**63 + 1, 2**40, -0x123456789ABC]
    n = len(words)
    X, Y = Buffer("i", words), Buffer("q", wides)
    O, W = Buffer("i", [0] * 9 * n), Buffer("q", [0] * n)
    launch(d, "intrinsics", "bits", [1], [32], [X, Y, O, W, ("i", n)])
    bits = lambda v, k: [(v >> b) & 1 for b in range(k)]
    ffs = lambda v, k: next((b + 1 for b in range(k) if (v >> b) & 1), 0)
    clz = lambda v, k: next((k - 1 - b for b in reversed(range(k)) if (v >> b) & 1), k)
    brev = lambda v, k: sum(1 << (k - 1 - b) for b in range(k) if (v >> b) & 1)
    want, want_wide = [], []
    for i in range(n):
        x, y, nxt = words[i] & 0xFFFFFFFF, wides[i] & (2**64 - 1), words[(i + 1) % n] & 0xFFFFFFFF
        joined = (nxt << 32) | x
        left = ((joined << ((3 * i) & 31)) >> 32) & 0xFFFFFFFF
        right = (joined >> ((7 * i + 13) & 31)) & 0xFFFFFFFF
        want += [sum(bits(x, 32)), sum(bits(y, 64)), clz(x, 32), clz(y, 64), ffs(x, 32), ffs(y, 64),
                 wrap(brev(x, 32), 32), wrap(left, 32), wrap(right, 32)]
        want_wide.append(wrap(brev(y, 64), 64))
    ok = compare("bits", O.read(), want) and ok
    ok = compare("bits (brev64)", W.read(), want_wide) and ok

    # Barrier reductions over blocks of 100 threads (a partial last warp).
    xs = [random.randint(-5, 100) if b == 0 else random.randint(0, 90) for b in range(2) for _ in range(100)]
    X, O = Buffer("i", xs), Buffer("i", [0] * 600)
    launch(d, "intrinsics", "barrier_reductions", [2], [100], [X, O])
    want = []
    for b in range(2):
        block = xs[100 * b:100 * (b + 1)]
        count = sum(1 for v in block if cmod(v, 3) == 0)
        want += [count, int(all(v >= 0 for v in block)), int(any(v > 90 for v in block))] * 100
    ok = compare("barrier_reductions", O.read(), want) and ok

    # Warp reductions over blocks of 48 threads: a whole warp and one of 16 lanes.
    xs = [random.randint(-2**31, 2**31 - 1) for _ in range(96)]
    X, O, U = Buffer("i", xs), Buffer("i", [0] * 6 * 96), Buffer("I", [0] * 3 * 96)
    launch(d, "intrinsics", "warp_reductions", [2], [48], [X, O, U])
    want, want_u = [], []
    for t in range(96):
        start = t // 48 * 48 + (t % 48) // 32 * 32
        warp = xs[start:min(start + 32, t // 48 * 48 + 48)]
        unsigned = [v & 0xFFFFFFFF for v in warp]
        a, o, x = 0xFFFFFFFF, 0, 0
        for v in unsigned:
            a, o, x = a & v, o | v, x ^ v
        want += [wrap(sum(warp), 32), min(warp), max(warp), wrap(a, 32), wrap(o, 32), wrap(x, 32)]
        want_u += [min(unsigned), max(unsigned), x]
    ok = compare("warp_reductions", O.read(), want) and ok
    ok = compare("warp_reductions (uint32)", U.read(), want_u) and ok

    # Shuffles within groups of `width` lanes, as the Programming Guide describes them.
    def source(mode, lane, operand, width):
        group = lane // width
        if mode == "idx":
            return group * width + operand % width
        if mode == "up" and lane % width >= operand:
            return lane - operand
        if mode == "down" and lane % width + operand < width:
            return lane + operand
        if mode == "xor" and (lane ^ operand) // width <= group:
            return lane ^ operand
        return lane
    all_ok = True
    for width in [1, 2, 4, 8, 16, 32]:
        for operand in [0, 1, 2, 3, 5, 7, 12, 16, 31]:
            O = Buffer("i", [0] * 4 * 64)
            launch(d, "intrinsics", "shuffle_width", [1], [64], [O, ("i", operand), ("i", width)])
            want = [100 + source(m, t % 32, operand, width) for t in range(64) for m in ("idx", "up", "down", "xor")]
            got = O.read()
            if got != want:
                all_ok = compare(f"shuffle_width (width {width}, operand {operand})", got, want) and all_ok
    print(("ok   " if all_ok else "FAIL ") + "shuffle_width")
    ok = all_ok and ok

    # Float atomic min/max: NaN operands never stored, a NaN element never replaced.
    xs = [float("nan") if i % 9 == 4 else f32((i - 20.5) * 1.25) for i in range(64)]
    ds = [x * 1e300 for x in xs]
    X, D = Buffer("f", xs), Buffer("d", ds)
    L, H = Buffer("f", [float("inf"), float("-inf"), float("nan")]), Buffer("d", [float("inf"), -0.0])
    launch(d, "intrinsics", "float_atomics", [2], [32], [X, D, L, H])
    finite = [x for x in xs if x == x]
    lo = L.read()
    ok = compare("float_atomics (float32)", lo[:2], [min(finite), max(finite)]) and ok
    ok = compare("float_atomics (NaN element)", [lo[2] != lo[2]], [True]) and ok
    finite = [x for x in ds if x == x]
    ok = compare("float_atomics (float64)", H.read(), [min(finite), max(finite)], tol=0) and ok
    return ok


def captured_stdout(run):
    """What `run` writes to file descriptor 1 (device printf goes there when the context synchronises)."""
    import tempfile
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 1)
        try:
            run()
        finally:
            # The driver writes through the C library's stdout, which buffers when it is not a terminal.
            ctypes.CDLL(None).fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
        capture.seek(0)
        return capture.read().decode()


def test_printf(d):
    n, threads = 4, 8
    xs = [f32(0.5 + i * 1.25) for i in range(n)]
    ys = [1234.5678 * (i + 1) for i in range(n)]
    ids = [0xBEEF + 17 * i for i in range(n)]
    big = [-(1 << 40) + i for i in range(n)]
    args = [Buffer("f", xs), Buffer("d", ys), Buffer("I", ids), Buffer("q", big), ("i", n)]
    text = captured_stdout(lambda: launch(d, "printf", "show", [1], [threads], args))
    want = []
    for i in range(n):
        # C's conversions as Python's % formats them (%u and %lld are %d here).
        want.append("i=%d x=%f y=%.3e g=%g u=%d hex=%08x big=%d 100%%" % (i, xs[i], ys[i], xs[i], ids[i], ids[i], big[i]))
        want.append('quote=" backslash=\\ tab=\t|%-5d|%c|' % (i, 65))
    want += ["done"] * threads
    # Threads print in an order the hardware picks: compare the lines as multisets.
    got = text.splitlines()
    ok = sorted(got) == sorted(want)
    print(("ok   " if ok else "FAIL ") + "printf" + ("" if ok else f": got {got!r}, want {want!r}"))
    return ok


def main(argv):
    if len(argv) != 1:
        print(__doc__)
        return 2
    random.seed(3)
    init()
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_")]
    results = []
    for t in tests:
        try:
            results.append(t(argv[0]))
        except Exception as e:  # report and go on
            print(f"FAIL {t.__name__}: {e}")
            results.append(False)
    print(f"{sum(results)}/{len(results)} test groups passed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
