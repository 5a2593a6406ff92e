#!/usr/bin/env python3
"""Random linalg modules for the generated-modules campaign (docs/hardening.md).

Every kind of op pruner-tune looks at, in the shapes and element types that stress the
passes: named matmul / batch_matmul (plain, transposed via indexing_maps, mixed f16 -> f32),
generic contractions, the three named 2-D convolutions and a conv1d-shaped generic (strides
and dilations), reductions over one dim or all of them (rank-0 output), elementwise generics
(broadcasts, captured constants, casts), copy-like and transpose-like generics, the fused ops
(fill, copy, transpose) alone, ops pruner does not tune (dynamic shapes, unsupported named
ops) next to ones it does, producer -> consumer chains, and functions inside nested modules.

Deterministic: `generate(seed)` returns the same text for the same seed (Python's
random.Random is specified to be reproducible across platforms for a given seed).
Standard library only.

  gen_module.py SEED            print one module
"""
import random
import sys

DIMS = [1, 2, 3, 4, 5, 7, 8, 12, 16, 24, 31, 32, 48, 64, 96, 100, 128, 256]
SMALL = [1, 2, 3, 4, 5, 7, 8, 16]


class Func:
    """Accumulates one func.func: arguments, body lines, fresh SSA names."""

    def __init__(self, name):
        self.name = name
        self.args = []  # (name, type)
        self.lines = []
        self.counter = 0
        self.results = []  # (name, type)

    def fresh(self, prefix="v"):
        self.counter += 1
        return "%%%s%d" % (prefix, self.counter)

    def arg(self, ty):
        name = "%%a%d" % len(self.args)
        self.args.append((name, ty))
        return name

    def emit(self, line):
        self.lines.append("    " + line)

    def text(self):
        args = ", ".join("%s: %s" % a for a in self.args)
        if not self.results:
            return "  func.func @%s(%s) {\n%s\n    return\n  }\n" % (
                self.name, args, "\n".join(self.lines))
        rtys = ", ".join(t for _, t in self.results)
        rnames = ", ".join(n for n, _ in self.results)
        return "  func.func @%s(%s) -> (%s) {\n%s\n    return %s : %s\n  }\n" % (
            self.name, args, rtys, "\n".join(self.lines), rnames, rtys)


def tensor(shape, ty):
    if not shape:
        return "tensor<%s>" % ty
    return "tensor<%sx%s>" % ("x".join("?" if d is None else str(d) for d in shape), ty)


def is_float(ty):
    return ty.startswith("f") or ty == "bf16"


def zero(ty):
    return "0.000000e+00" if is_float(ty) else "0"


def init(f, rng, shape, ty, fill=True):
    """An output operand: a filled tensor.empty, a plain tensor.empty or an argument."""
    if any(d is None for d in shape):
        return f.arg(tensor(shape, ty))
    choice = rng.random()
    if fill and choice < 0.6:
        e = f.fresh("e")
        f.emit("%s = tensor.empty() : %s" % (e, tensor(shape, ty)))
        c = f.fresh("c")
        f.emit("%s = arith.constant %s : %s" % (c, zero(ty), ty))
        r = f.fresh("init")
        f.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
            r, c, ty, e, tensor(shape, ty), tensor(shape, ty)))
        return r
    if choice < 0.8:
        e = f.fresh("e")
        f.emit("%s = tensor.empty() : %s" % (e, tensor(shape, ty)))
        return e
    return f.arg(tensor(shape, ty))


def affine(loops, exprs):
    return "affine_map<(%s) -> (%s)>" % (", ".join(loops), ", ".join(exprs))


def cast(f, value, src, dst):
    """Body-level cast between the element types the generator uses."""
    if src == dst:
        return value
    r = f.fresh("x")
    if is_float(src) and is_float(dst):
        width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
        op = "arith.extf" if width[dst] > width[src] else "arith.truncf"
    elif is_float(src):
        op = "arith.fptosi"
    elif is_float(dst):
        op = "arith.sitofp"
    else:
        op = "arith.extsi" if int(dst[1:]) > int(src[1:]) else "arith.trunci"
    f.emit("  %s = %s %s : %s to %s" % (r, op, value, src, dst))
    return r


def binop(kind, ty):
    fl = is_float(ty)
    return {"add": "arith.addf" if fl else "arith.addi",
            "sub": "arith.subf" if fl else "arith.subi",
            "mul": "arith.mulf" if fl else "arith.muli",
            "max": "arith.maximumf" if fl else "arith.maxsi",
            "min": "arith.minimumf" if fl else "arith.minsi"}[kind]


