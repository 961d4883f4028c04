"""`strata run "say hello"` on a catalogue provider (anthropic, configured only by `baseURL` and key), from two
source trees: with a fresh cache dir every run (the first run after an install, which parses models.dev's data
and keeps each provider's part) and with a kept one (every run after that).

    git archive main packages prompts | (mkdir -p /tmp/before && tar -x -C /tmp/before)
    uv run python -m benchmarks.catalog_startup /tmp/before --runs 8

Not part of `python -m benchmarks`: like `source_ab`, it compares code. The side-by-side fixture configures a
provider of its own, which never reads the catalogue's data; this one measures the path that does.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from strata_providers.testing import ScriptedServer

PACKAGES = ("core", "providers", "cli")


def run_once(tree: Path, project: Path, home: Path) -> tuple[float, float, float]:
    """Wall and CPU seconds and peak RSS (MiB) of one `strata run "say hello"` importing `tree`'s packages."""
    path = os.pathsep.join(str(tree / "packages" / package / "src") for package in PACKAGES)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "STRATA_LOCAL_SERVERS": "off", "PYTHONPATH": path}
    command = [sys.executable, "-c", "from strata_cli.main import main; main()", "run", "say hello"]
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"strata run failed (status {status}) with the packages of {tree}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("before", type=Path, help="an exported source tree (with packages/ and prompts/)")
    parser.add_argument("--runs", type=int, default=8)
    args = parser.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": Path(__file__).resolve().parent.parent}
    print(f"load average at the start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    with ScriptedServer([{"text": "Hi."}] * (4 * args.runs + 4)) as server, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        provider = {"options": {"baseURL": f"http://127.0.0.1:{server.port}/v1", "apiKey": "x"}}
        config = {"provider": {"anthropic": provider}, "model": "anthropic/claude-sonnet-4-5"}
        (project / "opencode.json").write_text(json.dumps(config))
        for name, tree in trees.items():
            kept = root / f"kept-{name}"
            kept.mkdir()
            run_once(tree, project, kept)  # warm-up, which also fills the kept cache
            for mode in ("fresh cache", "kept cache"):
                samples = []
                for index in range(args.runs):
                    home = kept if mode == "kept cache" else root / f"fresh-{name}-{index}"
                    home.mkdir(exist_ok=True)
                    samples.append(run_once(tree, project, home))
                wall, cpu, rss = (statistics.median(values) for values in zip(*samples, strict=True))
                print(f"{name}, {mode}: wall {wall:.3f} s, CPU {cpu:.3f} s, peak RSS {rss:.1f} MiB ({args.runs} runs)")
    print(f"load average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
