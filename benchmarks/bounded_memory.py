"""Peak memory of `strata run` fed something huge: an instruction URL with a 500 MB body, attached images.

Each scenario runs the installed `strata` once per run in a fresh git project and home, against the scripted
model server (one short answer), and reads the peak RSS of the process with `wait4`. The URL server streams
its body in 64 KB chunks without a declared length, so only a reader that stops at its cap stays small. The
images are a 100 MB PNG (refused by size, unread), an 8000x6000 JPEG (decoded at reduced scale and
downscaled) and a 3840x2160 PNG (a 4K screenshot, decoded whole to be downscaled).

    uv run python -m benchmarks --only bounded_memory
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from benchmarks import common
from benchmarks.common import REPO_ROOT, Result, at_most, clean_env, measure_process, model_server

STRATA = REPO_ROOT / ".venv" / "bin" / "strata"
LIMIT_MIB = 100.0
URL_BODY_BYTES = 500 * 1024 * 1024


class _Endless(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/plain; charset=utf-8")
        self.end_headers()
        chunk, sent = b"rule " * 13107, 0
        try:
            while sent < URL_BODY_BYTES:
                self.wfile.write(chunk)
                sent += len(chunk)
        except OSError:
            pass  # the reader stopped at its cap

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def huge_body_server() -> Iterator[str]:
    with common.loopback_server(_Endless) as port:
        yield f"http://127.0.0.1:{port}/rules.md"


def _huge_png(project: Path) -> Path:
    path = project / "huge.png"
    with path.open("wb") as file:
        file.truncate(100 * 1024 * 1024)
    return path


def _image(project: Path, name: str, size: tuple[int, int], format: str) -> Path:
    # Drawn in a child process: wait4's peak RSS of the measured CLI would otherwise include this process's
    # memory at the time it forked (Linux counts the forked copy before exec).
    path = project / name
    draw = f"from PIL import Image; Image.new('RGB', {size!r}, 'teal').save({str(path)!r}, format={format!r})"
    subprocess.run([sys.executable, "-c", draw], check=True)
    return path


Scenario = Callable[[Path, str], tuple[list[str], dict[str, Any]]]
"""Sets up the project (given the URL server's address): `strata` arguments and extra config."""

SCENARIOS: dict[str, Scenario] = {
    "instruction URL, 500 MB body": lambda project, url: (["run", "say hello"], {"instructions": [url]}),
    "attached 100 MB PNG": lambda project, url: (["run", "-f", str(_huge_png(project)), "describe it"], {}),
    "attached 8000x6000 JPEG": lambda project, url: (
        ["run", "-f", str(_image(project, "photo.jpg", (8000, 6000), "JPEG")), "describe it"],
        {},
    ),
    "attached 3840x2160 PNG": lambda project, url: (
        ["run", "-f", str(_image(project, "screen.png", (3840, 2160), "PNG")), "describe it"],
        {},
    ),
}


def measure(name: str, url: str) -> float:
    with common.fresh_project("strata-bench-memory.") as (project, home):
        arguments, extra = SCENARIOS[name](project, url)
        with model_server([{"text": "Hello."}], project.parent / "server") as server:
            config = common.mock_provider_config(server.port, attachment=True, extra=extra)
            (project / "opencode.json").write_text(config)
            sample = measure_process([str(STRATA), *arguments], cwd=project, env=clean_env(home))
        if sample.returncode != 0:
            raise RuntimeError(f"{name}: strata exited {sample.returncode}: {sample.stderr[-500:]}")
        return sample.peak_rss_mib


def run(quick: bool, runs: int | None = None) -> list[Result]:
    count = runs or (1 if quick else 3)
    results = []
    with huge_body_server() as url:
        for name in SCENARIOS:
            peaks = [measure(name, url) for _ in range(count)]
            results.append(
                Result(name, "peak RSS", "MiB", statistics.median(peaks), target=at_most(LIMIT_MIB), runs=count)
            )
    return results