def generic(f, rng, ins, in_types, in_maps, out_shape, out_ty, out_map, iters, body,
            out_init=None):
    """A linalg.generic; `body(f, args, out_arg)` emits the region and returns the yield."""
    n = len(iters)
    loops = ["d%d" % i for i in range(n)]
    if out_init is None:
        out_init = init(f, rng, out_shape, out_ty, fill=False)
    maps = [affine(loops, m) for m in in_maps] + [affine(loops, out_map)]
    r = f.fresh("g")
    f.emit("%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}" % (
        r, ", ".join(maps), ", ".join('"%s"' % i for i in iters)))
    f.emit("    ins(%s : %s) outs(%s : %s) {" % (
        ", ".join(ins), ", ".join(in_types), out_init, tensor(out_shape, out_ty)))
    bargs = ["%%in%d" % i for i in range(len(ins))]
    elems = [t.split("x")[-1].rstrip(">") if "x" in t else t[len("tensor<"):-1] for t in in_types]
    f.emit("^bb0(%s):" % ", ".join(["%s: %s" % (a, e) for a, e in zip(bargs, elems)] +
                                   ["%%out: %s" % out_ty]))
    y = body(f, bargs, elems, "%out")
    f.emit("  linalg.yield %s : %s" % (y, out_ty))
    f.emit("} -> %s" % tensor(out_shape, out_ty))
    return r, tensor(out_shape, out_ty)


# ---- op generators: each returns (value, type, shape, elem) of its result ----

def types_for(rng):
    """(input element type, accumulator/output element type)."""
    r = rng.random()
    if r < 0.6:
        return "f32", "f32"
    if r < 0.8:
        return "f16", "f32"
    if r < 0.93:
        return "f16", "f16"
    return "i8", "i32"


def gen_matmul(f, rng):
    ti, to = types_for(rng)
    m, n, k = rng.choice(DIMS), rng.choice(DIMS), rng.choice(DIMS)
    variant = rng.random()
    if variant < 0.15:
        # Dynamic shapes: pruner-tune skips the op, the passes must leave it alone.
        a = f.arg(tensor([None, None], ti))
        b = f.arg(tensor([None, None], ti))
        c = f.arg(tensor([None, None], to))
        r = f.fresh("mm")
        f.emit("%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            r, a, b, tensor([None, None], ti), tensor([None, None], ti), c,
            tensor([None, None], to), tensor([None, None], to)))
        return r, tensor([None, None], to), [None, None], to
    trans_a = variant < 0.35
    trans_b = 0.25 < variant < 0.45
    a_shape = [k, m] if trans_a else [m, k]
    b_shape = [n, k] if trans_b else [k, n]
    a = f.arg(tensor(a_shape, ti))
    b = f.arg(tensor(b_shape, ti))
    c = init(f, rng, [m, n], to)
    r = f.fresh("mm")
    maps = ""
    if trans_a or trans_b:
        loops = ["d0", "d1", "d2"]
        am = affine(loops, ["d2", "d0"] if trans_a else ["d0", "d2"])
        bm = affine(loops, ["d1", "d2"] if trans_b else ["d2", "d1"])
        maps = " indexing_maps = [%s, %s, %s]" % (am, bm, affine(loops, ["d0", "d1"]))
    f.emit("%s = linalg.matmul%s ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
        r, maps, a, b, tensor(a_shape, ti), tensor(b_shape, ti), c, tensor([m, n], to),
        tensor([m, n], to)))
    return r, tensor([m, n], to), [m, n], to


def gen_batch_matmul(f, rng):
    ti, to = types_for(rng)
    bt, m, n, k = rng.choice(SMALL), rng.choice(DIMS), rng.choice(DIMS), rng.choice(DIMS)
    a = f.arg(tensor([bt, m, k], ti))
    b = f.arg(tensor([bt, k, n], ti))
    c = init(f, rng, [bt, m, n], to)
    r = f.fresh("bmm")
    f.emit("%s = linalg.batch_matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
        r, a, b, tensor([bt, m, k], ti), tensor([bt, k, n], ti), c, tensor([bt, m, n], to),
        tensor([bt, m, n], to)))
    return r, tensor([bt, m, n], to), [bt, m, n], to


def mac_body(ti, to):
    def body(f, args, elems, out):
        x = cast(f, args[0], elems[0], to)
        y = cast(f, args[1], elems[1], to)
        p = f.fresh("x")
        f.emit("  %s = %s %s, %s : %s" % (p, binop("mul", to), x, y, to))
        s = f.fresh("x")
        f.emit("  %s = %s %s, %s : %s" % (s, binop("add", to), out, p, to))
        return s
    return body


