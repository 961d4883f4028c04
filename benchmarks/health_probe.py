"""A prober in its own process: `GET /global/health` every few milliseconds until told to stop, each latency kept.

    python -m benchmarks.health_probe URL [--interval 0.025]

It sends one request, waits `--interval` seconds after the answer, and sends the next, on one kept-alive
connection (a new one if the server closed it). On SIGTERM it prints every sample as one JSON list of
`[seconds since the epoch when the request left, latency in ms]` and exits. Its own process, so neither the
load generator's event loop nor its GIL holds a probe back: a slow answer is the server's.
"""

from __future__ import annotations

import argparse
import http.client
import json
import signal
import sys
import time
from collections.abc import Sequence
from types import FrameType
from urllib.parse import urlparse

INTERVAL_SECONDS = 0.025


class _Stop(Exception):
    pass


def _stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop


def probe(url: str, interval: float) -> list[tuple[float, float]]:
    """Samples until SIGTERM: (when it left, latency in ms)."""
    target = urlparse(url)
    samples: list[tuple[float, float]] = []
    connection: http.client.HTTPConnection | None = None
    try:
        while True:
            if connection is None:
                connection = http.client.HTTPConnection(target.hostname or "127.0.0.1", target.port, timeout=120)
            left, start = time.time(), time.perf_counter()
            try:
                connection.request("GET", "/global/health")
                response = connection.getresponse()
                response.read()
            except (OSError, http.client.HTTPException):
                connection.close()
                connection = None
                continue
            samples.append((left, (time.perf_counter() - start) * 1000))
            time.sleep(interval)
    except _Stop:
        return samples


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.health_probe", description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--interval", type=float, default=INTERVAL_SECONDS)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _stop)
    samples = probe(args.url, args.interval)
    json.dump(samples, sys.stdout)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
