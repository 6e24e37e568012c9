"""The probe cell against real PyTorch, on the CPU (scripts/test-probe.sh runs this).

The probe is the one the engine hands out: `first-assert --probe` on a log. This process runs
it before anything imports torch, as a user's first cell would; the scenarios that need a fresh
interpreter (the warnings, turning it off, each cause's probe) run in subprocesses.
"""

import ast
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib
import traceback
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("FIRST_ASSERT_BIN", str(ROOT / "target/release/first-assert"))

# A kernel assertion line of our own: a label past the last class (cause: invalid_label).
LABEL_LOG = (
    "/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: "
    "block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.\n"
    "RuntimeError: CUDA error: device-side assert triggered\n"
)


def cpu_forms():
    """The CPU error forms the rules read: each rule file's [[confirm.cpu]] messages (the same
    data the engine is built from), without those marked legacy."""
    forms = []
    for path in sorted((ROOT / "rules").glob("*.toml")):
        with open(path, "rb") as f:
            rule = tomllib.load(f)
        forms += [c["message"] for c in rule.get("confirm", {}).get("cpu", []) if not c.get("legacy")]
    return forms


def probe_code(log, lang="en"):
    done = subprocess.run([BIN, "--probe", "--lang", lang, "-"], input=log.encode(), capture_output=True)
    assert done.returncode in (0, 1), done.stderr.decode()
    return done.stdout.decode()


