#@@header@@
#
#@@remove@@
#
# first-assert {version}
import os
import sys

if "torch" in sys.modules:
    import torch as _t

    print("@@cuda_initialized@@" if _t.cuda.is_initialized() else "@@already_imported@@", file=sys.stderr)
os.environ["CUDA_LAUNCH_BLOCKING"] = "1"

import linecache as _linecache

import torch
import torch.nn.functional as _F
from torch.overrides import TorchFunctionMode as _Mode

#@@suspects_comment@@
_SUSPECTS = {probe_suspects}
_GROUPS = {
    "loss": "F.cross_entropy, F.nll_loss",
    "embedding": "F.embedding",
    "embedding_bag": "F.embedding_bag",
    "index": "tensor[index], index_select, gather, scatter, index_add, index_copy, index_fill, take",
    "one_hot": "F.one_hot",
    "bce": "F.binary_cross_entropy",
    "multinomial": "torch.multinomial",
    "bernoulli": "torch.bernoulli",
    "repeat_interleave": "torch.repeat_interleave",
}
_TORCH = os.path.dirname(torch.__file__) + os.sep


class FirstAssertError(RuntimeError):
    """@@error_doc@@"""


def _arg(args, kwargs, i, name, default=None):
    return args[i] if len(args) > i else kwargs.get(name, default)


def _is_index(x):
    return isinstance(x, torch.Tensor) and not (x.is_floating_point() or x.is_complex() or x.dtype == torch.bool)


def _size(x, dim):
    # The size of `x` along `dim`, a negative `dim` counted from the end (a 0-d tensor has one place).
    if x.dim() == 0:
        return 1
    return x.shape[dim if dim >= 0 else dim + x.dim()]


def _user_line():
    # The innermost frame outside this probe and outside torch: the line of yours that ran the op.
    f = sys._getframe(1)
    while f is not None and (f.f_code in _OWN or f.f_code.co_filename.startswith(_TORCH)):
        f = f.f_back
    if f is None:
        return "?"
    name, line = f.f_code.co_filename, f.f_lineno
    return "%s:%d  %s" % (name, line, _linecache.getline(name, line).strip())


def _fail(group, op, what, x, bad, allowed, hint):
    # Raises the probe's error: `bad` marks the offending elements of `x` (same shape).
    x = x.detach()
    pos = tuple(bad.nonzero()[0].tolist())
    show = lambda v: "%.6g" % v if isinstance(v, float) else str(v)
    lines = [
        "%s: %s" % (op, what),
        "  @@label_values@@: min %s, max %s; %s; @@label_first_bad@@ %s @@label_at@@ %s"
        % (show(x.min().item()), show(x.max().item()), "@@label_bad_count@@".format(k=int(bad.sum()), n=x.numel()),
           show(x[pos].item()), list(pos)),
        "  @@label_allowed@@: %s" % allowed,
        "  @@label_cause@@: %s" % hint,
        "  @@label_line@@: %s" % _user_line(),
    ]
    if _SUSPECTS:
        lines.append("  " + ("@@suspect_yes@@" if group in _SUSPECTS else "@@suspect_no@@"))
    raise FirstAssertError("\n".join(lines))


def _range(group, op, name, x, lo, hi, hint, also=None):
    # Checks lo <= x < hi (and x == also is fine too, for ignore_index).
    if not _is_index(x) or x.numel() == 0:
        return
    x = x.detach()
    bad = (x < lo) | (x >= hi)
    if also is not None:
        bad &= x != also
    if bool(bad.any()):
        allowed = "%d <= %s < %d" % (lo, name, hi)
        if also is not None:
            allowed += " @@label_or@@ %s == %d (ignore_index)" % (name, also)
        _fail(group, op, "@@what_range@@".format(name=name), x, bad, allowed, hint)


def _targets(func, args, kwargs):
    x, target = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "target")
    if not isinstance(x, torch.Tensor) or x.dim() == 0:
        return
    ignore = _arg(args, kwargs, 4, "ignore_index", -100)
    classes = x.shape[0] if x.dim() == 1 else x.shape[1]
    op = "F.cross_entropy" if func is _F.cross_entropy else "F.nll_loss"
    _range("loss", op, "target", target, 0, classes, "@@hint_target@@", ignore)


