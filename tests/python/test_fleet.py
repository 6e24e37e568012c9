"""Fleet triage from Python, as a platform team runs it: first_assert.triage over folders,
triage_arrow over Arrow batches, the Ray Data example (examples/fleet/ray_triage.py, Ray started
on this machine) and the DuckDB recipe of docs/fleet.md, each giving the rows the command line's
`first-assert triage --format jsonl` gives on the same generated fleet (examples/genfleet.rs).
Run by scripts/test-wheel.sh in today's Jupyter environment (pyarrow, ray[data], duckdb)."""

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path

import first_assert

ROOT = Path(__file__).resolve().parents[2]
NATIVE = os.environ.get("FIRST_ASSERT_BIN", str(ROOT / "target/release/first-assert"))
GENFLEET = os.environ.get("FIRST_ASSERT_GENFLEET", str(ROOT / "target/release/examples/genfleet"))
TMP = tempfile.mkdtemp(prefix="first-assert-fleet-")


def fleet(name, jobs, ranks, kb=4, seed=3):
    d = os.path.join(TMP, name)
    if not os.path.isdir(d):
        subprocess.run([GENFLEET, d, str(jobs), str(ranks), "--kb", str(kb), "--seed", str(seed)], check=True, capture_output=True)
    return d


def cli(*args):
    done = subprocess.run([NATIVE, "triage", *args], capture_output=True, env={**os.environ, "LANG": "C.UTF-8"})
    assert done.returncode in (0, 1), done.stderr.decode()
    return done.stdout.decode()


def cli_rows(d):
    return [json.loads(line) for line in cli("--format", "jsonl", d).splitlines()]


class Triage(unittest.TestCase):
    def test_triage_over_folders_gives_the_command_lines_rows(self):
        d = fleet("small", 12, 4)
        want = cli_rows(d)
        self.assertGreater(len(want), 48)
        self.assertEqual(first_assert.triage(d), want)
        self.assertEqual(first_assert.triage([Path(d)], jobs=1), want)
        self.assertEqual(first_assert.triage_table(want), cli("--format", "table", d))

    def test_triage_arrow_takes_a_batch_of_files_and_gives_flat_rows(self):
        import pyarrow as pa

        d = fleet("small", 12, 4)
        paths = sorted(str(p) for p in Path(d).rglob("*") if p.is_file())
        batch = pa.RecordBatch.from_pydict({"path": paths, "bytes": [Path(p).read_bytes() for p in paths]})
        table = first_assert.triage_arrow(batch)
        self.assertEqual([f.name for f in table.schema], [c for c, _ in first_assert.TRIAGE_COLUMNS])
        self.assertEqual(table.num_rows, len(paths))
        self.assertEqual(first_assert.triage_rows(table), cli_rows(d))
        self.assertTrue(any(p.endswith(".gz") for p in paths), "gzipped logs read from their bytes")
        empty = first_assert.triage_arrow(pa.table({"path": pa.array([], pa.string()), "bytes": pa.array([], pa.binary())}))
        self.assertEqual(empty.num_rows, 0)

    def test_the_engine_runs_with_the_gil_released(self):
        d = fleet("large", 60, 8, kb=64)
        done = threading.Event()
        t = threading.Thread(target=lambda: (first_assert.triage(d, jobs=1), done.set()))
        spins = 0
        start = time.monotonic()
        t.start()
        while not done.is_set():
            spins += 1
        t.join()
        took = time.monotonic() - start
        # Held for the whole call, the GIL would leave this loop a few turns at most.
        self.assertGreater(spins, 10_000, f"{spins} turns in {took:.2f} s")
        print(f"\n  {spins} turns of Python beside a {took:.2f} s triage", file=sys.stderr)


class Engines(unittest.TestCase):
    def test_ray_data_example_gives_the_command_lines_rows_and_table(self):
        d = fleet("small", 12, 4)
        out = os.path.join(TMP, "ray-rows.jsonl")
        t = time.monotonic()
        done = subprocess.run([sys.executable, str(ROOT / "examples/fleet/ray_triage.py"), d, "--out", out, "--workers", "2"],
                              capture_output=True, env={**os.environ, "RAY_AUTH_MODE": "disabled"}, timeout=600)
        took = time.monotonic() - t
        self.assertEqual(done.returncode, 1, done.stderr.decode()[-2000:])  # asserts were found
        rows = [json.loads(line) for line in open(out, encoding="utf-8")]
        self.assertEqual(rows, cli_rows(d))
        self.assertEqual(done.stdout.decode(), cli("--format", "table", d))
        print(f"\n  Ray Data (local, 2 CPUs): {len(rows)} files in {took:.1f} s with start-up, rows equal to the CLI's", file=sys.stderr)

    def test_the_duckdb_recipe_in_the_docs_gives_the_command_lines_rows(self):
        import duckdb  # noqa: F401 (the recipe's)

        d = fleet("small", 12, 4)
        doc = (ROOT / "docs/fleet.md").read_text(encoding="utf-8")
        recipe = re.search(r"```python\n(# DuckDB.*?)```", doc, re.S).group(1)
        scope = {}
        exec(compile(recipe.replace("'logs/**'", repr(d + "/**")), "docs/fleet.md", "exec"), scope)
        self.assertEqual(sorted(first_assert.triage_rows(scope["rows"]), key=lambda r: r["path"]), cli_rows(d))
        self.assertTrue(scope["by_cause"], "the recipe's grouped query")


if __name__ == "__main__":
    import pyarrow

    print(f"fleet tests under Python {sys.version.split()[0]}, pyarrow {pyarrow.__version__}", file=sys.stderr)
    unittest.main(verbosity=1)
