import os
import sys


class _Fd:
    # A C-level output stream, fd 2 or fd 1, brought into a notebook cell: the CUDA runtime
    # writes the kernel's "Assertion ... failed" lines to fd 2, and a device's printf (PyTorch's
    # "[CUDA_KERNEL_ASSERT] ..." value lines, Triton's device_print) to fd 1. The Python package
    # and the probe cell share this code.
    #
    # The fd becomes a pipe (1 MiB where the OS allows: a device's printf buffer is 1 MiB) whose
    # reader is a small helper process, not a thread of this one: it writes every byte on to the
    # original fd at once (the runtime log keeps what it kept before, and the last words of a
    # kernel that dies) and to a copy file. So a writer never waits on this process's GIL, and a
    # fork that still holds the pipe is drained by the helper. In this process a thread reads the
    # copy into the cell's stream when `show` (the kernel does not show the fd itself), and
    # `text()` is what the fd printed since on().
    def __init__(self, fd=2):
        self.fd = fd
        self.saved = None
        self.copy = None
        self.helper = None
        self.thread = None
        self.stop = None
        # The cell the output belongs to (the kernel's message header), when a caller says it:
        # ipykernel 7 files a thread's output under no cell unless told.
        self.parent = None

    def stream(self):
        # The kernel's own stream for this fd (sys.stdout for 1, sys.stderr for 2).
        return sys.stdout if self.fd == 1 else sys.stderr

    @staticmethod
    def kernel_drops(fd=2):
        # A kernel's own stream whose fileno() raises: ipykernel without fd capture (Colab's).
        stream = sys.stdout if fd == 1 else sys.stderr
        if not type(stream).__module__.startswith("ipykernel"):
            return False
        try:
            stream.fileno()
            return False
        except Exception:
            return True

    def on(self, show=True):
        if self.saved is not None:
            return
        import subprocess
        import tempfile
        import threading

        r, w = os.pipe()
        try:
            import fcntl

            fcntl.fcntl(w, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
        except Exception:
            pass  # the OS's default size
        self.copy = tempfile.TemporaryFile(prefix="first-assert-fd%d-" % self.fd)
        cf = self.copy.fileno()
        pump = (
            "import os,sys\n"
            "c=int(sys.argv[1])\n"
            "def put(fd,b):\n"
            " while b:\n"
            "  try:\n"
            "   b=b[os.write(fd,b):]\n"
            "  except InterruptedError:\n"
            "   pass\n"
            "  except OSError:\n"
            "   return\n"
            "while True:\n"
            " b=os.read(0,1<<20)\n"
            " if not b:\n"
            "  break\n"
            " put(1,b)\n"
            " put(c,b)\n"
        )
        self.saved = os.dup(self.fd)
        try:
            self.helper = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", pump, str(cf)],
                stdin=r, stdout=self.saved, stderr=subprocess.DEVNULL, pass_fds=(cf,),
                close_fds=True, start_new_session=True,
            )
        except Exception:
            os.close(r)
            os.close(w)
            os.close(self.saved)
            self.saved = None
            self.copy.close()
            self.copy = None
            return
        os.close(r)
        os.dup2(w, self.fd)
        os.close(w)
        self.stop = threading.Event()
        if show:
            name = "first-assert-fd%d" % self.fd
            self.thread = threading.Thread(target=self._show, args=(self.stream(),), name=name, daemon=True)
            self.thread.start()

    def _read(self, at):
        # The copy's bytes from `at` on.
        out = b""
        while True:
            b = os.pread(self.copy.fileno(), 1 << 20, at + len(out))
            if not b:
                return out
            out += b

    def _show(self, stream):
        import codecs

        text = codecs.getincrementaldecoder("utf-8")("replace")
        at = 0
        while True:
            last = self.stop.wait(0.05)
            b = self._read(at)
            at += len(b)
            s = text.decode(b, final=last)
            if s:
                try:
                    if self.parent is not None:
                        stream.parent_header = self.parent
                    stream.write(s)
                    stream.flush()
                except Exception:
                    pass
            if last:
                return

    def text(self, since=0):
        # What the fd printed since byte `since` of the copy (decoded), and where it ends.
        if self.copy is None:
            return "", since
        b = self._read(since)
        return b.decode("utf-8", "replace"), since + len(b)

    def pending(self):
        # Bytes written into the pipe that the helper has not read yet.
        if self.saved is None:
            return 0
        try:
            import fcntl
            import struct
            import termios

            return struct.unpack("i", fcntl.ioctl(self.fd, termios.FIONREAD, b"\0\0\0\0"))[0]
        except OSError:
            return 0

    def off(self):
        if self.saved is None:
            return
        os.dup2(self.saved, self.fd)  # this process no longer writes into the pipe
        os.close(self.saved)
        self.saved = None
        # What was written before this moment is in the pipe: the helper drains it in
        # milliseconds, then ends (unless a fork still holds the pipe: it then goes on to the
        # runtime log alone, and this returns without it).
        try:
            self.helper.wait(timeout=0.2)
        except Exception:
            pass
        self.stop.set()
        if self.thread is not None:
            self.thread.join()
            self.thread = None
        self.copy.close()
        self.copy = None
        self.helper = None
