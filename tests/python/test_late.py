"""``%load_ext first_assert`` loaded after the error, as people load a helper: it reads what the
session already holds and answers in the load cell, naming the real first assert. In real
kernels: Colab's pins (IPython 7.34, ipykernel 6.17.1, fd capture off) with a stand-in for Colab's
front end (``google.colab._message.blocking_request('get_ipynb')``) that hands back the notebook
the test recorded from the kernel's own messages, as the front end would; IPython 7.34 alone
(only the last error); today's Jupyter (IPython 9: its history of outputs and exceptions). Also
the extension's switches and words, and fd 1 brought into the cell beside fd 2.
Run by scripts/test-wheel.sh with the wheel installed."""

import html as markup
import json
import sys
import tempfile
import time
import unittest

import IPython

from kernels import ECHO, HAS_TORCH, RAISE, RECORD, WRITE, KernelCase

IPYTHON = tuple(int(p) for p in IPython.__version__.split(".")[:2])
HISTORY = IPYTHON >= (9, 1)  # history_manager.outputs and .exceptions

# Colab's front end, stood in for: `google.colab._message.blocking_request('get_ipynb')` hands back
# the notebook NB (an expression evaluated in the kernel), or what ANSWER says.
STAND_IN = """
import json, sys, types
_google, _colab, _message = (types.ModuleType(n) for n in ("google", "google.colab", "google.colab._message"))
_calls = []
def _blocking_request(request_type, request="", timeout_sec=5, parent=None):
    _calls.append((request_type, request, timeout_sec))
    if request_type != "get_ipynb":
        raise ValueError(request_type)
    answer = {answer}
    return answer if answer != "notebook" else {{"ipynb": {nb}}}
_message.blocking_request = _blocking_request
_colab._message, _google.colab = _message, _colab
sys.modules.update({{"google": _google, "google.colab": _colab, "google.colab._message": _message}})
"""


def stand_in(nb="None", answer='"notebook"'):
    return STAND_IN.format(nb=nb, answer=answer)


def card(out):
    """The card a cell got: its HTML (its text unescaped, its tags as they are) and its text."""
    cards = [d for d in out["displays"] if "data-first-assert-card" in d.get("text/html", "")]
    assert len(cards) == 1, out
    return markup.unescape(cards[0]["text/html"]), cards[0]["text/plain"]