def gen_generic_contraction(f, rng):
    ti, to = types_for(rng)
    m, n, k = rng.choice(DIMS), rng.choice(DIMS), rng.choice(DIMS)
    a = f.arg(tensor([m, k], ti))
    b = f.arg(tensor([n, k], ti))  # B transposed
    c = init(f, rng, [m, n], to)
    return generic(f, rng, [a, b], [tensor([m, k], ti), tensor([n, k], ti)],
                   [["d0", "d2"], ["d1", "d2"]], [m, n], to, ["d0", "d1"],
                   ["parallel", "parallel", "reduction"], mac_body(ti, to), c) + ([m, n], to)


def conv_out(size, kernel, stride, dilation):
    return (size - (kernel - 1) * dilation - 1) // stride + 1


def conv_geometry(rng):
    kh, kw = rng.choice([1, 2, 3, 5, 7]), rng.choice([1, 2, 3, 5])
    sh, sw = rng.choice([1, 1, 2, 3]), rng.choice([1, 1, 2])
    dh, dw = rng.choice([1, 1, 2]), rng.choice([1, 1, 2])
    oh, ow = rng.choice([1, 2, 3, 4, 7, 8, 14, 16]), rng.choice([1, 2, 3, 4, 7, 8, 14, 16])
    h = (oh - 1) * sh + (kh - 1) * dh + 1
    w = (ow - 1) * sw + (kw - 1) * dw + 1
    return kh, kw, sh, sw, dh, dw, oh, ow, h, w


def gen_conv2d(f, rng):
    ti, to = types_for(rng)
    kh, kw, sh, sw, dh, dw, oh, ow, h, w = conv_geometry(rng)
    n = rng.choice([1, 1, 2, 4])
    c = rng.choice([1, 3, 4, 8, 16, 32])
    fo = rng.choice([1, 4, 8, 16, 32, 64])
    kind = rng.choice(["nhwc_hwcf", "nchw_fchw", "depthwise"])
    if kind == "nhwc_hwcf":
        shapes = ([n, h, w, c], [kh, kw, c, fo], [n, oh, ow, fo])
        name = "linalg.conv_2d_nhwc_hwcf"
    elif kind == "nchw_fchw":
        shapes = ([n, c, h, w], [fo, c, kh, kw], [n, fo, oh, ow])
        name = "linalg.conv_2d_nchw_fchw"
    else:
        shapes = ([n, h, w, c], [kh, kw, c], [n, oh, ow, c])
        name = "linalg.depthwise_conv_2d_nhwc_hwc"
    i = f.arg(tensor(shapes[0], ti))
    k = f.arg(tensor(shapes[1], ti))
    o = init(f, rng, shapes[2], to)
    r = f.fresh("conv")
    f.emit("%s = %s {dilations = dense<[%d, %d]> : tensor<2xi64>, strides = dense<[%d, %d]> : "
           "tensor<2xi64>} ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
               r, name, dh, dw, sh, sw, i, k, tensor(shapes[0], ti), tensor(shapes[1], ti), o,
               tensor(shapes[2], to), tensor(shapes[2], to)))
    return r, tensor(shapes[2], to), shapes[2], to


def gen_conv1d(f, rng):
    """A conv1d-shaped linalg.generic (n, w, f, c, kw), or the named conv_1d_nwc_wcf
    (an unsupported named op: not tuned)."""
    ti, to = types_for(rng)
    kw = rng.choice([1, 2, 3, 5])
    sw, dw = rng.choice([1, 1, 2]), rng.choice([1, 1, 2])
    ow = rng.choice([1, 2, 4, 7, 8, 16, 32, 64])
    w = (ow - 1) * sw + (kw - 1) * dw + 1
    n, c, fo = rng.choice([1, 2, 4]), rng.choice([1, 3, 8, 16]), rng.choice([1, 4, 8, 16, 32])
    inp = f.arg(tensor([n, w, c], ti))
    flt = f.arg(tensor([kw, c, fo], ti))
    out = init(f, rng, [n, ow, fo], to)
    if rng.random() < 0.2:
        r = f.fresh("conv")
        f.emit("%s = linalg.conv_1d_nwc_wcf {dilations = dense<%d> : tensor<1xi64>, strides = "
               "dense<%d> : tensor<1xi64>} ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
                   r, dw, sw, inp, flt, tensor([n, w, c], ti), tensor([kw, c, fo], ti), out,
                   tensor([n, ow, fo], to), tensor([n, ow, fo], to)))
        return r, tensor([n, ow, fo], to), [n, ow, fo], to
    wexpr = "d1" if sw == 1 else "d1 * %d" % sw
    kexpr = "d4" if dw == 1 else "d4 * %d" % dw
    return generic(f, rng, [inp, flt], [tensor([n, w, c], ti), tensor([kw, c, fo], ti)],
                   [["d0", "%s + %s" % (wexpr, kexpr), "d3"], ["d4", "d3", "d2"]],
                   [n, ow, fo], to, ["d0", "d1", "d2"],
                   ["parallel", "parallel", "parallel", "reduction", "reduction"],
                   mac_body(ti, to), out) + ([n, ow, fo], to)


