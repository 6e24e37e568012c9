"""What the session already holds when ``%load_ext first_assert`` runs after the error: the
cells that ran before the load, as nbformat code cells, read once from the best source the kernel
has.

- ``colab``: the notebook as Colab's front end holds it (``get_ipynb``): every cell's code,
  execution count and outputs as the user sees them (not the kernel's own fd-2 lines, which
  Colab never shows).
- ``history``: IPython 9.1 and later keep each cell's streams, displays and exception by
  execution count (``history_manager.outputs`` and ``exceptions``).
- ``last_error``: elsewhere (IPython 7.34 outside Colab) only the cells' code and the last error
  (``sys.last_value``; IPython 7.34 never sets ``sys.last_exc``): the first assert may be earlier.

Everything is bounded: the front end's answer waits ``COLAB_TIMEOUT`` seconds at most, and each
output's text and the whole read are cut to a size the engine reads in well under a second.
"""

import sys

# Seconds to wait for Colab's front end to hand over the notebook.
COLAB_TIMEOUT = 10
# Characters kept of one output's text (its head, where a first assert is, and its tail), and of
# all the cells read together.
MAX_TEXT = 1 << 20
MAX_TOTAL = 32 << 20


class Held:
    """What was read: ``source`` (``colab``, ``history``, ``last_error`` or None when nothing
    could be read), the cells, and why the read failed (a message key and its detail)."""

    def __init__(self, source=None, cells=(), problem=None, detail=""):
        self.source = source
        self.cells = list(cells)
        self.problem = problem
        self.detail = detail