class Colab(KernelCase):
    """The notebook as Colab's front end holds it."""

    def session(self, kc):
        """An assert in one cell, its echo in the next: the cells and the notebook Colab shows."""
        setup = self.cell(kc, "print('data ready')")
        failing = self.cell(kc, WRITE + RAISE)
        echo = self.cell(kc, ECHO)
        self.assertNotIn(RECORD, failing["stderr"], "Colab's kernel drops fd 2: the record is in the runtime log only")
        cells = [{"cell_type": "markdown", "metadata": {}, "source": "# Training"}]
        cells += [self.as_notebook_cell(c, o) for c, o in (("print('data ready')", setup), (WRITE + RAISE, failing), (ECHO, echo))]
        # The load cell, running (the front end has its count), and a cell whose outputs are from a
        # runtime before a restart (its count past the load cell's).
        cells.append({"cell_type": "code", "execution_count": echo["count"] + 1, "metadata": {}, "source": "%load_ext first_assert", "outputs": []})
        cells.append(self.as_notebook_cell("model.to('cuda')", dict(echo, count=echo["count"] + 40)))
        nb = {"nbformat": 4, "nbformat_minor": 0, "metadata": {"colab": {"provenance": []}}, "cells": cells}
        return failing, echo, nb

    def test_loaded_after_the_error_it_reads_the_notebook_and_names_the_real_first(self):
        kc = self.kernel()
        failing, echo, nb = self.session(kc)
        self.cell(kc, stand_in(nb="json.loads(%r)" % json.dumps(nb)), silent=True)
        load = self.cell(kc, "%load_ext first_assert")
        self.assertEqual(load["error"], None)
        self.assertIn("first-assert is on", load["stdout"])
        html, text = card(load)
        self.assertIn('data-first-assert-card="device_assert"', html)
        started = html.split("Where it started")[1].split("The line the traceback blames")[0]
        self.assertIn("cell [%d], output line" % failing["count"], started, "the real first, not the echo")
        self.assertIn("cell [%d], code line" % failing["count"], html, "the blamed line by its cell")
        self.assertNotIn("ipykernel_", html, "no kernel file names")
        self.assertIn("the notebook as Colab shows it (3 cells that ran before the extension was loaded)", html)
        self.assertIn("the kernel's own lines were not in it", html)
        self.assertIn("    %load_ext first_assert\n    %first_assert isolate", text, "the text twin: the kernel's own step")
        self.assertNotIn("--probe", text)
        status = self.cell(kc, "%first_assert status")["stdout"]
        self.assertIn("First device-side assert: cell [%d]" % failing["count"], status)
        self.assertIn("3 cells that ran before it was loaded (the notebook as Colab shows it)", status)
        later = self.cell(kc, ECHO)
        self.assertEqual(len(later["displays"]), 1)
        self.assertIn("since the assert in cell [%d]" % failing["count"], later["displays"][0]["text/plain"])
        asked = self.cell(kc, "print(_calls)")["stdout"]
        self.assertIn("('get_ipynb', '', 10)", asked, "one bounded request")
        print(f"\n  late card (Colab): {text.splitlines()[0]}\n  {status.splitlines()[2]}", file=sys.stderr)

    def test_the_card_and_the_words_in_chinese(self):
        kc = self.kernel()
        failing, _, nb = self.session(kc)
        self.cell(kc, stand_in(nb="json.loads(%r)" % json.dumps(nb)), silent=True)
        load = self.cell(kc, "import first_assert._kernel as k; k.load(get_ipython(), lang='zh')")
        html, _ = card(load)
        self.assertIn("单元格 [%d] 输出第" % failing["count"], html)
        self.assertIn("Colab 显示的笔记本", html)
        self.assertIn("first-assert 已开启", load["stdout"])
        status = self.cell(kc, "%first_assert status")["stdout"]
        self.assertIn("第一个设备端断言：单元格 [%d]" % failing["count"], status)
        self.assertIn("连带报错", self.cell(kc, ECHO)["displays"][0]["text/plain"], "one word for an echo")

    def test_a_front_end_that_does_not_answer_gets_a_clear_line(self):
        for answer, said in (("None", "did not hand over the notebook within 10 s"),
                             ("{'ipynb': 'nothing'}", "something that is not a notebook"),
                             ("1/0", "ZeroDivisionError")):
            kc = self.kernel()
            self.cell(kc, RAISE)
            self.cell(kc, stand_in(answer=answer), silent=True)
            load = self.cell(kc, "%load_ext first_assert")
            self.assertEqual(load["error"], None, answer)
            self.assertIn("could not read the cells that ran before it (", load["stdout"])
            self.assertIn(said, load["stdout"])
            self.assertIn("the first assert may be earlier", load["stdout"])
            # It still answers from the next failing cell on.
            self.assertEqual(len(self.cell(kc, RAISE)["displays"]), 1, answer)

    def test_a_50_mb_notebook_is_read_within_its_bounds(self):
        kc = self.kernel()
        failing, echo, nb = self.session(kc)
        # Forty 1.25 MB images and a 20 MB stream beside the cells (built in the kernel).
        big = ("dict(NB, cells=NB['cells'] + [{'cell_type': 'code', 'execution_count': 1, 'source': 'plot()', 'outputs': "
               "[{'output_type': 'display_data', 'data': {'image/png': 'iVBOR' * 250_000, 'text/plain': '<Figure>'}, 'metadata': {}}] * 40 + "
               "[{'output_type': 'stream', 'name': 'stdout', 'text': 'epoch 1 loss 0.5\\n' * 1_200_000}]}])")
        self.cell(kc, "import json\nNB = json.loads(%r)" % json.dumps(nb), silent=True)
        self.cell(kc, stand_in(nb=big), silent=True)
        size = self.cell(kc, "import json\nprint(len(json.dumps(_blocking_request('get_ipynb')['ipynb'])))")["stdout"]
        self.assertGreater(int(size), 50_000_000)
        t = time.monotonic()
        load = self.cell(kc, "%load_ext first_assert", timeout=120)
        took = time.monotonic() - t
        html, text = card(load)
        self.assertIn("cell [%d], output line" % failing["count"], html)
        self.assertLess(len(html), 40_000)
        print(f"\n  a {int(size) / 1e6:.0f} MB notebook read late: {took:.1f} s for the load cell", file=sys.stderr)


