"""first-assert: finds the first CUDA device-side assert in PyTorch output, explains its most
likely cause and gives the restart-and-isolate steps.

The engine is the same as the ``first-assert`` command's and the web page's (Rust, compiled
into this package): nothing runs in a subprocess and nothing leaves the machine. In a notebook,
``%load_ext first_assert`` shows the answer under a cell that fails with a CUDA error.

    >>> import first_assert
    >>> report = first_assert.analyze("train.log")   # a path, the text, or bytes
    >>> report["verdict"]
    'device_assert'
    >>> print(first_assert.render(report, "text"))
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional, Union

from . import _engine

__all__ = ["analyze", "render", "load_ipython_extension", "unload_ipython_extension", "__version__"]
__version__: str = _engine.version()

Report = Dict[str, Any]


def _input(text_or_path: Union[str, bytes, "os.PathLike[str]"]) -> "tuple[bytes, Optional[str]]":
    """The bytes to read and the file name, if the argument names a file."""
    if isinstance(text_or_path, (bytes, bytearray, memoryview)):
        return bytes(text_or_path), None
    if isinstance(text_or_path, os.PathLike):
        path = os.fspath(text_or_path)
    elif isinstance(text_or_path, str) and "\n" not in text_or_path and len(text_or_path) < 4096 and os.path.isfile(text_or_path):
        path = text_or_path
    elif isinstance(text_or_path, str):
        return text_or_path.encode("utf-8", "surrogatepass"), None
    else:
        raise TypeError(f"analyze() takes text, bytes or a path, not {type(text_or_path).__name__}")
    with open(path, "rb") as f:
        return f.read(), os.path.basename(path)


def analyze(
    text_or_path: Union[str, bytes, "os.PathLike[str]"],
    lang: str = "en",
    *,
    runtime_log: Optional[str] = None,
    host: Optional[str] = None,
) -> Report:
    """The report of a log or a notebook (the ``--json`` contract of the command, as a dict).

    ``text_or_path`` is a path to a log or an ``.ipynb``, the output's text, or its bytes.
    ``lang`` is ``"en"`` or ``"zh"``; ``runtime_log`` the kernel's own log read beside it
    (Colab's Runtime > View runtime logs); ``host`` ``"colab"`` when the output was read there.
    Raises ``ValueError`` for input that is no log or notebook (an archive, a broken notebook).
    """
    data, name = _input(text_or_path)
    return json.loads(_engine.analyze(data, name, lang, runtime_log, host))


def render(report: Report, format: str = "text") -> str:
    """A report written as ``"text"`` (the command's report, without colour), ``"markdown"``
    (to paste into an issue or a forum post; personal data hidden) or ``"html"`` (the card the
    notebook extension shows: self-contained, every text from the output escaped)."""
    return _engine.render(json.dumps(report), format)


def load_ipython_extension(ip: Any) -> None:
    """``%load_ext first_assert``: the answer under a cell that fails with a CUDA error."""
    from . import _kernel

    _kernel.load(ip)


def unload_ipython_extension(ip: Any) -> None:
    """``%unload_ext first_assert``: fd 2 as it was, no answer under cells."""
    from . import _kernel

    _kernel.unload(ip)
