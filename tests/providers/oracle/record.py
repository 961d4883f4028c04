"""Record what OpenCode 1.18.33 sends for the provider fixtures, normalised into test data.

usage (from the repo root; needs the oracle's prerequisites, see /work/shared/oracle/README.md):
    python3 tests/providers/oracle/record.py [--oracle DIR] [--out DIR] [--skip-capture]

For each fixture (chat: @ai-sdk/openai-compatible, messages: @ai-sdk/anthropic) and each script (tool,
reasoning), runs `capture.sh opencode` and writes `<fixture>-<script>.json` here: every request with its
kind (main/title), path, the headers that matter, and body, with the run's work dir, home, port, dates and
session ids replaced by <WORK>, <HOME>, <PORT>, <DATE> and <SESSION>.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FIXTURES = ("chat", "messages")
SCRIPTS = ("tool", "reasoning")
CATALOG_FIXTURES = ("anthropic", "openrouter", "deepseek")
"""Built-in providers configured only by `options.baseURL` and `apiKey`: the model comes from the catalogue."""
PROMPT = "read notes.txt"
KEPT_HEADERS = ("content-type", "authorization", "x-api-key", "anthropic-version", "anthropic-beta",
                "x-session-affinity", "x-session-id", "user-agent")  # fmt: skip
SESSION = re.compile(r"\bses_[0-9A-Za-z]{20,}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--oracle", default=os.environ.get("ORACLE", "/work/shared/oracle"))
    parser.add_argument("--out", default="/tmp/strata-provider-oracle")
    parser.add_argument("--skip-capture", action="store_true", help="only normalise an earlier --out")
    parser.add_argument("--only", nargs="*", help="record only these fixtures")
    args = parser.parse_args()
    runs = [(fixture, script) for fixture in FIXTURES for script in SCRIPTS]
    runs += [(fixture, "tool") for fixture in CATALOG_FIXTURES]
    only = set(args.only or [])
    for fixture, script in runs:
        if only and fixture not in only:
            continue
        run = Path(args.out) / f"{fixture}-{script}"
        if not args.skip_capture:
            command = [f"{args.oracle}/capture.sh", "opencode", str(HERE / "fixtures" / fixture), str(run),
                       str(HERE / "fixtures" / f"{script}_turns.json"), "--", PROMPT]  # fmt: skip
            subprocess.run(command, check=True)
        recording = json.dumps(normalised(run), indent=1, ensure_ascii=False)
        (HERE / f"{fixture}-{script}.json").write_text(recording + "\n")
    return 0


def normalised(run: Path) -> dict[str, Any]:
    def text(name: str) -> str:
        return (run / name).read_text().strip()

    work = text("workdir.txt")
    pairs = [(work, "<WORK>"), (os.path.realpath(work), "<WORK>"), (text("home.txt"), "<HOME>"),
             (f"127.0.0.1:{text('port.txt')}", "127.0.0.1:<PORT>")]  # fmt: skip
    for day in {datetime.date.today(), datetime.date.fromisoformat(text("date.txt"))}:
        pairs += [(day.strftime("%a %b %d %Y"), "<DATE>"), (day.isoformat(), "<DATE>")]
    pairs.sort(key=lambda pair: -len(pair[0]))

    def norm(value: Any) -> Any:
        if isinstance(value, str):
            for old, new in pairs:
                value = value.replace(old, new)
            return SESSION.sub("<SESSION>", value)
        if isinstance(value, list):
            return [norm(v) for v in value]
        if isinstance(value, dict):
            return {k: norm(v) for k, v in value.items()}
        return value

    requests = []
    for path in sorted(run.glob("[0-9][0-9][0-9]*.json")):
        match = re.fullmatch(r"(\d+)(_title)?\.json", path.name)
        if not match:
            continue
        meta = json.loads((run / f"{match.group(1)}.meta.json").read_text())
        headers = {k.lower(): v for k, v in meta["headers"].items() if k.lower() in KEPT_HEADERS}
        kind = "title" if match.group(2) else "main"
        requests.append({"kind": kind, "path": meta["path"], "headers": norm(headers),
                         "body": norm(json.loads(path.read_text()))})  # fmt: skip
    return {"opencode": "1.18.33", "prompt": PROMPT, "requests": requests}


if __name__ == "__main__":
    sys.exit(main())