@unittest.skipIf(HISTORY, "IPython 9.1 and later keep outputs: the history is read instead")
class LastError(KernelCase):
    """IPython 7.34 outside Colab: the cells' code and the last error alone."""

    def test_only_the_last_error_is_read_and_the_card_says_so(self):
        kc = self.kernel()
        self.cell(kc, "x = 1")
        self.cell(kc, RAISE)
        echo = self.cell(kc, ECHO)
        load = self.cell(kc, "%load_ext first_assert")
        html, text = card(load)
        self.assertIn("only the last error from before the extension was loaded", html)
        self.assertIn("the first assert may be earlier", html)
        self.assertIn("cell [%d], output line" % echo["count"], html, "the last error, in the cell it came from")
        self.assertRegex(html, r"cell \[%d\], code line \d" % echo["count"])


@unittest.skipUnless(HISTORY, "IPython before 9.1 keeps no outputs")
class History(KernelCase):
    """IPython 9.1 and later: outputs and exceptions by execution count."""

    def test_the_history_gives_the_real_first_and_its_echo(self):
        kc = self.kernel()
        self.cell(kc, "print('data ready')")
        failing = self.cell(kc, RAISE)
        self.cell(kc, ECHO)
        load = self.cell(kc, "%load_ext first_assert")
        html, text = card(load)
        started = html.split("Where it started")[1].split("The line the traceback blames")[0]
        self.assertIn("cell [%d], output line" % failing["count"], started)
        self.assertIn("IPython's history of this session (3 cells that ran before the extension was loaded", html)
        self.assertIn("First device-side assert: cell [%d]" % failing["count"], self.cell(kc, "%first_assert status")["stdout"])

    def test_where_the_kernel_shows_fd_2_the_record_from_before_the_load_is_read(self):
        kc = self.kernel(capture=True)
        failing = self.cell(kc, WRITE + RAISE)
        self.assertIn(RECORD, failing["stderr"])
        load = self.cell(kc, "%load_ext first_assert")
        html, _ = card(load)
        self.assertIn("t >= 0 && t < n_classes</span>", html, "the kernel's own line, from the history")
        self.assertIn("Cause: A class label is out of range", html)


class Words(KernelCase):
    """Every switch says what it did, and does it."""

    def test_on_off_status_and_isolate_off_each_say_and_do_one_thing(self):
        kc = self.kernel()
        load = self.cell(kc, "%load_ext first_assert")["stdout"]
        self.assertEqual(len(load.strip().splitlines()), 2, load)  # on, and what it read (nothing)
        self.assertIn("(fd 2 + fd 1), which this kernel does not show, comes into the cell", load)
        self.assertIn("nothing is isolating", self.cell(kc, "%first_assert isolate off")["stdout"])
        off = self.cell(kc, "%first_assert off")["stdout"]
        self.assertIn("first-assert is off", off)
        self.assertNotIn("isolating", off.lower().split("off:")[0])
        self.assertEqual(self.cell(kc, WRITE + RAISE)["displays"], [], "off: no card")
        self.assertIn("first-assert is off", self.cell(kc, "%first_assert status")["stdout"])
        self.assertIn("already off", self.cell(kc, "%first_assert off")["stdout"])
        self.assertIn("first-assert is on", self.cell(kc, "%first_assert on")["stdout"])
        self.assertEqual(len(self.cell(kc, WRITE + RAISE)["displays"]), 1, "on again: the card")
        status = self.cell(kc, "%first_assert status")["stdout"]
        for line in ("first-assert is on.", "The kernel's own output: fd 2 + fd 1 brought into the cells",
                     "Isolating: no", "Language: English"):
            self.assertIn(line, status)
        self.assertIn("already loaded", self.cell(kc, "%load_ext first_assert")["stdout"])
        self.assertIn("%first_assert on | off | isolate | isolate off | status | lang en|zh", self.cell(kc, "%first_assert bogus")["stdout"])
        self.assertIn("speaks English", self.cell(kc, "%first_assert lang en")["stdout"])

    def test_isolate_without_torch_says_what_is_missing(self):
        kc = self.kernel()
        self.cell(kc, "%load_ext first_assert")
        if HAS_TORCH:
            self.cell(kc, "import sys\nsys.modules['torch'] = None  # as if torch were not installed")
        out = self.cell(kc, "%first_assert isolate")
        self.assertEqual(out["error"], None)
        self.assertIn("cannot import torch", out["stdout"])
        self.assertIn("%pip install torch", out["stdout"])


# A verbose build's value line (PyTorch's CUDA_KERNEL_ASSERT_PRINTF: printf, so fd 1) and the
# record the same thread then prints to fd 2.
VALUE = ("[CUDA_KERNEL_ASSERT] /pytorch/aten/src/ATen/native/cuda/IndexKernelUtils.cu:16: vectorized_gather_kernel: "
         "block: [1,0,0], thread: [2,0,0]: Assertion failed: `ind >=0 && ind < ind_dim_size && \"vectorized gather kernel index out of bounds\"`: "
         "Expected 0 <= index < ind_dim_size(9), but got index = 11\n")
