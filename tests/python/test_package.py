"""The Python package (make wheel), installed from its wheel: its `first-assert` command prints
the native command's bytes on every input the project has, and its API gives the command's
report. Run by scripts/test-wheel.sh with the wheel installed in the test environment."""

import json
import os
import subprocess
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NATIVE = os.environ.get("FIRST_ASSERT_BIN", str(ROOT / "target/release/first-assert"))
# The package's command, beside this interpreter.
PACKAGED = str(Path(sys.executable).parent / "first-assert")

import first_assert  # noqa: E402


def inputs():
    files = [p for d in ("tests/cases", "www/demo") for p in sorted((ROOT / d).iterdir())]
    return [p for p in files if p.is_file() and not p.name.endswith(".expect.json")]


def run(cmd, *args, stdin=None):
    env = {**os.environ, "NO_COLOR": "1", "LANG": "C.UTF-8"}
    done = subprocess.run([*cmd, *args], input=stdin, capture_output=True, env=env)
    return done.returncode, done.stdout, done.stderr


class Command(unittest.TestCase):
    def test_the_packages_command_prints_the_native_commands_bytes_on_every_input(self):
        compared = 0
        for path in inputs():
            for lang in ("en", "zh"):
                for fmt in (["--json"], ["--format", "markdown"], [], ["--probe"]):
                    args = [*fmt, "--lang", lang, str(path)]
                    want = run([NATIVE], *args)
                    got = run([PACKAGED], *args)
                    self.assertEqual(got, want, f"{path.name} {' '.join(args[:-1])}")
                    compared += 1
        self.assertGreater(compared, 600)

    def test_python_m_and_stdin_and_errors_are_the_commands(self):
        log = (ROOT / "tests/cases" / "colab-echoes.ipynb").read_bytes()
        for args, stdin in ((["--json", "-"], log), (["--version"], None), (["--bogus"], None), (["/no/such/file"], None)):
            want = run([NATIVE], *args, stdin=stdin)
            self.assertEqual(run([sys.executable, "-m", "first_assert"], *args, stdin=stdin), want, args)
            self.assertEqual(run([PACKAGED], *args, stdin=stdin), want, args)
        self.assertEqual(run([PACKAGED], "--version")[1].decode().split()[-1], first_assert.__version__)


class Api(unittest.TestCase):
    def test_analyze_gives_the_commands_report_for_a_path_text_or_bytes(self):
        compared = 0
        for path in inputs():
            code, out, _ = run([NATIVE], "--json", "--lang", "zh", str(path))
            if code == 2:
                with self.assertRaises(ValueError):
                    first_assert.analyze(path, "zh")
                continue
            want = json.loads(out)
            self.assertEqual(first_assert.analyze(path, "zh"), want, path.name)
            self.assertEqual(first_assert.analyze_file(str(path), "zh"), want, path.name)
            if path.suffix == ".log":
                data = path.read_bytes()
                self.assertEqual(first_assert.analyze(data, "zh"), want, path.name)
                text = data.decode("utf-8", "replace")
                if "\ufffd" not in text and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
                    self.assertEqual(first_assert.analyze(text, "zh")["first_assert"], want["first_assert"], path.name)
            compared += 1
        self.assertGreater(compared, 80)

    def test_render_writes_the_commands_text_and_a_markdown_report(self):
        path = ROOT / "tests/cases" / "colab-echoes.ipynb"
        report = first_assert.analyze(path)
        _, out, _ = run([NATIVE], "-", stdin=path.read_bytes())
        self.assertEqual(first_assert.render(report, "text").rstrip("\n"), out.decode().rstrip("\n"))
        md = first_assert.render(report, "markdown")
        self.assertIn(report["headline"], md)
        with self.assertRaises(ValueError):
            first_assert.render(report, "pdf")

    def test_what_is_no_log_is_a_clear_error(self):
        with tempfile.TemporaryDirectory() as d:
            z = Path(d) / "logs.zip"
            with zipfile.ZipFile(z, "w") as f:
                f.writestr("train.log", "x")
            with self.assertRaises(ValueError) as e:
                first_assert.analyze(z)
            self.assertIn("zip", str(e.exception).lower())
        with self.assertRaises(ValueError):
            first_assert.analyze("RuntimeError: CUDA error: device-side assert triggered\n", lang="fr")
        with self.assertRaises(TypeError):
            first_assert.analyze(42)

    def test_a_str_is_text_and_a_missing_file_is_file_not_found(self):
        # A mistyped file name is not read as a log that has no assert.
        with self.assertRaises(FileNotFoundError):
            first_assert.analyze_file("trian.log")
        with self.assertRaises(FileNotFoundError):
            first_assert.analyze(Path("trian.log"))
        with tempfile.TemporaryDirectory() as d:
            log = Path(d) / "train.log"
            log.write_text("RuntimeError: CUDA error: device-side assert triggered\n")
            self.assertEqual(first_assert.analyze_file(log)["verdict"], "device_assert")
            # The path as a str is text, whatever file it names.
            self.assertEqual(first_assert.analyze(str(log))["verdict"], "clean")

    def test_one_abi3_manylinux_2_17_wheel_per_architecture(self):
        wheels = sorted(w.name for w in (ROOT / "dist/wheels").glob("*.whl"))
        self.assertEqual(len(wheels), 2, wheels)
        for name, arch in zip(wheels, ("aarch64", "x86_64")):
            self.assertRegex(name, r"^first_assert-[\d.]+-cp39-abi3-.*manylinux_2_17_%s\.whl$" % arch)


if __name__ == "__main__":
    unittest.main(verbosity=1)
