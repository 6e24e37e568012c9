"""What the kernel tests share: the cells they run (a kernel record written to fd 2 from C, the
error a training cell raises once the assert has fired) and a test case that starts real kernels
through jupyter_client and runs cells in them as a front end does."""

import importlib.util
import queue
import subprocess
import unittest

# A kernel record as the CUDA runtime writes it to fd 2 (our own line).
RECORD = ("/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: "
          "block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.\n")

# Writes the record to fd 2 from C, as the CUDA runtime does.
WRITE = "import ctypes\nline = %r.encode()\nctypes.CDLL(None).write(2, line, len(line))\n" % RECORD

# What a training cell raises once the assert has fired: PyTorch 2.8+'s error (on the CPU
# torch.AcceleratorError is constructed by hand; in the environment without torch, a stand-in of
# the same name). Its message is put together when the cell runs, as PyTorch's C++ does: the
# source a traceback shows holds no error text of its own.
HAS_TORCH = importlib.util.find_spec("torch") is not None
ASYNC_NOTE = ("\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
              "For debugging consider passing CUDA_LAUNCH_BLOCKING=1")
MESSAGE = "def cuda_error(note=True):\n    return 'CUDA error: device-side ' + 'assert triggered' + (%r if note else '')\n" % ASYNC_NOTE
PRELUDE = MESSAGE + ("import torch\nimport torch.nn.functional as F\nAcceleratorError = torch.AcceleratorError\n"
                     "batch = (torch.zeros(4, 3), torch.tensor([0, 1, 2, 1]))\n" if HAS_TORCH else
                     "class AcceleratorError(RuntimeError):\n    pass\nclass F:\n    cross_entropy = staticmethod(lambda logits, labels: 0.0)\n"
                     "batch = ([[0.0] * 3] * 4, [0, 1, 2, 1])\n")
RAISE = (PRELUDE +
         "def train_step(logits, labels):\n"
         "    loss = F.cross_entropy(logits, labels)\n"
         "    raise AcceleratorError(cuda_error())\n"
         "train_step(*batch)\n")

# The same with CUDA_LAUNCH_BLOCKING=1 in force: PyTorch adds no note about asynchronous reports.
RAISE_SYNC = RAISE.replace("raise AcceleratorError(cuda_error())", "raise AcceleratorError(cuda_error(note=False))")

# A later cell of a broken context: an innocent op that raises the same error.
ECHO = MESSAGE + "raise RuntimeError(cuda_error())\n"

# CUDA starting, on a machine without a GPU: torch.cuda says it has started, on a stand-in device.
CUDA_STARTS = ("import torch\ntorch.cuda.is_initialized = lambda: True\n"
               "torch.cuda.current_device = lambda: 0\ntorch.cuda.get_device_name = lambda device=None: 'Tesla T4'\n")


class KernelCase(unittest.TestCase):
    def kernel(self, capture=False, log=None):
        """A new kernel, its fd capture off as Colab runs it (or on, as stock Jupyter); its own
        stdout and stderr (Colab's runtime log) go to `log` when given."""
        from jupyter_client.manager import start_new_kernel

        args = [] if capture else ["--IPKernelApp.capture_fd_output=False"]
        km, kc = start_new_kernel(kernel_name="python3", extra_arguments=args,
                                  stdout=log or subprocess.DEVNULL, stderr=log or subprocess.DEVNULL)
        self.addCleanup(km.shutdown_kernel, now=True)
        self.addCleanup(kc.stop_channels)
        return kc

    def cell(self, kc, code, timeout=60, silent=False):
        """Runs `code`: its execution count, streams, error name, displays (mimebundles) and its
        outputs as a notebook keeps them (nbformat, what Colab's front end would hand back)."""
        msg_id = kc.execute(code, silent=silent, store_history=not silent)
        out = {"count": None, "stdout": "", "stderr": "", "error": None, "displays": [], "outputs": []}

        def take(msg):
            kind, c = msg["msg_type"], msg["content"]
            if kind == "execute_input":
                out["count"] = c["execution_count"]
            elif kind == "stream":
                out[c["name"]] += c["text"]
                out["outputs"].append({"output_type": "stream", "name": c["name"], "text": c["text"]})
            elif kind == "error":
                out["error"] = c["ename"]
                out["outputs"].append({"output_type": "error", **{k: c[k] for k in ("ename", "evalue", "traceback")}})
            elif kind == "display_data":
                out["displays"].append(c["data"])
                out["outputs"].append({"output_type": "display_data", "data": c["data"], "metadata": {}})

        while True:
            msg = kc.get_iopub_msg(timeout=timeout)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                # A stream flushed by the kernel's IO thread may trail its idle status on a busy
                # machine: what arrives for this cell within a moment is still its own.
                try:
                    while True:
                        late = kc.get_iopub_msg(timeout=0.5)
                        if late["parent_header"].get("msg_id") == msg_id and late["msg_type"] == "stream":
                            take(late)
                except queue.Empty:
                    pass
                return out
            take(msg)

    @staticmethod
    def as_notebook_cell(code, out):
        """A cell as a notebook (Colab's) saves it."""
        return {"cell_type": "code", "execution_count": out["count"], "metadata": {"colab": {"base_uri": "https://localhost:8080/"}},
                "source": code, "outputs": out["outputs"]}