GATHER = ("/pytorch/aten/src/ATen/native/cuda/IndexKernelUtils.cu:16: vectorized_gather_kernel: block: [1,0,0], thread: [2,0,0] "
          "Assertion `ind >=0 && ind < ind_dim_size && \"vectorized gather kernel index out of bounds\"` failed.\n")
WRITE_BOTH = ("import ctypes\nlibc = ctypes.CDLL(None)\nv, r = %r.encode(), %r.encode()\n"
              "libc.write(1, v, len(v))\nlibc.write(2, r, len(r))\n") % (VALUE, GATHER)


class Fd1(KernelCase):
    """fd 1 (a device's printf) as well as fd 2, with the same guarantees."""

    def test_the_value_line_on_fd_1_reaches_the_cell_and_the_card(self):
        kc = self.kernel()
        self.cell(kc, "%load_ext first_assert")
        out = self.cell(kc, WRITE_BOTH + ECHO)
        self.assertIn(VALUE, out["stdout"], "fd 1 into the cell")
        self.assertIn(GATHER, out["stderr"], "fd 2 into the cell")
        html, text = card(out)
        self.assertIn("The device refused the value 11; allowed: 0 <= index < 9.", html)
        self.assertIn("The device refused the value 11; allowed: 0 <= index < 9.", text)
        print(f"\n  fd-1 value line in the card: {text.splitlines()[0]}", file=sys.stderr)

    def test_a_write_of_2_mib_to_fd_1_that_holds_the_gil_does_not_hang_the_cell(self):
        kc = self.kernel()
        self.cell(kc, "%load_ext first_assert")
        code = "import ctypes\nb = b'x' * (2 << 20) + b'\\n'\nctypes.PyDLL(None).write(1, b, len(b))\nimport time; time.sleep(0.5)\nprint('written')"
        out = self.cell(kc, code, timeout=30)
        self.assertIn("written", out["stdout"])
        self.assertEqual(out["stdout"].count("x"), 2 << 20, "every byte reached the cell")

    def test_forked_workers_holding_fd_1_do_not_hold_off(self):
        kc = self.kernel()
        self.cell(kc, "%load_ext first_assert")
        code = ("import os, time, threading\npid = os.fork()\n"
                "if pid == 0:\n    time.sleep(4); os.write(1, b'worker done\\n'); os._exit(0)\n"
                "t = time.monotonic(); get_ipython().run_line_magic('first_assert', 'off'); took = time.monotonic() - t\n"
                "print(round(took, 3), [th.name for th in threading.enumerate() if th.name.startswith('first-assert')])")
        took, threads = self.cell(kc, code)["stdout"].split("\n")[-2].split(maxsplit=1)
        self.assertLess(float(took), 1.0, "off returns at once")
        self.assertEqual(threads.strip(), "[]", "no reader thread left")

    def test_a_character_split_by_off_is_whole_in_the_log_and_the_last_words_reach_it(self):
        with tempfile.NamedTemporaryFile("w+b") as log:
            kc = self.kernel(log=log)
            self.cell(kc, "%load_ext first_assert")
            word = "断言失败 end\n".encode()
            out = self.cell(kc, f"import os\nw = {word!r}\nos.write(1, w[:2])\nget_ipython().run_line_magic('first_assert', 'off')\nos.write(1, w[2:])")
            self.assertIn("\ufffd", out["stdout"], "the cell shows the piece it got, not nothing")
            self.assertIn(word, open(log.name, "rb").read(), "every byte reached the kernel's log, in order")
            self.cell(kc, "%first_assert on")
            kc.execute("import os\nos.write(1, b'last words on fd 1\\n')\nos.abort()")
            for _ in range(50):
                time.sleep(0.1)
                if b"last words on fd 1" in open(log.name, "rb").read():
                    break
            self.assertIn(b"last words on fd 1", open(log.name, "rb").read(), "the kernel's log keeps its last line")


if __name__ == "__main__":
    import ipykernel

    print(f"late-load tests under Python {sys.version.split()[0]}, IPython {IPython.__version__}, ipykernel {ipykernel.__version__}"
          + ("" if HAS_TORCH else ", no torch"), file=sys.stderr)
    unittest.main(verbosity=1)
