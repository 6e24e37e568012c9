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

__all__ = ["analyze", "analyze_file", "render", "triage", "triage_arrow", "triage_rows", "triage_table",
           "load_ipython_extension", "unload_ipython_extension", "__version__"]
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


def triage(paths: "Union[str, os.PathLike[str], list]", jobs: Optional[int] = None) -> "list[Report]":
    """The rows of a fleet's logs, as ``first-assert triage --format jsonl`` writes them: one
    dict per file under ``paths`` (files and folders, read recursively; gzipped files read as
    they are; torchrun's error files too), in path order, read on ``jobs`` threads (every core by
    default) with the GIL released. A file that cannot be read is a row with its ``error``."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return json.loads(_engine.triage([os.fspath(p) for p in paths], jobs))


# The flat columns of triage_arrow's table and their Arrow types (signed: Spark has no unsigned).
TRIAGE_COLUMNS = (
    ("path", "string"), ("verdict", "string"), ("line", "int64"), ("first_assert", "string"),
    ("site", "string"), ("category", "string"), ("cause", "string"), ("confidence", "float64"),
    ("rank", "int64"), ("group", "string"), ("error", "string"),
    ("first_rank", "int64"), ("error_time", "int64"),
)


def _flat(row: Report) -> "tuple":
    fa, cause, elastic = row.get("first_assert") or {}, row.get("cause") or {}, row.get("elastic") or {}
    return (row["path"], row["verdict"], fa.get("line"), fa.get("text"), row.get("site"), cause.get("category"),
            cause.get("id"), cause.get("confidence"), row.get("rank"), row["group"], row.get("error"),
            elastic.get("first_rank"), elastic.get("error_time"))


def triage_arrow(batch: Any, jobs: Optional[int] = None) -> Any:
    """Fleet triage for an engine that hands over Arrow batches (Ray Data's ``map_batches(...,
    batch_format="pyarrow")``, Spark's ``mapInArrow``, DuckDB): ``batch`` is a
    ``pyarrow.RecordBatch`` or ``Table`` with ``path`` (string) and ``bytes`` (binary) columns,
    the files' bytes as read (gzipped or not); the result is a ``pyarrow.Table`` of their rows, one
    per file in order, in flat columns (``TRIAGE_COLUMNS``). The engine runs with the GIL
    released. Needs pyarrow (the engines above bring it)."""
    import pyarrow as pa

    paths = batch.column("path").to_pylist()
    data = batch.column("bytes").to_pylist()
    rows = json.loads(_engine.triage_bytes(list(zip(paths, data)), jobs))
    columns = list(zip(*[_flat(r) for r in rows])) if rows else [[] for _ in TRIAGE_COLUMNS]
    schema = pa.schema([(name, getattr(pa, kind)()) for name, kind in TRIAGE_COLUMNS])
    return pa.Table.from_arrays([pa.array(list(c), type=f.type) for c, f in zip(columns, schema)], schema=schema)


def triage_table(rows: "list[Report]", lang: str = "en") -> str:
    """The grouped table of rows (``triage``'s dicts, or ``triage_arrow``'s rows as dicts with
    its flat columns), largest group first, as ``first-assert triage`` prints it."""
    return _engine.triage_table(json.dumps(triage_rows(rows)), lang)


def triage_rows(flat: Any) -> "list[Report]":
    """triage_arrow's rows (its ``pyarrow.Table``, or its rows as dicts) as ``triage``'s nested
    dicts, the objects ``first-assert triage --format jsonl`` writes (nested rows are kept)."""
    if hasattr(flat, "to_pylist"):
        flat = flat.to_pylist()
    return [_nested(r) for r in flat]


def _nested(row: Report) -> Report:
    if "line" not in row:  # a nested row already (a flat one has triage_arrow's columns)
        return row
    fa = {"text": row.get("first_assert"), "line": row.get("line")} if row.get("first_assert") is not None else None
    cause = ({"category": row.get("category"), "id": row.get("cause"), "confidence": row.get("confidence")}
             if row.get("cause") is not None else None)
    elastic = ({"first_rank": row.get("first_rank"), "ties": [], "error_time": row.get("error_time")}
               if row.get("error_time") is not None or row.get("first_rank") is not None else None)
    return {"path": row["path"], "verdict": row["verdict"], "first_assert": fa, "site": row.get("site"), "cause": cause,
            "rank": row.get("rank"), "group": row["group"], "error": row.get("error"), "elastic": elastic}


def load_ipython_extension(ip: Any) -> None:
    """``%load_ext first_assert``: the answer under a cell that fails with a CUDA error."""
    from . import _kernel

    _kernel.load(ip)


def unload_ipython_extension(ip: Any) -> None:
    """``%unload_ext first_assert``: fd 2 as it was, no answer under cells."""
    from . import _kernel

    _kernel.unload(ip)
