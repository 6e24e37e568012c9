"""``%load_ext first_assert``: the answer under the failing cell, and ``%first_assert isolate``.

On load, fd 2 comes into the cell where the kernel does not show it (Colab's: the kernel's own
``Assertion ... failed`` lines), and a copy of it is kept per cell either way. After each cell,
when it raised a CUDA error (``torch.AcceleratorError``, a ``RuntimeError`` with the CUDA error
text, the probe's ``FirstAssertError``, PyTorch's CPU error for the same bug), the engine reads
every cell run since the load (its code, its execution count, what it printed to fd 2, its
traceback) as a notebook, and the card is shown under the traceback: HTML, and the command
line's text report as ``text/plain``. Once a device-side assert has been seen, a later failing
cell gets one line (CUDA stays broken until a restart) instead of a second diagnosis.

``%first_assert isolate`` is the checklist's next step inside the kernel: it sets
``CUDA_LAUNCH_BLOCKING=1`` when CUDA has not started (and says when it is too late), and runs the
probe cell's code (the same code the report hands out), whose ``FirstAssertError`` this reads
back as the confirmed cause, in the same cell; ``%first_assert off`` ends it.

Colab keeps what it has: no ``showtraceback`` override, no custom exception handler. A failure in
here never hides the user's traceback: it prints one line and the extension turns itself off.
"""

import json
import sys
import traceback

from . import _engine
from ._fd2 import _Fd2

# What is kept of each cell: at most this many cells, and this much of a cell's fd-2 text.
MAX_CELLS = 500
MAX_FD2 = 1 << 20


