"""What the probe cell costs on a small training step on the CPU (make bench prints it).

An embedding, a linear layer and cross-entropy on a batch of token ids, with an SGD step:
the ops the probe guards run on every step. Prints milliseconds per step without and with the
probe, and their ratio (best of several rounds, to keep a shared machine's noise out).
"""

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("FIRST_ASSERT_BIN", str(ROOT / "target/release/first-assert"))
log = b"Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && t < n_classes` failed.\n"
code = subprocess.run([BIN, "--probe", "-"], input=log, capture_output=True).stdout.decode()
ns = {}
exec(compile(code, "<probe cell>", "exec"), ns)
probe = ns["first_assert_probe"]

import torch  # noqa: E402

torch.manual_seed(0)
torch.set_num_threads(1)
emb, head = torch.nn.Embedding(1000, 64), torch.nn.Linear(64, 10)
opt = torch.optim.SGD(list(emb.parameters()) + list(head.parameters()), lr=0.1)
ids = torch.randint(0, 1000, (64, 32))
labels = torch.randint(0, 10, (64,))


def step():
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(head(emb(ids).mean(1)), labels)
    loss.backward()
    opt.step()


def per_step(steps=200, rounds=5):
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(steps):
            step()
        best = min(best, (time.perf_counter() - t) / steps)
    return best * 1e3


probe.off()
step()
without = per_step()
probe.on()
with_probe = per_step()
print("probe overhead on a small CPU training step: %.3f ms without, %.3f ms with the probe: %.2fx"
      % (without, with_probe, with_probe / without))
