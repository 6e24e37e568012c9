"""``%load_ext first_assert``: the answer under the failing cell.

On load, the extension reads what the session already holds (``_late``: Colab's notebook,
IPython's history, or the last error) and, when a CUDA error is among it, shows the card in the
load cell at once, the first assert at the cell where it really was. From then on fd 2 and fd 1
come into the cell where the kernel does not show them (Colab's: the kernel's own ``Assertion
... failed`` lines on fd 2, a device's ``printf`` and PyTorch's ``[CUDA_KERNEL_ASSERT]`` value
lines on fd 1), and a copy of each is kept per cell either way. After each cell that raised a
CUDA error (``torch.AcceleratorError``, a ``RuntimeError`` with the CUDA error text, the probe's
``FirstAssertError``, PyTorch's CPU error for the same bug), the engine reads every cell it holds
(code, execution count, fd 1 and fd 2, traceback) as a notebook, and the card is shown under the
traceback: HTML, and its plain-text twin. Once a device-side assert has been seen, a later
failing cell gets one line (CUDA stays broken until a restart) instead of a second diagnosis.

Colab keeps what it has: no ``showtraceback`` override, no custom exception handler. A failure in
here never hides the user's traceback: it prints one line and the extension turns itself off.
``%first_assert`` (``_magic``) turns it off and on, isolates, and says what it holds.
"""

import json
import sys
import traceback

from . import _engine, _late
from ._fd import _Fd

# What is kept of each cell: at most this many cells, and this much of a cell's fd text.
MAX_CELLS = 500
MAX_FD = 1 << 20

_state = None