class _Budget:
    """Text kept so far: each text is cut to MAX_TEXT, and once MAX_TOTAL is spent, to nothing."""

    def __init__(self):
        self.left = MAX_TOTAL
        self.cut = False

    def text(self, value):
        if isinstance(value, list):
            value = "".join(v for v in value if isinstance(v, str))
        if not isinstance(value, str):
            return ""
        keep = min(MAX_TEXT, self.left)
        if len(value) > keep:
            self.cut = True
            head = value[: keep * 3 // 4]
            value = head + "\n[first-assert: cut here]\n" + (value[-(keep // 4):] if keep >= 4 else "")
        self.left = max(0, self.left - len(value))
        return value


def load_count(ip):
    """The load cell's own execution count: the last input in IPython's history (stored before the
    cell runs; IPython 9 has already counted the cell in ``execution_count``, 7.34 not yet)."""
    raw = getattr(getattr(ip, "history_manager", None), "input_hist_raw", None)
    if raw:
        return max(len(raw) - 1, 1)
    return max(getattr(ip, "execution_count", 1), 1)


def read(ip, count):
    """The cells that ran before the load cell (execution count ``count``)."""
    if "google.colab" in sys.modules:
        return colab(count)
    hm = getattr(ip, "history_manager", None)
    if isinstance(getattr(hm, "outputs", None), dict) and isinstance(getattr(hm, "exceptions", None), dict):
        return history(hm, count)
    return last_error(ip, count)


def colab(count, timeout=COLAB_TIMEOUT):
    """The notebook as Colab's front end holds it. Cells whose execution count is not below the
    load cell's ran in an earlier runtime (the page keeps their outputs after a restart)."""
    try:
        from google.colab import _message

        reply = _message.blocking_request("get_ipynb", request="", timeout_sec=timeout)
    except Exception as e:  # the front end refused, or the call is gone
        return Held(problem="failed", detail=type(e).__name__ + ": " + str(e)[:200])
    if reply is None:
        return Held(problem="timeout", detail=str(timeout))
    nb = reply.get("ipynb") if isinstance(reply, dict) else None
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        return Held(problem="shape", detail=type(reply).__name__)
    budget, out = _Budget(), []
    for c in cells:
        if not isinstance(c, dict) or c.get("cell_type") != "code":
            continue
        n = c.get("execution_count")
        if isinstance(n, int) and n >= count:
            continue
        outputs = [o for o in map(lambda o: _output(o, budget), c.get("outputs") or []) if o]
        out.append(_cell(n if isinstance(n, int) else None, budget.text(c.get("source", "")), outputs))
    return Held("colab", out)


def _output(o, budget):
    """One output as the engine reads it: streams, errors, and the plain text of the rest (an
    image or a widget carries no error text)."""
    if not isinstance(o, dict):
        return None
    kind = o.get("output_type")
    if kind == "stream":
        return {"output_type": "stream", "name": str(o.get("name", "stdout")), "text": budget.text(o.get("text", ""))}
    if kind == "error":
        tb = o.get("traceback")
        tb = budget.text("\n".join(t for t in tb if isinstance(t, str)) if isinstance(tb, list) else "")
        return {"output_type": "error", "ename": budget.text(o.get("ename", "Error")),
                "evalue": budget.text(o.get("evalue", "")), "traceback": tb.split("\n")}
    data = o.get("data")
    if kind in ("execute_result", "display_data") and isinstance(data, dict) and "text/plain" in data:
        return {"output_type": kind, "data": {"text/plain": budget.text(data["text/plain"])}, "metadata": {}}
    return None


def _cell(n, source, outputs):
    return {"cell_type": "code", "execution_count": n, "source": source, "outputs": outputs}


def history(hm, count):
    """IPython 9.1 and later: each cell's code, streams, displays and exception, by execution
    count."""
    budget, raw, cells = _Budget(), list(hm.input_hist_raw), []
    for n in range(1, count):
        outputs = []
        for o in list(hm.outputs.get(n, ())):
            kind, bundle = getattr(o, "output_type", ""), getattr(o, "bundle", {}) or {}
            if kind in ("out_stream", "err_stream"):
                name = "stdout" if kind == "out_stream" else "stderr"
                outputs.append({"output_type": "stream", "name": name, "text": budget.text(bundle.get("stream", ""))})
            elif "text/plain" in bundle:
                outputs.append(_output({"output_type": kind, "data": bundle}, budget))
        e = hm.exceptions.get(n)
        if isinstance(e, dict):
            outputs.append(_output(dict(e, output_type="error"), budget))
        cells.append(_cell(n, budget.text(raw[n] if n < len(raw) else ""), outputs))
    return Held("history", cells)


def last_error(ip, count):
    """IPython before 9.1: the cells' code, and the last error, in the cell it came from."""
    budget = _Budget()
    hm = getattr(ip, "history_manager", None)
    raw = list(getattr(hm, "input_hist_raw", None) or ip.user_ns.get("_ih") or [""])
    parsed = list(getattr(hm, "input_hist_parsed", None) or raw)
    cells = [_cell(n, budget.text(raw[n]), []) for n in range(1, min(count, len(raw)))]
    e = getattr(sys, "last_exc", None) or getattr(sys, "last_value", None)
    if e is None:
        return Held("last_error", cells)
    tb = getattr(e, "__traceback__", None) or getattr(sys, "last_traceback", None)
    n = _cell_of(tb, parsed, count)
    error = _output({"output_type": "error", "ename": type(e).__name__, "evalue": str(e),
                     "traceback": _traceback(ip, e, tb)}, budget)
    at = next((c for c in cells if c["execution_count"] == n), None)
    if at is None:
        at = _cell(n, "", [])
        cells.append(at)
    at["outputs"].append(error)
    return Held("last_error", cells)


def _cell_of(tb, parsed, count):
    """The execution count of the cell a traceback ran from. The kernel runs each cell from a file
    of its own (ipykernel: named by a hash of the code; IPython: by its count) whose code it
    keeps in ``linecache``: the traceback's first such frame is the cell whose code it is (the
    latest run of that code)."""
    import linecache

    while tb is not None:
        entry = linecache.cache.get(tb.tb_frame.f_code.co_filename)
        if entry is not None and len(entry) > 2:
            code = "".join(entry[2]).rstrip("\n")
            for n in range(min(count, len(parsed)) - 1, 0, -1):
                if parsed[n].rstrip("\n") == code:
                    return n
        tb = tb.tb_next
    return None


def _traceback(ip, e, tb):
    """The traceback as the cell showed it (IPython's own formatting, colours and all), else
    Python's."""
    try:
        return ip.InteractiveTB.structured_traceback(type(e), e, tb, tb_offset=1)
    except Exception:
        import traceback

        return traceback.format_exception(type(e), e, tb)
