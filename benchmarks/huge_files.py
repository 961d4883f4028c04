"""Peak memory of the file tools on huge inputs: each case runs the tool once in a fresh process.

    uv run python -m benchmarks --only huge_files
    uv run python -m benchmarks.huge_files --case read-no-newline --dir /tmp/x   # one case, prints its row

The cases (issue 13): `read` of a 200 MB file with no newline, `read` of a 100 MB PNG, `write` of 40 MB of
content; and, to show what the downscaling path costs, a 12-megapixel PNG that is decoded and scaled down.
Each child process builds a tool context, calls the tool through the runner and reports its own peak
resident set (`VmHWM`), so the figure includes the interpreter, the imports and (for write) the 40 MB
argument itself.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import MIB, REPO_ROOT, Result, at_most, median, run_async

CASES = ("read-no-newline", "read-huge-png", "read-12mp-png", "write-40mb")
LABELS = {
    "read-no-newline": "read of a 200 MB file with no newline",
    "read-huge-png": "read of a 100 MB PNG",
    "read-12mp-png": "read of a 12-megapixel PNG (36 MB, downscaled)",
    "write-40mb": "write of 40 MB of content",
}
TARGET_MIB = 100


def build_fixtures(root: Path) -> None:
    (root / "project").mkdir(exist_ok=True)
    flat = root / "project" / "flat.txt"
    if not flat.exists():
        with flat.open("wb") as handle:
            for _ in range(200):
                handle.write(b"x" * MIB)
    png = root / "project" / "huge.png"
    if not png.exists():
        from PIL import Image

        side = 5800  # 5800 x 5800 RGB of noise, stored uncompressed: about 100 MB
        image = Image.frombytes("RGB", (side, side), os.urandom(side * side * 3))
        out = io.BytesIO()
        image.save(out, format="PNG", compress_level=0)
        png.write_bytes(out.getvalue())
    photo = root / "project" / "photo.png"
    if not photo.exists():
        from PIL import Image

        noise = Image.frombytes("RGB", (4000, 3000), os.urandom(4000 * 3000 * 3))
        noise.save(photo, format="PNG", compress_level=0)


async def _run_case(case: str, project: Path) -> str:
    from strata_core.tool.builtin.read import ReadTool
    from strata_core.tool.builtin.write import WriteTool
    from strata_core.tool.contract import ToolContext, approve_everything
    from strata_core.tool.runner import run_tool

    ctx = ToolContext(
        session_id="ses_bench",
        message_id="msg_bench",
        call_id="call_bench",
        agent="build",
        ruleset=(),
        directory=project,
        worktree=project,
        ask=approve_everything,
    )
    if case == "read-no-newline":
        outcome = await run_tool(ReadTool(), {"filePath": "flat.txt"}, ctx, agent_ruleset=None)
    elif case in ("read-huge-png", "read-12mp-png"):
        name = "huge.png" if case == "read-huge-png" else "photo.png"
        outcome = await run_tool(ReadTool(), {"filePath": name}, ctx, agent_ruleset=None)
    else:
        content = "y" * (40 * MIB)
        outcome = await run_tool(WriteTool(), {"filePath": "out.txt", "content": content}, ctx, agent_ruleset=None)
    body = sum(len(a.url) for a in outcome.result.attachments) + len(outcome.result.output)
    return f"{'error' if outcome.is_error else 'ok'}, {body / 1024:.0f} KiB to the model"


def _high_water_mib() -> float:
    # VmHWM belongs to this process's own memory map; ru_maxrss would carry over the parent's peak from
    # before exec (the parent built the 100 MB fixtures).
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def child(case: str, project: Path) -> None:
    outcome = run_async(lambda: _run_case(case, project))
    peak_mib = _high_water_mib()
    print(json.dumps({"case": case, "peak_mib": peak_mib, "outcome": outcome}))


def _measure(case: str, root: Path) -> tuple[float, str]:
    argv = [sys.executable, "-m", "benchmarks.huge_files", "--case", case, "--dir", str(root / "project")]
    done = subprocess.run(argv, cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    row = json.loads(done.stdout.strip().splitlines()[-1])
    return float(row["peak_mib"]), str(row["outcome"])


def run(quick: bool, runs: int | None = None) -> list[Result]:
    count = runs or (1 if quick else 3)
    results = []
    with tempfile.TemporaryDirectory(prefix="strata-huge-") as tmp:
        root = Path(tmp)
        build_fixtures(root)
        for case in CASES:
            samples = [_measure(case, root) for _ in range(count)]
            peak = median([peak for peak, _ in samples])
            results.append(
                Result(
                    LABELS[case], "peak RSS", "MiB", peak, target=at_most(TARGET_MIB), runs=count, note=samples[0][1]
                )
            )
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", choices=CASES)
    parser.add_argument("--dir", type=Path)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.case:
        child(args.case, args.dir)
        return
    for result in run(args.quick):
        print(json.dumps(result.to_json()))


if __name__ == "__main__":
    main()