def _bounded(text):
    """A cell's fd text within MAX_FD: its head (where the first assert is) and its tail."""
    if len(text) <= MAX_FD:
        return text
    head = text[: MAX_FD * 3 // 4]
    return head[: head.rfind("\n") + 1] + "\n[first-assert: cut here]\n" + text[-MAX_FD // 4 :]


def _cuda_error(e):
    """Whether an exception is a CUDA error the engine should read (or the probe's error, or a
    CPU error the engine may read as the confirmation of one)."""
    if e is None:
        return False
    name = type(e).__name__
    if name in ("AcceleratorError", "FirstAssertError"):
        return True
    text = str(e)
    if "CUDA error" in text or "device-side assert" in text or "HIP error" in text:
        return True
    # A CPU rerun's own error for the same bug (the engine decides whether it is one).
    return name in ("IndexError", "RuntimeError", "ValueError") and ("out of bounds" in text or "out of range" in text)


def say(key, lang, **values):
    return _engine.say(key, lang, **{k: str(v) for k, v in values.items()})


class _Session:
    def __init__(self, ip, lang):
        self.ip = ip
        self.lang = lang
        self.on = True
        self.cells = []  # nbformat code cells in run order: what the engine reads
        self.read = "since_load"  # where the cells came from (the card says it)
        self.late = 0  # how many of them ran before the load
        self.source = ""
        self.latched = None  # the cell [n] of the first device-side assert
        # fd 2 first: the kernel's own lines; fd 1: a device's printf.
        self.fds = (_Fd(2), _Fd(1))
        self.marks = [0, 0]
        self.forwarding()
        self.host = "colab" if "google.colab" in sys.modules else None
        # What only the kernel knows: whether CUDA_LAUNCH_BLOCKING=1 was in force when CUDA
        # started (None: not started yet, or before the load), and the device.
        self.cuda = None  # None: not seen starting; else (launch_blocking, device)
        if _cuda_started():
            self.cuda = (None, _device())
        self.compile_was = None  # torch.compile's switch before isolating

    def forwarding(self):
        """fd 2 and fd 1 into the cell where the kernel drops them; kept either way."""
        for i, fd in enumerate(self.fds):
            if type(fd.stream()).__module__.startswith("ipykernel"):
                fd.on(show=_Fd.kernel_drops(fd.fd))
            self.marks[i] = fd.text(0)[1]

    def shown(self):
        """The fds brought into the cells (the kernel does not show them)."""
        return [fd.fd for fd in self.fds if fd.thread is not None]

    def watch(self):
        """After each cell: whether CUDA started in it, and what was in force when it did."""
        if self.cuda is None and _cuda_started():
            import os

            # As PyTorch reads it (c10::utils::check_env): 1, true, yes, on, y.
            on = os.environ.get("CUDA_LAUNCH_BLOCKING", "").strip().upper() in ("1", "TRUE", "YES", "ON", "Y")
            self.cuda = (on, _device())

    def facts(self):
        """What the kernel saw, for the report's ``input.kernel``."""
        torch = sys.modules.get("torch")
        lb, device = self.cuda or (None, None)
        stats = getattr(sys.modules.get("torch._dynamo.utils"), "counters", {}).get("stats", {})
        version = str(getattr(torch, "__version__", "")) if torch is not None else ""
        return {"torch": version or None, "device": device, "launch_blocking": lb,
                "compiled": bool(stats.get("unique_graphs")), "read": self.read, "late_cells": self.late}

    def streams(self):
        """What fd 1 and fd 2 printed since the last call, as a cell's stream outputs (fd 1's first:
        a device's printf line comes before the assertion line it explains)."""
        out = []
        for i in (1, 0):
            text, self.marks[i] = self.fds[i].text(self.marks[i])
            if text:
                out.append({"output_type": "stream", "name": "stdout" if i else "stderr", "text": _bounded(text)})
        return out

    def pre(self, info=None):
        self.source = getattr(info, "raw_cell", None) or ""
        for fd in self.fds:
            fd.parent = getattr(fd.stream(), "parent_header", None)
        # What the fds printed after the last cell ended is that cell's (the helper's copy trails
        # the writes by a little).
        late = self.streams()
        if late and self.cells:
            outputs = self.cells[-1]["outputs"]
            for s in late:
                same = next((o for o in outputs if o.get("output_type") == "stream" and o.get("name") == s["name"]), None)
                if same is not None:
                    same["text"] = _bounded(same["text"] + s["text"])
                else:
                    outputs.insert(0, s)

    def settle(self):
        # What this cell wrote may still be on its way to the copy (through the pipe and the
        # helper): waits until the pipes are empty and the copies have not grown for 10 ms (at
        # most 0.3 s; 10 ms when nothing was written).
        import time

        if all(fd.saved is None for fd in self.fds):
            return
        size = None
        for _ in range(30):
            pending = sum(fd.pending() for fd in self.fds)
            now = tuple(fd.text(m)[1] for fd, m in zip(self.fds, self.marks))
            if pending == 0 and now == size:
                return
            size = now
            time.sleep(0.01)

    def post(self, result):
        error = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
        self.watch()
        self.settle()
        outputs = self.streams()
        if error is not None:
            outputs.append({"output_type": "error", "ename": type(error).__name__, "evalue": str(error)[:4000],
                            "traceback": _traceback(self.ip, error)})
        count = getattr(result, "execution_count", None)
        # A count read before the load (the load cell itself, on Colab) is this run's now.
        self.cells = [c for c in self.cells if count is None or c["execution_count"] != count]
        self.cells.append({"cell_type": "code", "execution_count": count, "source": self.source, "outputs": outputs})
        del self.cells[:-MAX_CELLS]
        if self.on and _cuda_error(error):
            self.answer(count)

    def analyze(self):
        nb = {"cells": [dict(c, index=i) for i, c in enumerate(self.cells)]}
        report = _engine.analyze(json.dumps(nb).encode(), "session.ipynb", self.lang, None, self.host,
                                 json.dumps(self.facts()))
        return report, json.loads(report)

    def answer(self, count=None):
        """The card under the failing cell, or the latch's line; whether anything was shown."""
        from IPython.display import display

        if self.latched is not None:
            line = say("latch", self.lang, cell=self.latched)
            display({"text/plain": line, "text/html": _engine.card_line(line)}, raw=True)
            return True
        report, r = self.analyze()
        if r["verdict"] not in ("device_assert", "confirmed", "other_cuda_error"):
            return False
        if r["verdict"] == "device_assert":
            n = (r.get("first_assert") or {}).get("execution_count")
            self.latched = "[%s]" % (n if n is not None else count)
        display({"text/html": _engine.render(report, "html"), "text/plain": _engine.render(report, "card")}, raw=True)
        return True


def _traceback(ip, e):
    """The traceback as the cell shows it (IPython's own formatting), else Python's; bounded."""
    try:
        tb = ip.InteractiveTB.structured_traceback(type(e), e, e.__traceback__, tb_offset=1)
        text = "\n".join(tb)
    except Exception:
        text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    return text[-200_000:].splitlines()


def _cuda_started():
    torch = sys.modules.get("torch")
    try:
        return torch is not None and bool(torch.cuda.is_initialized())
    except Exception:
        return False


def _device():
    try:
        torch = sys.modules["torch"]
        return str(torch.cuda.get_device_name(torch.cuda.current_device()))
    except Exception:
        return None


def _guarded(method):
    def run(*args):
        s = _state
        if s is None:
            return
        try:
            getattr(s, method)(*args)
        except Exception as e:  # never in the way of the user's own traceback
            try:
                print(say("disabled", s.lang, error=type(e).__name__ + ": " + str(e)[:200]), file=sys.stderr)
            finally:
                unload(s.ip)
    run.__name__ = "first_assert_" + method
    return run


_pre = _guarded("pre")
_post = _guarded("post")


def _language():
    import locale
    import os

    tag = os.environ.get("LC_ALL") or os.environ.get("LANG") or (locale.getlocale()[0] or "")
    return "zh" if tag.lower().startswith("zh") else "en"


def load(ip, lang=None):
    global _state
    if _state is not None:
        print(say("already", _state.lang))
        return
    from . import _magic

    s = _state = _Session(ip, lang or _language())
    ip.events.register("pre_run_cell", _pre)
    ip.events.register("post_run_cell", _post)
    ip.register_magic_function(_magic.magic, "line", "first_assert")
    print(_magic.on_line(s))
    try:
        catch_up(s, ip)
    except Exception as e:  # the read is a bonus: the extension works without it
        print(say("read_failed", s.lang, why=type(e).__name__ + ": " + str(e)[:200]))


def catch_up(s, ip):
    """Loaded after the error: what the session already holds, and the card when a CUDA error
    is among it (in the load cell, now)."""
    held = _late.read(ip, _late.load_count(ip))
    if held.source is None:
        print(say("read_failed", s.lang, why=say("why_" + held.problem, s.lang, detail=held.detail)))
        return
    s.cells, s.read, s.late = held.cells + s.cells, held.source, len(held.cells)
    if not s.answer():
        print(say("read_clean", s.lang, n=s.late, source=say("source_" + held.source, s.lang)))


def unload(ip):
    global _state
    s, _state = _state, None
    if s is None:
        return
    for event, f in (("pre_run_cell", _pre), ("post_run_cell", _post)):
        try:
            ip.events.unregister(event, f)
        except ValueError:
            pass
    for fd in s.fds:
        fd.off()
