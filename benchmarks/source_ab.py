"""Before/after of a change: the side-by-side scenarios run by Strata from two source trees, interleaved.

On a shared machine two runs minutes apart differ by more than most changes do; alternating the trees run by
run, with the same fixtures, makes the medians comparable, and CPU time (user+sys) moves far less with the
load than wall time. The other tree is a plain export of a commit, put first on `PYTHONPATH` so the
installed `strata` console script imports its packages instead of the workspace's:

    git archive <commit> packages prompts | (mkdir -p /tmp/before && tar -x -C /tmp/before)
    uv run python -m benchmarks.source_ab /tmp/before --runs 12
    uv run python -m benchmarks.source_ab /tmp/before --after /tmp/after   # two exported trees

Not part of `python -m benchmarks`: it compares code, it does not measure the product.
"""

from __future__ import annotations

import argparse
import os
import statistics
from collections.abc import Sequence
from pathlib import Path

from benchmarks.common import ProcessSample
from benchmarks.opencode_side_by_side import HELLO, STRATA_SCRIPT, TOOL_SESSION, Cli, Scenario, run_once

PACKAGES = ("core", "providers", "cli")


def strata_from(name: str, tree: Path | None) -> Cli:
    """`strata run` importing the packages of `tree` (None: the workspace's own)."""
    if tree is None:
        return Cli(name, lambda prompt: [str(STRATA_SCRIPT), "run", prompt])
    path = os.pathsep.join(str(tree / "packages" / package / "src") for package in PACKAGES)
    return Cli(name, lambda prompt: [str(STRATA_SCRIPT), "run", prompt], {"PYTHONPATH": path})


def compare(scenario: Scenario, clis: Sequence[Cli], runs: int) -> dict[str, list[ProcessSample]]:
    samples: dict[str, list[ProcessSample]] = {cli.name: [] for cli in clis}
    for cli in clis:
        run_once(cli, scenario)  # warm-up: page cache and bytecode cache
    for _ in range(runs):
        for cli in clis:
            samples[cli.name].append(run_once(cli, scenario))
    return samples


def line(scenario: Scenario, name: str, samples: Sequence[ProcessSample]) -> str:
    wall = statistics.median(s.wall for s in samples)
    cpu = statistics.median(s.cpu for s in samples)
    rss = statistics.median(s.peak_rss_mib for s in samples)
    return f"{scenario.name}, {name}: wall {wall:.3f} s, CPU {cpu:.3f} s, peak RSS {rss:.1f} MiB ({len(samples)} runs)"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("before", type=Path, help="an exported source tree (with packages/ and prompts/)")
    parser.add_argument("--after", type=Path, default=None, help="another exported tree (default: the workspace)")
    parser.add_argument("--runs", type=int, default=12)
    args = parser.parse_args(argv)
    after = args.after.resolve() if args.after else None
    clis = [strata_from("before", args.before.resolve()), strata_from("after", after)]
    print(f"load average at the start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    for scenario in (HELLO, TOOL_SESSION):
        for name, samples in compare(scenario, clis, args.runs).items():
            print(line(scenario, name, samples))
    print(f"load average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
