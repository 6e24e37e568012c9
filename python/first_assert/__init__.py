"""first-assert: finds the first CUDA device-side assert in PyTorch output, explains its most
likely cause and gives the restart-and-isolate steps.

The engine is the same as the ``first-assert`` command's and the web page's (Rust, compiled
into this package): nothing runs in a subprocess and nothing leaves the machine. In a notebook,
``%load_ext first_assert`` shows the answer under a cell that fails with a CUDA error (and, loaded
after the error, at once, from what the session already holds).

    >>> import first_assert
    >>> report = first_assert.analyze_file("train.log")   # or analyze(text or bytes)
    >>> report["verdict"]
    'device_assert'
    >>> print(first_assert.render(report, "text"))
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional, Union

from . import _engine

__all__ = ["analyze", "analyze_file", "render", "load_ipython_extension", "unload_ipython_extension", "__version__"]
__version__: str = _engine.version()

Report = Dict[str, Any]


def analyze(
    text: Union[str, bytes, "os.PathLike[str]"],
    lang: str = "en",
    *,
    runtime_log: Optional[str] = None,
    host: Optional[str] = None,
) -> Report:
    """The report of a log or a notebook (the ``--json`` contract of the command, as a dict).

    ``text`` is the output's text (``str``) or its bytes; an ``os.PathLike`` (``pathlib.Path``)
    is read as a file, as :func:`analyze_file` reads it. A ``str`` is always text, never a file
    name: ``analyze(open("train.log").read())`` or ``analyze_file("train.log")``.
    ``lang`` is ``"en"`` or ``"zh"``; ``runtime_log`` the kernel's own log read beside it
    (Colab's Runtime > View runtime logs); ``host`` ``"colab"`` when the output was read there.
    Raises ``ValueError`` for input that is no log or notebook (an archive, a broken notebook).
    """
    if isinstance(text, os.PathLike):
        return analyze_file(text, lang, runtime_log=runtime_log, host=host)
    if isinstance(text, str):
        data = text.encode("utf-8", "surrogatepass")
    elif isinstance(text, (bytes, bytearray, memoryview)):
        data = bytes(text)
    else:
        raise TypeError(f"analyze() takes text (str) or bytes, or a path as os.PathLike, not {type(text).__name__}")
    return json.loads(_engine.analyze(data, None, lang, runtime_log, host))


def analyze_file(
    path: Union[str, "os.PathLike[str]"],
    lang: str = "en",
    *,
    runtime_log: Optional[str] = None,
    host: Optional[str] = None,
) -> Report:
    """The report of a log or a notebook (``.ipynb``) file. Raises ``FileNotFoundError`` when
    there is no such file, and ``ValueError`` when it is no log or notebook."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    return json.loads(_engine.analyze(data, os.path.basename(path), lang, runtime_log, host))


def render(report: Report, format: str = "text") -> str:
    """A report written as ``"text"`` (the command's report, without colour), ``"markdown"``
    (to paste into an issue or a forum post; personal data hidden), ``"html"`` (the card the
    notebook extension shows: self-contained, every text from the output escaped) or ``"card"``
    (the card's plain-text twin)."""
    return _engine.render(json.dumps(report), format)


def load_ipython_extension(ip: Any) -> None:
    """``%load_ext first_assert``: the answer under a cell that fails with a CUDA error."""
    from . import _kernel

    _kernel.load(ip)


def unload_ipython_extension(ip: Any) -> None:
    """``%unload_ext first_assert``: fd 2 as it was, no answer under cells."""
    from . import _kernel

    _kernel.unload(ip)