def _embedding(func, args, kwargs):
    ids, weight = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "weight")
    if not isinstance(weight, torch.Tensor):
        return
    bag = func is _F.embedding_bag
    op = "F.embedding_bag" if bag else "F.embedding"
    _range("embedding_bag" if bag else "embedding", op, "id", ids, 0, weight.shape[0], "@@hint_embedding@@")
    offsets = _arg(args, kwargs, 2, "offsets")
    if bag and _is_index(offsets) and _is_index(ids) and ids.dim() == 1 and offsets.numel() > 0:
        o = offsets.detach()
        bad = (o < 0) | (o > ids.numel())
        bad[1:] |= o[1:] < o[:-1]
        bad[0] |= o[0] != 0
        if bool(bad.any()):
            allowed = "offsets[0] == 0, offsets[i] <= offsets[i+1] <= %d = input.numel()" % ids.numel()
            _fail("embedding_bag", op, "@@what_offsets@@", o, bad, allowed, "@@hint_offsets@@")


def _dim_index(op, negative, dim_at=1, index_at=2):
    # Ops of the form op(input, dim, index, ...): index against input.shape[dim].
    def check(func, args, kwargs):
        x, dim = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, dim_at, "dim")
        index = _arg(args, kwargs, index_at, "index")
        if not isinstance(x, torch.Tensor) or not isinstance(dim, int) or not _is_index(index):
            return
        n = _size(x, dim)
        _range("index", op, "index", index, -n if negative else 0, n, "@@hint_index@@")

    return check


def _take(func, args, kwargs):
    x, index = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "index")
    if isinstance(x, torch.Tensor):
        _range("index", "torch.take", "index", index, -x.numel(), x.numel(), "@@hint_index@@")


def _subscript(func, args, kwargs):
    # t[idx] and t[idx] = v: every integer tensor (or list) in idx against the dimension it indexes.
    x, idx = args[0], args[1]
    parts = idx if isinstance(idx, tuple) else (idx,)
    parts = [torch.as_tensor(p) if isinstance(p, list) and p and not isinstance(p[0], slice) else p for p in parts]
    if not any(_is_index(p) for p in parts):
        return
    used = sum(p.dim() if isinstance(p, torch.Tensor) and p.dtype == torch.bool else 1 for p in parts
               if p is not None and p is not Ellipsis and not isinstance(p, bool))
    d = 0
    for p in parts:
        if p is Ellipsis:
            d += x.dim() - used
        elif p is None or isinstance(p, bool):
            continue
        elif isinstance(p, torch.Tensor) and p.dtype == torch.bool:
            d += p.dim()
        else:
            if _is_index(p) and d < x.dim():
                n = x.shape[d]
                _range("index", "tensor[index]", "index", p, -n, n, "@@hint_index@@")
            d += 1


def _one_hot(func, args, kwargs):
    x, classes = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "num_classes", -1)
    if _is_index(x) and x.numel() > 0:
        hi = classes if classes >= 0 else int(x.max()) + 1
        _range("one_hot", "F.one_hot", "value", x, 0, hi, "@@hint_one_hot@@")


def _bce(func, args, kwargs):
    for name, i in (("input", 0), ("target", 1)):
        x = _arg(args, kwargs, i, name)
        if isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel() > 0:
            x = x.detach()
            bad = ~((x >= 0) & (x <= 1))
            if bool(bad.any()):
                _fail("bce", "F.binary_cross_entropy", "@@what_bce@@".format(name=name), x, bad,
                      "0 <= %s <= 1" % name, "@@hint_bce@@")


def _multinomial(func, args, kwargs):
    p = _arg(args, kwargs, 0, "input")
    if not isinstance(p, torch.Tensor) or not p.is_floating_point() or p.numel() == 0:
        return
    p = p.detach()
    bad = ~torch.isfinite(p) | (p < 0)
    if bool(bad.any()):
        _fail("multinomial", "torch.multinomial", "@@what_probs@@", p, bad, "0 <= p < inf", "@@hint_probs@@")
    empty = p.sum(-1, keepdim=True) <= 0
    if bool(empty.any()):
        _fail("multinomial", "torch.multinomial", "@@what_row_sum@@", p, empty.expand_as(p), "p.sum(-1) > 0",
              "@@hint_probs@@")


