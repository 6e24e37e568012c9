"""``%load_ext first_assert`` in real kernels, started as Colab starts its kernel (ipykernel
without fd capture: the kernel's own lines never reach the cell) and as stock Jupyter does,
driven through jupyter_client. Run by scripts/test-wheel.sh with the wheel installed."""

import sys
import time
import unittest

from kernels import CUDA_STARTS, ECHO, HAS_TORCH, RAISE, RAISE_SYNC, RECORD, WRITE, KernelCase


class Kernel(KernelCase):
    def test_an_assert_cell_gets_the_card_and_the_next_failing_cell_the_latch(self):
        kc = self.kernel()
        self.assertEqual(self.cell(kc, "%load_ext first_assert")["error"], None)
        setup = self.cell(kc, "print('ready')")
        self.assertEqual(setup["displays"], [], "a cell that succeeds gets nothing")
        failing = self.cell(kc, WRITE + RAISE)
        self.assertEqual(failing["error"], "AcceleratorError", "the user's own traceback is shown as it was")
        self.assertIn(RECORD, failing["stderr"], "the kernel's line reaches the cell")
        self.assertEqual(len(failing["displays"]), 1)
        card = failing["displays"][0]
        html, text = card["text/html"], card["text/plain"]
        self.assertIn('data-first-assert-card="device_assert"', html)
        self.assertIn("Cause: A class label is out of range", html)
        self.assertIn("t &gt;= 0 &amp;&amp; t &lt; n_classes</span>", html, "the failed condition marked")
        self.assertIn("cell [%d]" % failing["count"], html, "where it started: the cell the user sees")
        self.assertIn("Loss.cu:250", text)
        self.assertIn("%load_ext first_assert\n%first_assert isolate", html, "the next step in the kernel: two lines")
        print(f"\n  card ({len(html)} bytes): {text.splitlines()[0]}", file=sys.stderr)
        # The next cell that touches CUDA: one line, no second diagnosis.
        echo = self.cell(kc, ECHO)
        self.assertEqual(len(echo["displays"]), 1)
        line = echo["displays"][0]["text/plain"]
        self.assertIn("CUDA is broken since the assert in cell [%d]" % failing["count"], line)
        print(f"  echo: {line}", file=sys.stderr)
        self.assertEqual(self.cell(kc, "x = 1 + 1")["displays"], [])
        self.assertEqual(self.cell(kc, "raise ValueError('not CUDA')")["displays"], [], "an error that is no CUDA error gets nothing")

    def test_the_first_assert_is_the_engines_even_when_it_surfaced_cells_later(self):
        kc = self.kernel()
        self.cell(kc, "%load_ext first_assert")
        early = self.cell(kc, WRITE + "print('step done')")  # asynchronous: no error yet
        self.assertEqual(early["displays"], [])
        later = self.cell(kc, RAISE)
        html = later["displays"][0]["text/html"]
        self.assertIn("cell [%d]" % early["count"], html, "the assert started in the earlier cell")
        started = html.split("Where it started")[1].split("The line the traceback blames")[0]
        self.assertIn("cell [%d], output line" % early["count"], started)
        self.assertNotIn("cell [%d]" % later["count"], started)

    def test_with_only_the_host_error_the_card_names_the_likeliest_cause(self):
        kc = self.kernel()
        self.cell(kc, "%load_ext first_assert")
        out = self.cell(kc, RAISE)
        html = out["displays"][0]["text/html"]
        self.assertIn('data-first-assert-card="device_assert"', html)
        self.assertRegex(html, r"(Most likely|Likely): ")
        self.assertRegex(html, r"\d+% sure: ", "how sure")
        # The blamed line, and that the asynchronous report makes it untrustworthy.
        self.assertIn("The line the traceback blames", html)
        self.assertIn("Do not trust the traceback", html)

    def test_the_card_in_chinese(self):
        kc = self.kernel()
        self.cell(kc, "import first_assert._kernel as k; k.load(get_ipython(), lang='zh')")
        html = self.cell(kc, WRITE + RAISE)["displays"][0]["text/html"]
        self.assertIn("原因：", html)

    def test_a_custom_exception_handler_installed_before_still_runs_and_unload_restores_fd_2(self):
        kc = self.kernel()
        before = self.cell(kc, "import os; print(os.fstat(2).st_ino)")["stdout"].split()[0]
        handler = ("def handler(shell, etype, evalue, tb, tb_offset=None):\n"
                   "    print('custom handler ran')\n"
                   "get_ipython().set_custom_exc((KeyError,), handler)\n")
        self.cell(kc, handler)
        self.cell(kc, "%load_ext first_assert")
        self.assertIn("custom handler ran", self.cell(kc, "raise KeyError('x')")["stdout"])
        self.cell(kc, "%unload_ext first_assert")
        after = self.cell(kc, "import os, threading, time; time.sleep(0.3); print(os.fstat(2).st_ino, [t.name for t in threading.enumerate() if t.name.startswith('first-assert')])")
        ino, threads = after["stdout"].split(maxsplit=1)
        self.assertEqual(ino, before, "fd 2 is the original again")
        self.assertEqual(threads.strip(), "[]", "no thread left")
        self.assertEqual(self.cell(kc, WRITE + RAISE)["displays"], [], "unloaded: no card")

    @unittest.skipUnless(HAS_TORCH, "the probe needs torch (the Colab environment has it)")
    def test_isolate_then_a_bad_label_on_the_cpu_is_confirmed_in_that_cell(self):
        kc = self.kernel()
        self.cell(kc, "%load_ext first_assert")
        on = self.cell(kc, "%first_assert isolate")
        self.assertIn("CUDA_LAUNCH_BLOCKING=1 is set", on["stdout"])
        self.assertEqual(self.cell(kc, "import os; print(os.environ['CUDA_LAUNCH_BLOCKING'])")["stdout"].strip(), "1")
        bad = self.cell(kc, "import torch, torch.nn.functional as F\nlogits = torch.zeros(4, 3)\nlabels = torch.tensor([0, 1, 3, 2])\nloss = F.cross_entropy(logits, labels)")
        self.assertEqual(bad["error"], "FirstAssertError")
        html = bad["displays"][0]["text/html"]
        self.assertIn('data-first-assert-card="confirmed"', html)
        self.assertIn("Confirmed: A class label is out of range", html)
        self.assertIn("loss = F.cross_entropy(logits, labels)", html)
        status = self.cell(kc, "%first_assert status")["stdout"]
        self.assertIn("Isolating: yes", status)
        self.assertIn("isolating is off", self.cell(kc, "%first_assert isolate off")["stdout"])
        self.assertIn("Isolating: no", self.cell(kc, "%first_assert status")["stdout"])
        # Once CUDA (here: torch) has started, the variable cannot help, and it says so.
        self.cell(kc, "torch.cuda.is_initialized = lambda: True  # as after a CUDA call")
        self.assertIn("cannot take effect now", self.cell(kc, "%first_assert isolate")["stdout"])

    @unittest.skipUnless(HAS_TORCH, "torch's version and torch.cuda are what the kernel reads")
    def test_what_the_kernel_saw_as_cuda_started_decides_whether_the_traceback_is_trusted(self):
        import torch

        for lb, said in (("1", "The kernel saw CUDA start with CUDA_LAUNCH_BLOCKING=1"),
                         # Set in a cell after CUDA started: too late, as a fact, not a guess.
                         (None, "but only after CUDA was already in use")):
            kc = self.kernel()
            self.cell(kc, "%load_ext first_assert")
            if lb:
                self.cell(kc, "import os\nos.environ['CUDA_LAUNCH_BLOCKING'] = %r" % lb)
            self.cell(kc, CUDA_STARTS)
            # After CUDA started, the variable changes nothing: what was in force then counts.
            self.cell(kc, "import os\nos.environ['CUDA_LAUNCH_BLOCKING'] = %r" % ("0" if lb else "1"))
            card = self.cell(kc, WRITE + (RAISE_SYNC if lb else RAISE))["displays"][0]
            html, text = card["text/html"], card["text/plain"]
            facts = "torch %s · Tesla T4 · %s" % (torch.__version__, "CUDA_LAUNCH_BLOCKING=1 when CUDA started" if lb
                                                  else "CUDA started without CUDA_LAUNCH_BLOCKING=1")
            self.assertIn(facts, html)
            self.assertIn("Kernel: " + facts, text)
            self.assertIn(said, html)
            print(f"\n  {text.splitlines()[0][:90]}…\n  Kernel: {facts}", file=sys.stderr)

    @unittest.skipUnless(HAS_TORCH, "torch.compile is torch's")
    def test_torch_compile_in_use_is_said_and_isolating_runs_uncompiled(self):
        kc = self.kernel()
        self.cell(kc, "%load_ext first_assert")
        self.cell(kc, "import torch\nf = torch.compile(lambda x: x * 2 + 1, backend='eager')\nf(torch.ones(3))")
        html = self.cell(kc, WRITE + RAISE)["displays"][0]["text/html"]
        self.assertIn("torch.compile in use", html)
        self.assertIn("isolating turns it off", html)
        on = self.cell(kc, "%first_assert isolate")
        self.assertIn("torch.compile is off", on["stdout"], on)
        ask = "import torch._dynamo\nprint(torch._dynamo.config.disable)"
        self.assertEqual(self.cell(kc, ask)["stdout"].strip(), "True")
        self.cell(kc, "%first_assert isolate off")
        self.assertEqual(self.cell(kc, ask)["stdout"].strip(), "False", "as it was")

    def test_10_mb_of_hostile_fd_2_text_gives_an_inert_bounded_card(self):
        kc = self.kernel()
        self.cell(kc, "%load_ext first_assert")
        evil = "<script>alert(1)</script><img src=x onerror=alert(2)><a href='javascript:alert(3)'>x</a>"
        flood = ("import os\n"
                 "line = (%r + ' ' * 40 + '\\n').encode()\n"
                 "os.write(2, %r.encode())\n"
                 "os.write(2, b'\\xff\\xfe bad utf-8 \\xc3\\x28\\n' + line * (10_000_000 // len(line)))\n") % (evil, RECORD)
        t = time.monotonic()
        out = self.cell(kc, flood + RAISE, timeout=180)
        took = time.monotonic() - t
        self.assertEqual(len(out["displays"]), 1)
        html, text = out["displays"][0]["text/html"], out["displays"][0]["text/plain"]
        for tag in ("<script", "<img", "<a "):
            self.assertNotIn(tag, html)
        self.assertIn("t &gt;= 0 &amp;&amp; t &lt; n_classes</span>", html, "the first assert, at the head of 10 MB")
        self.assertLess(len(html) + len(text), 64_000)
        print(f"\n  10 MB of fd 2 to a card: {took:.1f} s for the whole cell (the forwarding into the cell included)", file=sys.stderr)

    def test_where_the_kernel_shows_fd_2_nothing_is_shown_twice(self):
        kc = self.kernel(capture=True)
        self.cell(kc, "%load_ext first_assert")
        out = self.cell(kc, WRITE + RAISE)
        self.assertEqual(out["stderr"].count(RECORD), 1, "the kernel's own capture shows it, once")
        self.assertIn("Cause: A class label is out of range", out["displays"][0]["text/html"])


if __name__ == "__main__":
    import IPython
    import ipykernel

    print(f"kernel tests under IPython {IPython.__version__}, ipykernel {ipykernel.__version__}" + ("" if HAS_TORCH else ", no torch"), file=sys.stderr)
    unittest.main(verbosity=1)
