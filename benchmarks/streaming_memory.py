"""Peak memory of `strata run` while the model streams a long answer in tiny deltas.

- 1 MB answer in 250,000 deltas: the scripted model server streams 1,000,000 characters 4 at a time
  (about a token per delta, as real models stream), with no pause between deltas.
- endless 100-byte deltas: a model server that never finishes, so the run only ends at the step's output
  limit (`limits.step_output_bytes`, 2 MiB by default): the run must end with that error (exit 1).

Each scenario runs the installed `strata` in a fresh git project and home and reads the peak RSS of the
process with `wait4`; the model servers run outside it. Memory must stay proportional to the text: before
the deltas became append-only events, a 300 KB answer in 100-byte deltas peaked near 500 MB.

    uv run python -m benchmarks --only streaming_memory
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from benchmarks import common
from benchmarks.common import REPO_ROOT, Result, at_most, clean_env, measure_process, model_server

STRATA = REPO_ROOT / ".venv" / "bin" / "strata"
LIMIT_MIB = 100.0
ANSWER_CHARS = 1_000_000
ANSWER_DELTA_CHARS = 4
ENDLESS_DELTA = "w" * 100
EXIT_FAILURE = 1


def _sse(data: Any) -> bytes:
    return f"data: {json.dumps(data)}\n\n".encode()


class _EndlessDeltas(BaseHTTPRequestHandler):
    """Chat-completions text deltas of 100 bytes, forever (a title request gets a short answer)."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            if b"title generator" in body.lower():
                self.wfile.write(_sse({"choices": [{"index": 0, "delta": {"content": "T"}, "finish_reason": "stop"}]}))
                self.wfile.write(b"data: [DONE]\n\n")
                return
            burst = _sse({"choices": [{"index": 0, "delta": {"content": ENDLESS_DELTA}}]}) * 64
            while True:
                self.wfile.write(burst)
        except OSError:
            pass  # the client stopped at its limit

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def _scripted_answer(out: Path) -> Iterator[int]:
    turn = {"text": "w" * ANSWER_CHARS, "chunk_size": ANSWER_DELTA_CHARS}
    with model_server([turn], out) as server:
        yield server.port


Scenario = tuple[Callable[[Path], AbstractContextManager[int]], int]
"""The model server to run (given a directory for its recordings) and the exit status the run must have."""

SCENARIOS: dict[str, Scenario] = {
    f"1 MB answer in {ANSWER_CHARS // ANSWER_DELTA_CHARS:,} deltas": (_scripted_answer, 0),
    "endless 100-byte deltas, to the 2 MiB step output limit": (
        lambda out: common.loopback_server(_EndlessDeltas),
        EXIT_FAILURE,
    ),
}


def measure(name: str) -> float:
    server, expected_exit = SCENARIOS[name]
    with common.fresh_project("strata-bench-stream.") as (project, home), server(project.parent / "server") as port:
        (project / "opencode.json").write_text(common.mock_provider_config(port))
        sample = measure_process(
            [str(STRATA), "run", "write a long answer"], cwd=project, env=clean_env(home), timeout=600
        )
    if sample.returncode != expected_exit:
        raise RuntimeError(f"{name}: strata exited {sample.returncode}: {sample.stderr[-500:]}")
    if expected_exit == 0 and len(sample.stdout.rstrip("\n")) != ANSWER_CHARS:
        raise RuntimeError(f"{name}: the answer printed has {len(sample.stdout)} characters")
    return sample.peak_rss_mib


def run(quick: bool, runs: int | None = None) -> list[Result]:
    count = runs or (1 if quick else 3)
    results = []
    for name in SCENARIOS:
        peaks = [measure(name) for _ in range(count)]
        results.append(Result(name, "peak RSS", "MiB", statistics.median(peaks), target=at_most(LIMIT_MIB), runs=count))
    return results
