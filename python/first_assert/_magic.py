"""``%first_assert on | off | isolate [off] | status | lang en|zh``: the extension's switches and
what it says about itself, in the user's language (every sentence is the engine's, from
``i18n/messages.toml``)."""

import sys

from . import _engine, _kernel
from ._kernel import say


def magic(line):
    s = _kernel._state
    if s is None:
        return
    words = line.split()
    what = words[0] if words else "status"
    if what == "isolate" and words[1:] == ["off"]:
        print(isolate_off(s))
    elif what == "isolate" and len(words) == 1:
        print(isolate(s))
    elif what == "off" and len(words) == 1:
        print(off(s))
    elif what == "on" and len(words) == 1:
        print(on(s))
    elif what == "lang" and len(words) == 2 and words[1] in ("en", "zh"):
        s.lang = words[1]
        print(say("lang", s.lang))
    elif what == "status" and len(words) == 1:
        print(status(s))
    else:
        print(say("usage", s.lang))


def on_line(s):
    """One line: it is on, and what it watches."""
    shown = s.shown()
    if shown:
        kept = say("fds_shown", s.lang, fds=_fds(shown))
    elif any(fd.saved is not None for fd in s.fds):
        kept = say("fds_kept", s.lang)
    else:
        kept = say("fds_none", s.lang)
    return say("on", s.lang, fds=kept)


def _fds(fds):
    return " + ".join("fd %d" % fd for fd in sorted(fds, reverse=True))


def on(s):
    if s.on:
        return say("on_already", s.lang)
    s.on = True
    s.forwarding()
    return on_line(s)


def off(s):
    if not s.on:
        return say("off_already", s.lang)
    ended = _probe(s) is not None
    if ended:
        isolate_off(s)
    s.on = False
    for i, fd in enumerate(s.fds):
        fd.off()
        s.marks[i] = 0
    return say("off", s.lang) + ("" if not ended else " " + say("isolate_ended", s.lang))


def _probe(s):
    """The probe while it is isolating, else None."""
    p = s.ip.user_ns.get("first_assert_probe")
    return p if p is not None and getattr(p, "mode", None) is not None else None


def isolate(s):
    import importlib.util
    import os

    if importlib.util.find_spec("torch") is None:
        return say("isolate_no_torch", s.lang, python=sys.executable)
    torch = sys.modules.get("torch")
    late = torch is not None and _kernel._cuda_started()
    if not late:
        os.environ["CUDA_LAUNCH_BLOCKING"] = "1"
    _compiling(s, True)
    # The probe cell's own code, run as if pasted (one copy of the checks).
    try:
        exec(compile(_engine.probe(s.lang), "<first-assert probe>", "exec"), s.ip.user_ns)
    except ImportError as e:  # torch is there but does not import (a broken install)
        _compiling(s, False)
        return say("isolate_no_torch", s.lang, python=sys.executable + " (" + str(e)[:200] + ")")
    return say("isolate_late" if late else "isolate", s.lang)


def isolate_off(s):
    p = _probe(s)
    if p is None and s.compile_was is None:
        return say("isolate_not_on", s.lang)
    if p is not None:
        p.off()
    _compiling(s, False)
    return say("isolate_off", s.lang)


def _compiling(s, on):
    """torch.compile off while isolating (the probe sees no op inside a compiled graph), and its
    switch as it was after."""
    import os

    dynamo = sys.modules.get("torch._dynamo")
    if not on:
        if s.compile_was is not None:
            if dynamo is not None:
                dynamo.config.disable = s.compile_was
            os.environ.pop("TORCH_COMPILE_DISABLE", None)
        s.compile_was = None
        return
    if s.compile_was is None:
        s.compile_was = bool(dynamo.config.disable) if dynamo is not None else False
    if dynamo is not None:
        dynamo.config.disable = True
    os.environ["TORCH_COMPILE_DISABLE"] = "1"  # read when torch._dynamo is first imported


def status(s):
    """What the extension holds, in plain words: one line each."""
    l = s.lang
    since = len(s.cells) - s.late
    lines = [say("status_on" if s.on else "status_off", l)]
    if s.late:
        lines.append(say("status_read", l, source=say("source_" + s.read, l), n=s.late, since=since))
    else:
        lines.append(say("status_read_since", l, since=since))
    if s.latched:
        lines.append(say("status_first", l, cell=s.latched))
    else:
        lines.append(say("status_first_none", l))
    shown = s.shown()
    if not s.on:
        lines.append(say("status_fds_off", l))
    elif shown:
        lines.append(say("status_fds_shown", l, fds=_fds(shown)))
    elif any(fd.saved is not None for fd in s.fds):
        lines.append(say("status_fds_kept", l))
    else:
        lines.append(say("status_fds_none", l))
    lines.append(say("status_isolating" if _probe(s) is not None else "status_not_isolating", l))
    lines.append(say("status_lang", l))
    return "\n".join(lines)