def run_python(code, script):
    """Runs the probe, then `script`, in a fresh interpreter; returns (stdout, stderr)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False, encoding="utf-8") as f:
        f.write(code + "\n" + script)
    try:
        env = {k: v for k, v in os.environ.items() if k != "CUDA_LAUNCH_BLOCKING"}
        done = subprocess.run([sys.executable, f.name], capture_output=True, env=env, timeout=300)
        return done.stdout.decode(), done.stderr.decode()
    finally:
        os.unlink(f.name)


# The probe of a label case, run here as a first cell: nothing has imported torch yet.
CODE = probe_code(LABEL_LOG)
NS = {"__name__": "probe_cell"}
exec(compile(CODE, "<probe cell>", "exec"), NS)
Probe = NS["first_assert_probe"]
FirstAssertError = NS["FirstAssertError"]

import torch  # noqa: E402  (after the probe, on purpose)
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def plain(fn):
    """Runs fn with the probe off: (result, None) or (None, the exception)."""
    with contextlib.redirect_stderr(io.StringIO()):  # the probe's "off" and "on" lines
        Probe.off()
    try:
        torch.manual_seed(0)
        return fn(), None
    except Exception as e:  # noqa: BLE001 -- PyTorch's own error is what we compare against
        return None, e
    finally:
        with contextlib.redirect_stderr(io.StringIO()):
            Probe.on()


def probed(fn):
    torch.manual_seed(0)
    return fn()


def same(a, b):
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.shape == b.shape and torch.equal(a, b)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


x45 = torch.arange(20.0).reshape(4, 5)
logits = torch.randn(4, 10, generator=torch.Generator().manual_seed(1))
img_logits = torch.randn(2, 3, 4, 4, generator=torch.Generator().manual_seed(2))
weight = torch.randn(8, 3, generator=torch.Generator().manual_seed(3))
index = lambda *v: torch.tensor(v)  # noqa: E731

# (name, bad call, good call, what the error must say). Every op the probe guards, by the
# forms users call it in: functions, modules, Tensor methods, in place.
CASES = [
    ("cross_entropy (N, C)", lambda: F.cross_entropy(logits, index(1, 2, 10, 0)),
     lambda: F.cross_entropy(logits, index(1, 2, 9, 0)), ["F.cross_entropy", "max 10", "0 <= target < 10"]),
    ("cross_entropy (C,)", lambda: F.cross_entropy(logits[0], index(-3)[0]),
     lambda: F.cross_entropy(logits[0], index(3)[0]), ["F.cross_entropy", "min -3", "0 <= target < 10"]),
    ("CrossEntropyLoss (N, C, d1, d2) with a void label", lambda: nn.CrossEntropyLoss()(img_logits, torch.full((2, 4, 4), 255)),
     lambda: nn.CrossEntropyLoss(ignore_index=255)(img_logits, torch.full((2, 4, 4), 255).index_fill(1, index(0), 2)),
     ["F.cross_entropy", "255", "0 <= target < 3", "ignore_index"]),
    ("CrossEntropyLoss ignore_index honoured", lambda: nn.CrossEntropyLoss(ignore_index=-1)(logits, index(1, -1, 10, 0)),
     lambda: nn.CrossEntropyLoss(ignore_index=-1)(logits, index(1, -1, 9, 0)), ["target == -1 (ignore_index)", "10"]),
    ("nll_loss", lambda: F.nll_loss(logits.log_softmax(1), index(0, 0, 0, 12)),
     lambda: F.nll_loss(logits.log_softmax(1), index(0, 0, 0, 9)), ["F.nll_loss", "12", "0 <= target < 10"]),
    ("NLLLoss", lambda: nn.NLLLoss()(logits.log_softmax(1), index(-1, 0, 0, 0)),
     lambda: nn.NLLLoss()(logits.log_softmax(1), index(1, 0, 0, 0)), ["F.nll_loss", "-1"]),
    ("embedding", lambda: F.embedding(index(0, 8, 2), weight),
     lambda: F.embedding(index(0, 7, 2), weight), ["F.embedding", "max 8", "0 <= id < 8"]),
    ("Embedding", lambda: nn.Embedding(8, 3)(index(-1, 2)),
     lambda: nn.Embedding(8, 3)(index(1, 2)), ["F.embedding", "min -1", "0 <= id < 8"]),
    ("EmbeddingBag ids", lambda: nn.EmbeddingBag(8, 3)(index(1, 9, 2, 3), index(0, 2)),
     lambda: nn.EmbeddingBag(8, 3)(index(1, 7, 2, 3), index(0, 2)), ["F.embedding_bag", "9", "0 <= id < 8"]),
    ("embedding_bag offsets", lambda: F.embedding_bag(index(1, 2, 3, 4), weight, index(0, 3, 2)),
     lambda: F.embedding_bag(index(1, 2, 3, 4), weight, index(0, 2, 3)), ["F.embedding_bag", "offsets[0] == 0", "<= 4"]),
    ("index_select", lambda: torch.index_select(x45, 1, index(0, 5)),
     lambda: torch.index_select(x45, 1, index(0, 4)), ["index_select", "max 5", "0 <= index < 5"]),
    ("Tensor.index_select", lambda: x45.index_select(0, index(-1)),
     lambda: x45.index_select(0, index(3)), ["index_select", "-1", "0 <= index < 4"]),
    ("gather", lambda: torch.gather(x45, 1, index(0, 5, 1, 1)[:, None]),
     lambda: torch.gather(x45, 1, index(0, 4, 1, 1)[:, None]), ["gather", "5", "0 <= index < 5"]),
    ("scatter_", lambda: x45.clone().scatter_(0, index(4, 0)[None], 1.0),
     lambda: x45.clone().scatter_(0, index(3, 0)[None], 1.0), ["scatter", "4", "0 <= index < 4"]),
    ("scatter_add", lambda: torch.scatter_add(x45, 1, index(7)[None], x45),
     lambda: torch.scatter_add(x45, 1, index(4)[None], x45), ["scatter_add", "7", "0 <= index < 5"]),
    ("scatter_reduce", lambda: x45.scatter_reduce(1, index(0, 5)[None], x45, "amax"),
     lambda: x45.scatter_reduce(1, index(0, 4)[None], x45, "amax"), ["scatter_reduce", "0 <= index < 5"]),
    ("index_add_", lambda: x45.clone().index_add_(0, index(0, 4), torch.ones(2, 5)),
     lambda: x45.clone().index_add_(0, index(0, 3), torch.ones(2, 5)), ["index_add", "4", "0 <= index < 4"]),
    ("index_copy", lambda: torch.index_copy(x45, 0, index(6), torch.ones(1, 5)),
     lambda: torch.index_copy(x45, 0, index(2), torch.ones(1, 5)), ["index_copy", "6", "0 <= index < 4"]),
    ("index_fill_", lambda: x45.clone().index_fill_(1, index(-6), 0.0),
     lambda: x45.clone().index_fill_(1, index(-5), 0.0), ["index_fill", "-6", "-5 <= index < 5"]),
    ("take", lambda: torch.take(x45, index(0, 20)),
     lambda: torch.take(x45, index(0, 19, -20)), ["torch.take", "20", "-20 <= index < 20"]),
    ("t[idx]", lambda: x45[index(0, 4)],
     lambda: x45[index(0, 3, -4)], ["tensor[index]", "max 4", "-4 <= index < 4"]),
    ("t[:, idx] and a list", lambda: x45[:, [1, 5]],
     lambda: x45[:, [1, 4]], ["tensor[index]", "5", "-5 <= index < 5"]),
    ("t[..., mask, idx]", lambda: x45.reshape(2, 2, 5)[..., index(5, 0)],
     lambda: x45.reshape(2, 2, 5)[..., index(4, 0)], ["tensor[index]", "5", "-5 <= index < 5"]),
    ("t[idx] = v", lambda: x45.clone().__setitem__(index(-5), 1.0),
     lambda: x45.clone().__setitem__(index(-4), 1.0), ["tensor[index]", "-5", "-4 <= index < 4"]),
    ("one_hot", lambda: F.one_hot(index(0, 3, 5), 5),
     lambda: F.one_hot(index(0, 3, 4), 5), ["F.one_hot", "max 5", "0 <= value < 5"]),
    ("one_hot negative", lambda: F.one_hot(index(0, -1)),
     lambda: F.one_hot(index(0, 1)), ["F.one_hot", "-1"]),
    ("binary_cross_entropy input", lambda: F.binary_cross_entropy(torch.tensor([0.2, 1.5]), torch.tensor([0.0, 1.0])),
     lambda: F.binary_cross_entropy(torch.tensor([0.2, 1.0]), torch.tensor([0.0, 1.0])),
     ["F.binary_cross_entropy", "input", "1.5", "0 <= input <= 1"]),
    ("BCELoss NaN", lambda: nn.BCELoss()(torch.tensor([0.2, float("nan")]), torch.tensor([0.0, 1.0])),
     lambda: nn.BCELoss()(torch.tensor([0.2, 0.7]), torch.tensor([0.0, 1.0])), ["F.binary_cross_entropy", "nan"]),
    ("BCELoss target", lambda: nn.BCELoss()(torch.tensor([0.2, 0.7]), torch.tensor([0.0, 2.0])),
     lambda: nn.BCELoss()(torch.tensor([0.2, 0.7]), torch.tensor([0.0, 1.0])), ["target", "0 <= target <= 1"]),
    ("multinomial NaN", lambda: torch.multinomial(torch.tensor([[0.5, float("nan")]]), 1),
     lambda: torch.multinomial(torch.tensor([[0.5, 0.5]]), 1), ["torch.multinomial", "nan", "0 <= p < inf"]),
    ("multinomial negative", lambda: torch.tensor([0.5, -0.1]).multinomial(1),
     lambda: torch.tensor([0.5, 0.1]).multinomial(1), ["torch.multinomial", "-0.1"]),
    ("multinomial zero row", lambda: torch.multinomial(torch.tensor([[0.5, 0.5], [0.0, 0.0]]), 1),
     lambda: torch.multinomial(torch.tensor([[0.5, 0.5], [0.0, 1.0]]), 1), ["torch.multinomial", "p.sum(-1) > 0", "[1, 0]"]),
    ("bernoulli", lambda: torch.bernoulli(torch.tensor([0.2, 1.2])),
     lambda: torch.bernoulli(torch.tensor([0.2, 1.0])), ["torch.bernoulli", "1.2", "0 <= p <= 1"]),
    ("bernoulli_ with p", lambda: torch.zeros(3).bernoulli_(torch.tensor([0.1, -0.5, 0.3])),
     lambda: torch.zeros(3).bernoulli_(torch.tensor([0.1, 0.5, 0.3])), ["torch.bernoulli", "-0.5"]),
    ("repeat_interleave", lambda: torch.repeat_interleave(torch.tensor([1, 2]), index(2, -1)),
     lambda: torch.repeat_interleave(torch.tensor([1, 2]), index(2, 1)), ["torch.repeat_interleave", "-1", "repeats >= 0"]),
    ("Tensor.repeat_interleave output_size", lambda: torch.tensor([1, 2]).repeat_interleave(index(2, 1), output_size=4),
     lambda: torch.tensor([1, 2]).repeat_interleave(index(2, 1), output_size=3), ["output_size == repeats.sum() == 3"]),
]


class Ops(unittest.TestCase):
    def test_every_guarded_op_names_op_value_and_bound_and_leaves_correct_calls_alone(self):
        for name, bad, good, says in CASES:
            with self.subTest(name):
                with self.assertRaises(FirstAssertError) as caught:
                    probed(bad)
                msg = str(caught.exception)
                for s in says:
                    self.assertIn(s, msg)
                for label in ("values: min", "first bad value", "allowed:", "usual cause:", "your line:"):
                    self.assertIn(label, msg)
                # The error points at this file's line that ran the op, not at torch or the probe.
                self.assertIn("test_probe.py:", msg.split("your line:")[1])
                # PyTorch's own CPU message, where it has one, does not state the bound.
                _, own = plain(bad)
                if own is not None:
                    bound = next(s for s in says if "<" in s or "=" in s) if any("<" in s or "=" in s for s in says) else None
                    if bound:
                        self.assertNotIn(bound, str(own))
                want, err = plain(good)
                self.assertIsNone(err, name)
                self.assertTrue(same(probed(good), want), name)

    def test_the_suspect_is_named(self):
        with self.assertRaises(FirstAssertError) as caught:
            F.cross_entropy(logits, index(1, 2, 10, 0))
        self.assertIn("This is the op the report suspected.", str(caught.exception))
        with self.assertRaises(FirstAssertError) as caught:
            F.embedding(index(9), weight)
        self.assertIn("The report suspected another op; this one fails first.", str(caught.exception))

    def test_indices_at_every_boundary_agree_with_pytorch_on_the_cpu(self):
        # The probe refuses exactly what PyTorch's CPU kernels refuse (the CUDA kernels assert on
        # the same values): n and -n-1 always, negatives for the ops that do not wrap them.
        n = 5
        ops = {
            "index_select": lambda i: x45.index_select(1, index(i)),
            "gather": lambda i: x45.gather(1, torch.full((4, 1), i)),
            "scatter": lambda i: x45.clone().scatter_(1, torch.full((4, 1), i), 0.0),
            "scatter_add": lambda i: x45.clone().scatter_add_(1, torch.full((4, 1), i), x45),
            "index_add": lambda i: x45.clone().index_add_(1, index(i), torch.ones(4, 1)),
            "index_copy": lambda i: x45.clone().index_copy_(1, index(i), torch.ones(4, 1)),
            "index_fill": lambda i: x45.clone().index_fill_(1, index(i), 0.0),
            "getitem": lambda i: x45[:, index(i)],
            "setitem": lambda i: x45.clone().__setitem__((slice(None), index(i)), 0.0),
            "embedding": lambda i: F.embedding(index(i), weight[:n]),
            "one_hot": lambda i: F.one_hot(index(i), n),
            "cross_entropy": lambda i: F.cross_entropy(logits[:, :n], torch.full((4,), i)),
        }
        for name, op in ops.items():
            for i in (-n - 1, -n, -1, 0, n - 1, n):
                with self.subTest(op=name, index=i):
                    _, own = plain(lambda: op(i))
                    try:
                        probed(lambda: op(i))
                        ours = None
                    except FirstAssertError as e:
                        ours = e
                    except Exception as e:  # noqa: BLE001 -- PyTorch's own, the probe let it through
                        ours = None
                        self.assertIsNotNone(own, f"the probe changed the call: {e}")
                    self.assertEqual(ours is not None, own is not None, f"PyTorch says: {own}")


class Samples(unittest.TestCase):
    def test_a_label_an_embedding_and_a_bce_case_as_users_see_them(self):
        # Printed for the record (the closing notes quote them); each first line is "op: what".
        for bad in (lambda: nn.CrossEntropyLoss()(logits, index(3, 0, 10, 7)),
                    lambda: nn.Embedding(8, 3)(index(1, 5, 8, 2)),
                    lambda: nn.BCELoss()(torch.tensor([0.3, 1.7, -0.2]), torch.tensor([0.0, 1.0, 1.0]))):
            with self.assertRaises(FirstAssertError) as caught:
                bad()
            msg = str(caught.exception)
            self.assertRegex(msg.splitlines()[0], r"^F\.[a-z_]+: ")
            print("\nFirstAssertError: " + msg, file=sys.stderr)


class Fresh(unittest.TestCase):
    def test_it_sets_launch_blocking_before_torch_and_says_it_is_on(self):
        out, err = run_python(CODE, "import os; print(os.environ['CUDA_LAUNCH_BLOCKING'])")
        self.assertEqual(out.strip(), "1")
        self.assertIn("first-assert probe on", err)
        self.assertNotIn("imported before", err)

    def test_it_warns_when_torch_came_first(self):
        _, err = run_python("import torch\n" + CODE, "")
        self.assertIn("torch was imported before this cell", err)

    def test_one_call_turns_it_off_and_running_it_twice_keeps_one(self):
        script = (
            "import torch.nn.functional as F\n"
            "try:\n"
            "    F.one_hot(torch.tensor([3]), 2)\n"
            "except FirstAssertError:\n"
            "    print('guarded')\n"
            "first_assert_probe.off()\n"
            "try:\n"
            "    F.one_hot(torch.tensor([3]), 2)\n"
            "except FirstAssertError:\n"
            "    print('still guarded')\n"
            "except RuntimeError:\n"
            "    print('pytorch')\n"
            "from torch.overrides import _get_current_function_mode_stack as stack\n"
            "print('modes', len(stack()))\n"
        )
        out, err = run_python(CODE + "\n" + CODE, script)
        self.assertEqual(out.split(), ["guarded", "pytorch", "modes", "0"], err)
        self.assertIn("first-assert probe off.", err)

    def test_as_sitecustomize_on_pythonpath_it_runs_in_every_worker_of_a_launch(self):
        # What the steps tell a multi-process launch or a server: every worker runs the probe,
        # and the one that gets the bad value stops at its line.
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "sitecustomize.py"), "w", encoding="utf-8") as f:
                f.write(CODE)
            main = os.path.join(d, "launch.py")
            with open(main, "w", encoding="utf-8") as f:
                f.write("import torch, torch.multiprocessing as mp, torch.nn.functional as F\n"
                        "def work(rank):\n"
                        "    labels = torch.tensor([0, 1, 5]) if rank == 1 else torch.tensor([0, 1, 2])\n"
                        "    F.cross_entropy(torch.zeros(3, 3), labels)\n"
                        "    print('rank', rank, 'ok', flush=True)\n"
                        "if __name__ == '__main__':\n"
                        "    mp.spawn(work, nprocs=2)\n")
            env = {k: v for k, v in os.environ.items() if k != "CUDA_LAUNCH_BLOCKING"}
            env["PYTHONPATH"] = d
            done = subprocess.run([sys.executable, main], capture_output=True, env=env, timeout=300, cwd=d)
        out, err = done.stdout.decode(), done.stderr.decode()
        self.assertIn("rank 0 ok", out, err)
        self.assertNotIn("rank 1 ok", out)
        self.assertIn("FirstAssertError: F.cross_entropy: target out of range", err)
        self.assertGreaterEqual(err.count("first-assert probe on"), 3, "the launcher and both workers")

    def test_the_chinese_probe_speaks_chinese(self):
        script = "import torch.nn.functional as F\nF.one_hot(torch.tensor([3]), 2)\n"
        _, err = run_python(probe_code(LABEL_LOG, "zh"), script)
        self.assertIn("FirstAssertError: F.one_hot: value 超出范围。", err)
        self.assertIn("常见原因", err)
        self.assertIn("报告怀疑的是另一个操作", err)


# The op that trips each probe group (in a fresh interpreter, after the probe).
TRIP = {
    "loss": "torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 3]))",
    "embedding": "torch.nn.Embedding(4, 2)(torch.tensor([4]))",
    "embedding_bag": "torch.nn.EmbeddingBag(4, 2)(torch.tensor([1, 2, 3]), torch.tensor([0, 2, 1]))",
    "index": "torch.zeros(3)[torch.tensor([3])]",
    "one_hot": "torch.nn.functional.one_hot(torch.tensor([2]), 2)",
    "bce": "torch.nn.functional.binary_cross_entropy(torch.tensor([2.0]), torch.tensor([1.0]))",
    "multinomial": "torch.multinomial(torch.tensor([float('nan'), 1.0]), 1)",
    "bernoulli": "torch.bernoulli(torch.tensor([3.0]))",
    "repeat_interleave": "torch.repeat_interleave(torch.tensor([-1]))",
}


class Causes(unittest.TestCase):
    def test_the_probe_of_each_cause_suspects_its_ops_and_catches_them(self):
        # One rule per cause category, from the rules' own examples.
        seen = {}
        for path in sorted((ROOT / "rules").glob("*.toml")):
            rule = tomllib.loads(path.read_text(encoding="utf-8"))
            if rule.get("example") and rule["category"] not in seen:
                seen[rule["category"]] = rule
        self.assertGreaterEqual(len(seen), 6, sorted(seen))
        for category, rule in seen.items():
            with self.subTest(category=category, rule=rule["id"]):
                code = probe_code(rule["example"][0]["text"])
                line = next(l for l in code.splitlines() if l.startswith("_SUSPECTS = "))
                suspects = ast.literal_eval(line.split(" = ", 1)[1])
                # The rule's groups; a rule with none borrows a candidate's (or suspects nothing).
                if rule.get("probe"):
                    self.assertEqual(suspects, tuple(rule["probe"]))
                self.assertTrue(set(suspects) <= set(TRIP), suspects)
                trip = TRIP[suspects[0]] if suspects else TRIP["loss"]
                script = "try:\n    %s\nexcept FirstAssertError as e:\n    print(e)\n" % trip
                out, err = run_python(code, script)
                self.assertIn("allowed:", out, err)
                if suspects:
                    self.assertIn("This is the op the report suspected.", out)
                else:
                    self.assertNotIn("suspected", out)

    def test_every_group_has_a_trip_and_the_probe_knows_every_group(self):
        self.assertEqual(set(TRIP), set(NS["_GROUPS"]))


# The closed loop: the probe's error, and PyTorch's own on the CPU, read back by the engine.
# The category each op's bad input belongs to (what the op checks, not what the engine says).
CATEGORY = {
    "F.cross_entropy": "invalid_label", "F.nll_loss": "invalid_label", "F.one_hot": "invalid_label",
    "F.embedding": "index_out_of_bounds", "index_select": "index_out_of_bounds", "gather": "index_out_of_bounds",
    "scatter": "index_out_of_bounds", "scatter_add": "index_out_of_bounds", "scatter_reduce": "index_out_of_bounds",
    "index_add": "index_out_of_bounds", "index_copy": "index_out_of_bounds", "index_fill": "index_out_of_bounds",
    "torch.take": "index_out_of_bounds", "tensor[index]": "index_out_of_bounds",
    "F.binary_cross_entropy": "invalid_value", "torch.multinomial": "invalid_value", "torch.bernoulli": "invalid_value",
}


def report(text, lang="en"):
    """The CLI's JSON report on `text` (as a pasted output), and its exit status."""
    done = subprocess.run([BIN, "--json", "--lang", lang, "-"], input=text.encode(), capture_output=True)
    return json.loads(done.stdout), done.returncode