def _bernoulli(func, args, kwargs):
    p = _arg(args, kwargs, 1, "p")
    if p is None and func is not torch.Tensor.bernoulli_:
        p = _arg(args, kwargs, 0, "input")
    if isinstance(p, (int, float)) and not isinstance(p, bool):
        p = torch.tensor(float(p))
    if isinstance(p, torch.Tensor) and p.is_floating_point() and p.numel() > 0:
        p = p.detach()
        bad = ~((p >= 0) & (p <= 1))
        if bool(bad.any()):
            _fail("bernoulli", "torch.bernoulli", "@@what_p@@", p, bad, "0 <= p <= 1", "@@hint_p@@")


def _repeat_interleave(func, args, kwargs):
    repeats = _arg(args, kwargs, 1, "repeats")
    if repeats is None:
        repeats = _arg(args, kwargs, 0, "input")
    if not _is_index(repeats) or repeats.numel() == 0:
        return
    r = repeats.detach()
    if bool((r < 0).any()):
        _fail("repeat_interleave", "torch.repeat_interleave", "@@what_repeats@@", r, r < 0, "repeats >= 0",
              "@@hint_repeats@@")
    size = kwargs.get("output_size")
    if isinstance(size, int) and r.dim() == 1 and int(r.sum()) != size:
        _fail("repeat_interleave", "torch.repeat_interleave", "@@what_output_size@@", r, r >= 0,
              "output_size == repeats.sum() == %d" % int(r.sum()), "@@hint_repeats@@")


def _checks():
    T = torch.Tensor
    table = [
        ((_F.cross_entropy, _F.nll_loss), _targets),
        ((_F.embedding, _F.embedding_bag), _embedding),
        ((torch.index_select, T.index_select), _dim_index("index_select", False)),
        ((torch.gather, T.gather), _dim_index("gather", False)),
        ((torch.take, T.take), _take),
        ((T.__getitem__, T.__setitem__), _subscript),
        ((torch.index_fill, T.index_fill, T.index_fill_), _dim_index("index_fill", True)),
        ((_F.one_hot,), _one_hot),
        ((_F.binary_cross_entropy,), _bce),
        ((torch.multinomial, T.multinomial), _multinomial),
        ((torch.bernoulli, T.bernoulli, T.bernoulli_), _bernoulli),
        ((torch.repeat_interleave, T.repeat_interleave), _repeat_interleave),
    ]
    for name in ("scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy"):
        check = _dim_index(name, False)
        funcs = [getattr(m, n, None) for m in (torch, T) for n in (name, name + "_")]
        table.append((tuple(f for f in funcs if f is not None), check))
    return {f: check for funcs, check in table for f in funcs}


_CHECKS = _checks()


class _Probe(_Mode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        try:
            check = _CHECKS.get(func)
        except TypeError:
            check = None
        if check is not None:
            try:
                check(func, args, kwargs)
            except FirstAssertError as e:
                raise FirstAssertError(str(e)) from None
            except Exception:
                pass  # a call the probe does not understand: let PyTorch run it unchecked
        return func(*args, **kwargs)


# The probe's own frames, which _user_line skips.
_OWN = {f.__code__ for f in (_Probe.__torch_function__, _dim_index(0, 0), _range, _fail, _user_line, _targets,
                             _embedding, _take, _subscript, _one_hot, _bce, _multinomial, _bernoulli,
                             _repeat_interleave)}


# The forwarding of fd 2 and fd 1 (python/first_assert/_fd.py, the Python package's own, put in
# here by build.rs: one copy of it).
#<<fd>>


class _Switch:
    def __init__(self):
        self.mode = None
        self.fds = (_Fd(2), _Fd(1))

    def on(self):
        if self.mode is None:
            self.mode = _Probe()
            self.mode.__enter__()
        # (Where the notebook extension is loaded, it forwards them already.)
        ext = getattr(sys.modules.get("first_assert._kernel"), "_state", None)
        for fd in self.fds:
            if _Fd.kernel_drops(fd.fd) and ext is None:
                fd.on()
        print("@@on@@".format(n=len(_CHECKS), suspects="; ".join(_GROUPS[g] for g in _SUSPECTS) or "-"), file=sys.stderr)

    def off(self):
        """@@off_doc@@"""
        if self.mode is not None:
            self.mode.__exit__(None, None, None)
            self.mode = None
        for fd in self.fds:
            fd.off()
        print("@@off@@", file=sys.stderr)


try:
    first_assert_probe.off()  # noqa: F821 -- this cell ran before: one probe at a time
except NameError:
    pass
first_assert_probe = _Switch()
first_assert_probe.on()