def _bounded(text):
    """A cell's fd-2 text within MAX_FD2: its head (where the first assert is) and its tail."""
    if len(text) <= MAX_FD2:
        return text
    head = text[: MAX_FD2 * 3 // 4]
    return head[: head.rfind("\n") + 1] + "\n[first-assert: fd 2 cut here]\n" + text[-MAX_FD2 // 4 :]

_state = None


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


class _Session:
    def __init__(self, ip, lang):
        self.ip = ip
        self.lang = lang
        self.cells = []
        self.source = ""
        self.mark = 0
        self.latched = None  # the cell [n] of the first device-side assert
        self.fd2 = _Fd2()
        if type(sys.stderr).__module__.startswith("ipykernel"):
            # Shown in the cell only where the kernel drops fd 2; kept either way.
            self.fd2.on(show=_Fd2.kernel_drops_fd2())
        self.host = "colab" if "google.colab" in sys.modules else None
        # What only the kernel knows: whether CUDA_LAUNCH_BLOCKING=1 was in force when CUDA
        # started (None: not started yet, or before the load), and the device.
        self.cuda = None  # None: not seen starting; else (launch_blocking, device)
        if _cuda_started():
            self.cuda = (None, _device())
        self.compile_was = None  # torch.compile's switch before isolating

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
                "compiled": bool(stats.get("unique_graphs"))}

    def pre(self, info=None):
        self.source = getattr(info, "raw_cell", None) or ""
        self.fd2.parent = getattr(sys.stderr, "parent_header", None)
        # What fd 2 printed after the last cell ended is that cell's (the helper's copy trails
        # the writes by a little).
        self.late()

    def late(self):
        text, self.mark = self.fd2.text(self.mark)
        if text and self.cells:
            outputs = self.cells[-1]["outputs"]
            if outputs and outputs[0].get("name") == "stderr":
                outputs[0]["text"] = _bounded(outputs[0]["text"] + text)
            else:
                outputs.insert(0, {"output_type": "stream", "name": "stderr", "text": _bounded(text)})

    def settle(self):
        # What this cell wrote to fd 2 may still be on its way to the copy (through the pipe and
        # the helper): waits until the pipe is empty and the copy has not grown for 10 ms (at
        # most 0.3 s; 10 ms when nothing was written).
        import fcntl
        import struct
        import termios
        import time

        if self.fd2.saved is None:
            return
        size = None
        for _ in range(30):
            try:
                pending = struct.unpack("i", fcntl.ioctl(2, termios.FIONREAD, b"\0\0\0\0"))[0]
            except OSError:
                pending = 0
            now = self.fd2.text(self.mark)[1]
            if pending == 0 and now == size:
                return
            size = now
            time.sleep(0.01)

    def post(self, result):
        error = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
        self.watch()
        self.settle()
        text, self.mark = self.fd2.text(self.mark)
        outputs = []
        if text:
            outputs.append({"output_type": "stream", "name": "stderr", "text": _bounded(text)})
        if error is not None:
            tb = traceback.format_exception(type(error), error, error.__traceback__)
            outputs.append({"output_type": "error", "ename": type(error).__name__, "evalue": str(error)[:4000],
                            "traceback": "".join(tb)[-200_000:].splitlines()})
        count = getattr(result, "execution_count", None)
        self.cells.append({"cell_type": "code", "execution_count": count, "source": self.source, "outputs": outputs})
        del self.cells[:-MAX_CELLS]
        if _cuda_error(error):
            self.answer(count)

    def answer(self, count):
        from IPython.display import display

        if self.latched is not None:
            line = _engine.say("latch", self.lang, cell=self.latched)
            display({"text/plain": line, "text/html": "<div style=\"font:13px/1.5 system-ui,sans-serif;color:#1d1f23;"
                     "background:#fff8f6;border-left:4px solid #b3261e;padding:6px 12px;margin:6px 0\">"
                     + _escape(line) + "</div>"}, raw=True)
            return
        nb = {"cells": [dict(c, index=i) for i, c in enumerate(self.cells)]}
        report = _engine.analyze(json.dumps(nb).encode(), "session.ipynb", self.lang, None, self.host,
                                 json.dumps(self.facts()))
        r = json.loads(report)
        if r["verdict"] not in ("device_assert", "confirmed"):
            return
        if r["verdict"] == "device_assert":
            fa = r.get("first_assert") or {}
            n = fa.get("execution_count")
            self.latched = "[%s]" % (n if n is not None else count)
        display({"text/html": _engine.render(report, "html"), "text/plain": _engine.render(report, "text")}, raw=True)


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


def _compiling(s, on):
    """torch.compile off while isolating (the probe sees no op inside a compiled graph), and its
    switch as it was after."""
    import os

    dynamo = sys.modules.get("torch._dynamo")
    if not on:
        if s.compile_was is not None:
            if dynamo is not None:
                dynamo.config.disable = s.compile_was
            os.environ.pop("TORCH_COMPILE_DISABLE", None)
        s.compile_was = None
        return
    if s.compile_was is None:
        s.compile_was = bool(dynamo.config.disable) if dynamo is not None else False
    if dynamo is not None:
        dynamo.config.disable = True
    os.environ["TORCH_COMPILE_DISABLE"] = "1"  # read when torch._dynamo is first imported


def _magic(line):
    """``%first_assert isolate | off | status | lang en|zh``."""
    s = _state
    if s is None:
        return
    words = line.split()
    what = words[0] if words else ""
    if what == "isolate":
        import os

        torch = sys.modules.get("torch")
        late = torch is not None and torch.cuda.is_initialized()
        if not late:
            os.environ["CUDA_LAUNCH_BLOCKING"] = "1"
        _compiling(s, True)
        # The probe cell's own code, run as if pasted (one copy of the checks).
        exec(compile(_engine.probe(s.lang), "<first-assert probe>", "exec"), s.ip.user_ns)
        print(_engine.say("isolate_late" if late else "isolate", s.lang))
    elif what == "off":
        probe = s.ip.user_ns.get("first_assert_probe")
        if probe is not None:
            probe.off()
        _compiling(s, False)
        print(_engine.say("off", s.lang))
    elif what == "lang" and len(words) == 2 and words[1] in ("en", "zh"):
        s.lang = words[1]
    elif what == "status":
        on = s.fd2.saved is not None
        probe = s.ip.user_ns.get("first_assert_probe")
        isolating = probe is not None and getattr(probe, "mode", None) is not None
        yes, no = ("是", "否") if s.lang == "zh" else ("yes", "no")
        fd2 = ("转发到单元格" if s.lang == "zh" else "forwarded to the cell") if on and s.fd2.thread else (
            ("已记录" if s.lang == "zh" else "kept") if on else ("未接管" if s.lang == "zh" else "left alone"))
        print(_engine.say("status", s.lang, cells=str(len(s.cells)), fd2=fd2, first=s.latched or no,
                          isolate=yes if isolating else no, language=s.lang))
    else:
        print(_engine.say("usage", s.lang))


def _escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _guarded(method):
    def run(*args):
        global _state
        s = _state
        if s is None:
            return
        try:
            getattr(s, method)(*args)
        except Exception as e:  # never in the way of the user's own traceback
            try:
                print(_engine.say("disabled", s.lang, error=type(e).__name__ + ": " + str(e)[:200]), file=sys.stderr)
            finally:
                unload(s.ip)
    run.__name__ = "first_assert_" + method
    return run


_pre = _guarded("pre")
_post = _guarded("post")


def load(ip, lang=None):
    global _state
    if _state is not None:
        return
    if lang is None:
        import locale
        import os

        tag = os.environ.get("LC_ALL") or os.environ.get("LANG") or (locale.getlocale()[0] or "")
        lang = "zh" if tag.lower().startswith("zh") else "en"
    _state = _Session(ip, lang)
    ip.events.register("pre_run_cell", _pre)
    ip.events.register("post_run_cell", _post)
    ip.register_magic_function(_magic, "line", "first_assert")


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
    s.fd2.off()