def printed(e):
    """The traceback Python prints for `e`, as a user would paste it."""
    return "".join(traceback.format_exception(e))


def category_of(op, allowed):
    if op == "F.embedding_bag":
        return "invalid_value" if "offsets" in allowed else "index_out_of_bounds"
    if op == "torch.repeat_interleave":
        return "shape_mismatch" if "output_size" in allowed else "invalid_value"
    return CATEGORY[op]


class Confirm(unittest.TestCase):
    def test_the_probes_error_for_every_op_is_the_confirmed_cause_with_value_bound_and_line(self):
        for name, bad, _good, says in CASES:
            with self.subTest(name=name):
                with self.assertRaises(FirstAssertError) as caught:
                    probed(bad)
                text = printed(caught.exception)
                r, code = report("first-assert probe on: the inputs are checked.\n" + text)
                self.assertEqual((r["verdict"], code), ("confirmed", 1), r["headline"])
                c = r["confirmation"]
                self.assertEqual(c["source"], "probe")
                self.assertEqual(c["op"], says[0] if says[0] in CATEGORY or says[0].startswith(("F.", "torch.")) else c["op"])
                self.assertEqual(r["cause"]["category"], category_of(c["op"], c["allowed"] or ""), c)
                self.assertEqual((r["cause"]["basis"], r["cause"]["confidence"]), ("confirmed", 1.0))
                # The value and the bound, as the probe printed them.
                self.assertIn("  allowed: " + c["allowed"], text)
                self.assertIn(c["value"], text)
                self.assertTrue(c["line"].startswith(__file__), c["line"])
                self.assertIn(c["value"], r["headline"])
                self.assertTrue(r["headline"].startswith("Confirmed by the probe: "), r["headline"])
                done = {s["id"]: s["done"] for s in r["checklist"]}
                self.assertEqual(done, {"restart": True, "launch_blocking": True, "probe": True, "rerun": True,
                                        "fix": False, "restart_again": False, "remove_probe": False})

    def test_the_chinese_probes_error_is_read_too(self):
        code = probe_code(LABEL_LOG, "zh")
        for group, trip in TRIP.items():
            with self.subTest(group=group):
                out, err = run_python(code, trip)
                r, status = report(err, "zh")
                self.assertEqual((r["verdict"], status), ("confirmed", 1), err)
                c = r["confirmation"]
                self.assertIn("允许: " + c["allowed"], err)
                self.assertIn(c["value"], err)
                self.assertTrue(r["headline"].startswith("探针已确认："), r["headline"])

    def test_pytorchs_own_cpu_errors_are_confirmations_of_the_same_cause(self):
        # Every guarded op's bad call, run bare on the CPU: PyTorch's message, read back.
        seen = set()
        # Bag offsets the cases do not trip: a first bag not at 0, a last one past the input.
        bag = lambda offsets: (lambda: F.embedding_bag(index(0, 1, 2, 3), weight, index(*offsets)))
        for name, bad, _good, says in CASES + [("bag offsets[0]", bag((1, 2)), None, None), ("bag offsets[-1]", bag((0, 9)), None, None)]:
            _, e = plain(bad)
            if e is None:
                continue
            with self.subTest(name=name, error=str(e)[:80]):
                r, code = report(printed(e))
                self.assertEqual(r["verdict"], "confirmed", r["headline"])
                seen.add(str(e))
                self.assertEqual(code, 1)
                self.assertEqual(r["confirmation"]["source"], "cpu")
                # The op, as the probe names it for the same call.
                try:
                    probed(bad)
                except FirstAssertError as p:
                    op = str(p).split(":", 1)[0]
                    allowed = next(line for line in str(p).splitlines() if line.startswith("  allowed: "))
                want = category_of(op, allowed)
                self.assertEqual(r["cause"]["category"], want, r["headline"])
                self.assertTrue(r["headline"].startswith("Confirmed on the CPU"), r["headline"])
                value = r["confirmation"]["value"]
                if value is not None:
                    self.assertIn(value, str(e))
        # Every CPU form the rules read (their [[confirm.cpu]]), each met at least once, but those
        # only PyTorch before 2 printed.
        forms = cpu_forms()
        self.assertGreaterEqual(len(forms), 15)
        for form in forms:
            self.assertTrue(any(form in s for s in seen), (form, sorted(seen)))