def gen_reduction(f, rng):
    ti, to = types_for(rng)
    if ti == "f16" and to == "f16" and rng.random() < 0.5:
        ti = to = "f32"
    rank = rng.choice([1, 2, 2, 3])
    shape = [rng.choice(DIMS) for _ in range(rank)]
    full = rank == 1 or rng.random() < 0.3
    if full:
        red = list(range(rank))
    elif rank == 2:
        red = [rng.choice([0, 1])]
    else:
        red = rng.choice([[0], [1], [2], [1, 2], [0, 2]])
    loops = ["d%d" % i for i in range(rank)]
    out_shape = [shape[i] for i in range(rank) if i not in red]
    out_map = [loops[i] for i in range(rank) if i not in red]
    iters = ["reduction" if i in red else "parallel" for i in range(rank)]
    x = f.arg(tensor(shape, ti))
    kind = rng.choice(["add", "max", "add"])
    o = init(f, rng, out_shape, to)

    def body(f, args, elems, out):
        v = cast(f, args[0], elems[0], to)
        if rng.random() < 0.3 and is_float(to):
            e = f.fresh("x")
            f.emit("  %s = math.exp %s : %s" % (e, v, to))
            v = e
        s = f.fresh("x")
        f.emit("  %s = %s %s, %s : %s" % (s, binop(kind, to), out, v, to))
        return s
    return generic(f, rng, [x], [tensor(shape, ti)], [loops], out_shape, to, out_map, iters,
                   body, o) + (out_shape, to)


def elementwise_body(rng, to, captured):
    def body(f, args, elems, out):
        vals = [cast(f, a, e, to) for a, e in zip(args, elems)]
        v = vals[0]
        for other in vals[1:]:
            r = f.fresh("x")
            f.emit("  %s = %s %s, %s : %s" % (r, binop(rng.choice(["add", "mul", "sub", "max"]), to),
                                              v, other, to))
            v = r
        for _ in range(rng.choice([0, 1, 2])):
            r = f.fresh("x")
            if is_float(to):
                op = rng.choice(["exp", "neg", "relu"])
                if op == "exp":
                    f.emit("  %s = math.exp %s : %s" % (r, v, to))
                elif op == "neg":
                    f.emit("  %s = arith.negf %s : %s" % (r, v, to))
                else:
                    f.emit("  %s = arith.maximumf %s, %s : %s" % (r, v, captured, to))
            else:
                f.emit("  %s = arith.addi %s, %s : %s" % (r, v, v, to))
            v = r
        return v
    return body


def gen_elementwise(f, rng, src=None):
    """Elementwise generic; with `src` = (value, type, shape, elem) it consumes that value
    with identity maps (the fusible-consumer shape), else it reads fresh arguments."""
    if src is not None:
        shape, to = src[2], src[3]
        ins, in_types, in_maps = [src[0]], [src[1]], []
    else:
        rank = rng.choice([1, 2, 2, 3, 4])
        shape = [rng.choice(DIMS) for _ in range(rank)]
        ti, to = types_for(rng)
        ins, in_types, in_maps = [], [], []
        x = f.arg(tensor(shape, ti))
        ins.append(x)
        in_types.append(tensor(shape, ti))
    rank = len(shape)
    loops = ["d%d" % i for i in range(rank)]
    in_maps = [loops]
    if rng.random() < 0.6 and rank >= 1:
        # A broadcast operand along the last dim (bias add) or a full-shape one.
        if rng.random() < 0.5:
            b = f.arg(tensor([shape[-1]], to))
            ins.append(b)
            in_types.append(tensor([shape[-1]], to))
            in_maps.append([loops[-1]])
        else:
            b = f.arg(tensor(shape, to))
            ins.append(b)
            in_types.append(tensor(shape, to))
            in_maps.append(loops)
    captured = None
    if is_float(to):
        captured = f.fresh("zero")
        f.emit("%s = arith.constant %s : %s" % (captured, zero(to), to))
    out = init(f, rng, shape, to, fill=rng.random() < 0.3)  # sometimes a filled init
    return generic(f, rng, ins, in_types, in_maps, shape, to, loops, ["parallel"] * rank,
                   elementwise_body(rng, to, captured), out) + (shape, to)


