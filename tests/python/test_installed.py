"""The Python package as a user installs it, on any platform the release builds (the release
workflow runs this against each wheel before publishing; it needs nothing but the installed
package and this repository's tests/cases): its command and its API agree on every input, and
each input gets the verdict its labels give."""

import json
import os
import subprocess
import sys
import unittest
from pathlib import Path

import first_assert

CASES = Path(__file__).resolve().parents[1] / "cases"


def inputs():
    return [p for p in sorted(CASES.iterdir()) if p.is_file() and not p.name.endswith(".expect.json")]


class Installed(unittest.TestCase):
    def test_the_command_and_the_api_agree_and_give_each_inputs_verdict(self):
        env = {**os.environ, "NO_COLOR": "1", "LANG": "C.UTF-8"}
        checked = 0
        for path in inputs():
            want = json.loads(path.with_name(path.name.rsplit(".", 1)[0] + ".expect.json").read_text(encoding="utf-8"))
            done = subprocess.run([sys.executable, "-m", "first_assert", "--json", str(path)], capture_output=True, env=env)
            if "error" in want:
                self.assertEqual(done.returncode, 2, path.name)
                with self.assertRaises(ValueError):
                    first_assert.analyze_file(path)
                continue
            report = json.loads(done.stdout)
            self.assertEqual(report, first_assert.analyze_file(path), path.name)
            self.assertEqual(report["verdict"], want["verdict"], path.name)
            checked += 1
        self.assertGreater(checked, 80)

    def test_the_card_renders_and_escapes(self):
        r = first_assert.analyze("RuntimeError: CUDA error: device-side assert triggered <script>\n")
        html = first_assert.render(r, "html")
        self.assertIn('data-first-assert-card="device_assert"', html)
        self.assertNotIn("<script", html)
        self.assertIn("%load_ext first_assert", first_assert.render(r, "card"))


if __name__ == "__main__":
    print(f"first-assert {first_assert.__version__} under Python {sys.version.split()[0]} on {sys.platform}", file=sys.stderr)
    unittest.main(verbosity=1)