# A kernel record as the CUDA runtime writes it to fd 2 (our own line).
RECORD = ("/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: "
          "block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.\n")

# A cell that writes the record to fd 2 from C (libc's write) and from a thread, then gives the
# probe's reader a moment, and says what fd 2 is.
WRITE_CELL = """
import ctypes, os, threading, time
line = %r.encode()
ctypes.CDLL(None).write(2, line, len(line))
t = threading.Thread(target=lambda: os.write(2, line.replace(b"thread: [3,0,0]", b"thread: [4,0,0]")))
t.start(); t.join()
time.sleep(0.5)
print(os.fstat(2).st_ino, [th.name for th in threading.enumerate() if th.name == "first-assert-fd2"])
""" % RECORD


class Kernel(unittest.TestCase):
    """The probe in a real ipykernel, started as Colab's runs (capture_fd_output=False) and as
    stock Jupyter's (capturing fd 2), driven through jupyter_client."""

    def kernel(self, capture, log=None):
        from jupyter_client.manager import start_new_kernel

        args = [] if capture else ["--IPKernelApp.capture_fd_output=False"]
        # The kernel process's own fd 2 (Colab's runtime log) is not this test's output, unless
        # `log` (a file) is to keep it.
        km, kc = start_new_kernel(kernel_name="python3", extra_arguments=args, stderr=log or subprocess.DEVNULL)
        self.addCleanup(km.shutdown_kernel, now=True)
        self.addCleanup(kc.stop_channels)
        return kc

    def run_cell(self, kc, code):
        """Runs `code`; its stdout and stderr (an error fails the test)."""
        out = {"stdout": "", "stderr": ""}
        for o in self.notebook_cell(kc, code)["outputs"]:
            if o["output_type"] == "error":
                self.fail("\n".join(o["traceback"]))
            out[o["name"]] += o["text"]
        return out

    def test_where_the_kernel_drops_fd_2_the_probe_brings_the_kernels_lines_into_the_cell(self):
        kc = self.kernel(capture=False)
        before = self.run_cell(kc, "import os; print(os.fstat(2).st_ino)")["stdout"].split()[0]
        self.assertNotIn("Assertion", self.run_cell(kc, WRITE_CELL)["stderr"], "Colab's kernel drops fd 2")
        self.run_cell(kc, probe_code(LABEL_LOG))
        on = self.run_cell(kc, WRITE_CELL)
        self.assertIn(RECORD, on["stderr"])
        self.assertIn(RECORD.replace("[3,0,0]", "[4,0,0]"), on["stderr"])
        self.assertIn("['first-assert-fd2']", on["stdout"])
        # The cell's output, read by the engine: the kernel's own line, the exact op.
        r, code = report(on["stderr"] + "RuntimeError: CUDA error: device-side assert triggered\n")
        self.assertEqual((r["verdict"], r["first_assert"]["kind"], r["cause"]["basis"]), ("device_assert", "kernel_assert", "stated"))
        self.run_cell(kc, "first_assert_probe.off()")
        off = self.run_cell(kc, WRITE_CELL)
        self.assertNotIn("Assertion", off["stderr"])
        self.assertEqual(off["stdout"].split()[0], before, "fd 2 is the original again")
        self.assertIn("[]", off["stdout"], "the reader thread ended")

    def notebook_cell(self, kc, code, timeout=120):
        """Runs `code` and returns it as a notebook's code cell: its execution count and its
        outputs as nbformat keeps them (the error's traceback as IPython colours it)."""
        msg_id = kc.execute(code)
        cell = {"cell_type": "code", "metadata": {}, "source": code, "execution_count": None, "outputs": []}
        while True:
            msg = kc.get_iopub_msg(timeout=timeout)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "execute_input":
                cell["execution_count"] = content["execution_count"]
            elif kind == "stream":
                cell["outputs"].append({"output_type": "stream", "name": content["name"], "text": content["text"]})
            elif kind == "error":
                cell["outputs"].append({"output_type": "error", **{k: content[k] for k in ("ename", "evalue", "traceback")}})
            elif kind == "status" and content["execution_state"] == "idle":
                return cell

    def test_a_notebook_after_the_rerun_is_confirmed_and_the_errors_from_before_are_superseded(self):
        # The restarted kernel runs the probe first, then the user's cells; the bad label is
        # caught. The notebook still shows two cells from the run before the restart.
        kc = self.kernel(capture=False)
        probe = self.notebook_cell(kc, probe_code(LABEL_LOG))
        setup = self.notebook_cell(kc, "import torch, torch.nn.functional as F\nlogits = torch.zeros(4, 3)\nlabels = torch.tensor([0, 1, 3, 2])\nprint('ready')")
        train = self.notebook_cell(kc, "loss = F.cross_entropy(logits, labels)")
        self.assertEqual([c["execution_count"] for c in (probe, setup, train)], [1, 2, 3])
        self.assertEqual(train["outputs"][-1]["ename"], "FirstAssertError")
        cuda = "CUDA error: device-side assert triggered"
        old = lambda n, src: {"cell_type": "code", "metadata": {}, "source": src, "execution_count": n, "outputs": [
            {"output_type": "error", "ename": "RuntimeError", "evalue": cuda, "traceback": ["RuntimeError: " + cuda]}]}
        cells = [probe, setup, train, old(14, "evaluate(model)"), old(15, "torch.save(model, 'm.pt')")]
        nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}
        for lang, probed in (("en", "The probe cell ran at [1]"), ("zh", "探针单元格在 [1] 运行")):
            r, code = report(json.dumps(nb), lang)
            self.assertEqual((r["verdict"], code), ("confirmed", 1))
            c = r["confirmation"]
            self.assertEqual((c["source"], c["op"], c["value"], c["allowed"]), ("probe", "F.cross_entropy", "3", "0 <= target < 3 or target == -100 (ignore_index)"))
            self.assertIn("loss = F.cross_entropy(logits, labels)", c["line"])
            self.assertEqual(r["cause"]["evidence"][0]["cell"], 2, "the error's place is the training cell")
            self.assertEqual(r["input"]["superseded_cells"], [3, 4])
            self.assertEqual((r["first_assert"], r["echo_count"]), (None, 0))
            self.assertIn(probed, next(n["text"] for n in r["notes"] if n["id"] == "superseded"))
            print(f"\n  rerun notebook ({lang}): {r['headline']}", file=sys.stderr)

    # The forwarding of fd 2 cannot hang the kernel, and loses nothing (issue: a writer holding
    # the GIL past the pipe's size hung the cell; forked workers held off() 2 s and kept its
    # thread; a kernel's last words before it died reached neither the cell nor its log).

    def test_a_write_of_2_mib_that_holds_the_gil_does_not_hang_the_cell(self):
        kc = self.kernel(capture=False)
        self.run_cell(kc, probe_code(LABEL_LOG))
        code = "import ctypes\nb = b'x' * (2 << 20) + b'\\n'\nctypes.PyDLL(None).write(2, b, len(b))\nimport time; time.sleep(0.5)\nprint('written')"
        cell = self.notebook_cell(kc, code, timeout=30)
        out = "".join(o.get("text", "") for o in cell["outputs"] if o.get("name") == "stdout")
        err = "".join(o.get("text", "") for o in cell["outputs"] if o.get("name") == "stderr")
        self.assertIn("written", out)
        self.assertEqual(err.count("x"), 2 << 20, "every byte reached the cell")

    def test_forked_workers_holding_fd_2_do_not_hold_off(self):
        kc = self.kernel(capture=False)
        before = self.run_cell(kc, "import os; print(os.fstat(2).st_ino)")["stdout"].split()[0]
        self.run_cell(kc, probe_code(LABEL_LOG))
        code = (
            "import os, time, threading\n"
            "pid = os.fork()\n"
            "if pid == 0:\n    time.sleep(4); os.write(2, b'worker done\\n'); os._exit(0)\n"
            "t = time.monotonic(); first_assert_probe.off(); took = time.monotonic() - t\n"
            "print(round(took, 3), os.fstat(2).st_ino, [th.name for th in threading.enumerate() if th.name == 'first-assert-fd2'])"
        )
        took, ino, threads = self.run_cell(kc, code)["stdout"].split(maxsplit=2)
        self.assertLess(float(took), 0.5, "off() returns at once")
        self.assertEqual(ino, before, "fd 2 is the original again")
        self.assertEqual(threads.strip(), "[]", "no reader thread left")

    def test_a_character_split_by_off_is_whole_in_the_log_and_shown_in_the_cell(self):
        # Its first bytes go through the pipe, the rest straight to fd 2 once off() restored it.
        with tempfile.NamedTemporaryFile("w+b") as log:
            kc = self.kernel(capture=False, log=log)
            self.run_cell(kc, probe_code(LABEL_LOG))
            word = "断言失败 end\n".encode()
            code = f"import os\nw = {word!r}\nos.write(2, w[:2])\nfirst_assert_probe.off()\nos.write(2, w[2:])"
            err = self.run_cell(kc, code)["stderr"]
            self.assertIn("\ufffd", err, "the cell shows the piece it got, not nothing")
            self.assertIn(word, open(log.name, "rb").read(), "every byte reached the kernel's log, in order")

    def test_the_last_words_of_a_kernel_that_dies_reach_its_log(self):
        with tempfile.NamedTemporaryFile("w+b") as log:
            kc = self.kernel(capture=False, log=log)
            self.run_cell(kc, probe_code(LABEL_LOG))
            kc.execute("import os\nos.write(2, %r)\nos.abort()" % RECORD.encode())
            for _ in range(50):
                time.sleep(0.1)
                if RECORD.encode() in open(log.name, "rb").read():
                    break
            self.assertIn(RECORD.encode(), open(log.name, "rb").read(), "the kernel's log keeps its last line")

    def test_where_the_kernel_shows_fd_2_the_probe_leaves_it_alone(self):
        kc = self.kernel(capture=True)
        self.run_cell(kc, probe_code(LABEL_LOG))
        out = self.run_cell(kc, WRITE_CELL)
        self.assertIn("[]", out["stdout"], "no reader of the probe's")
        self.assertIn(RECORD, out["stderr"], "the kernel's own capture shows it")


if __name__ == "__main__":
    unittest.main(verbosity=1)