def gen_copy_like(f, rng):
    """A generic that only yields its input: identity (a copy) or a permutation (a
    transpose); or the named fused ops alone."""
    rank = rng.choice([1, 2, 2, 3])
    shape = [rng.choice(DIMS) for _ in range(rank)]
    ty = rng.choice(["f32", "f32", "f16"])
    x = f.arg(tensor(shape, ty))
    loops = ["d%d" % i for i in range(rank)]
    perm = list(range(rank))
    if rank > 1 and rng.random() < 0.5:
        rng.shuffle(perm)
    out_shape = [shape[p] for p in perm]
    choice = rng.random()
    if choice < 0.15:
        o = init(f, rng, shape, ty, fill=False)
        r = f.fresh("cp")
        f.emit("%s = linalg.copy ins(%s : %s) outs(%s : %s) -> %s" % (
            r, x, tensor(shape, ty), o, tensor(shape, ty), tensor(shape, ty)))
        return r, tensor(shape, ty), shape, ty
    if choice < 0.25 and rank > 1:
        o = init(f, rng, out_shape, ty, fill=False)
        r = f.fresh("tr")
        f.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [%s]" % (
            r, x, tensor(shape, ty), o, tensor(out_shape, ty), ", ".join(map(str, perm))))
        return r, tensor(out_shape, ty), out_shape, ty
    # out[d...] = in[perm^-1 ...]: the input map reads in the permuted order.
    in_map = ["d%d" % perm.index(i) for i in range(rank)]
    out = init(f, rng, out_shape, ty, fill=False)
    return generic(f, rng, [x], [tensor(shape, ty)], [in_map], out_shape, ty, loops,
                   ["parallel"] * rank, lambda f, a, e, o: a[0], out) + (out_shape, ty)


def neg_or_copy(rng):
    copy = rng.random() < 0.3

    def body(f, args, elems, out):
        if copy:
            return args[0]
        r = f.fresh("x")
        f.emit("  %s = arith.negf %s : f32" % (r, args[0]))
        return r
    return body


def gen_dynamic_elementwise(f, rng):
    shape = [None, rng.choice(DIMS)]
    x = f.arg(tensor(shape, "f32"))
    out = f.arg(tensor(shape, "f32"))
    return generic(f, rng, [x], [tensor(shape, "f32")], [["d0", "d1"]], shape, "f32",
                   ["d0", "d1"], ["parallel", "parallel"],
                   neg_or_copy(rng), out) + (shape, "f32")


GENERATORS = [
    (gen_matmul, 4), (gen_batch_matmul, 2), (gen_generic_contraction, 1), (gen_conv2d, 3),
    (gen_conv1d, 2), (gen_reduction, 3), (gen_elementwise, 3), (gen_copy_like, 2),
    (gen_dynamic_elementwise, 1),
]


def pick(rng):
    total = sum(w for _, w in GENERATORS)
    x = rng.uniform(0, total)
    for g, w in GENERATORS:
        x -= w
        if x <= 0:
            return g
    return GENERATORS[-1][0]


def gen_func(rng, name):
    f = Func(name)
    for _ in range(rng.choice([1, 1, 2, 3])):
        res = pick(rng)(f, rng)
        value, ty, shape, elem = res
        # A consumer of the result: the bias-add / ReLU epilogue shape, fused into a
        # contraction's kernel when the contraction is configured.
        if None not in shape and rng.random() < 0.35:
            res = gen_elementwise(f, rng, res)
            value, ty = res[0], res[1]
        f.results.append((value, ty))
    return f


def generate(seed):
    rng = random.Random(seed)
    funcs = [gen_func(rng, "f%d" % i) for i in range(rng.choice([1, 1, 2]))]
    body = "".join(fn.text() for fn in funcs)
    if rng.random() < 0.15:
        inner = gen_func(rng, "nested")
        body += "  module @inner {\n%s  }\n" % inner.text().replace("\n  ", "\n    ").replace(
            "  func.func", "    func.func", 1)
    return "// gen_module.py seed %d\nmodule {\n%s}\n" % (seed, body)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: gen_module.py SEED")
    sys.stdout.write(generate(int(sys.argv[1])))
