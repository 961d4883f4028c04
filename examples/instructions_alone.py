"""The Instruction service alone: a project's AGENTS.md and two instruction URLs, one of which never
answers. The service returns the blocks it could load and, beside them, each source that failed and why; the
whole URL phase is bounded by the service's `url_timeout` (here 2 s instead of OpenCode's 5 s)."""

import json
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio

from strata_core import ConfigService, InstructionService, ProjectService, StrataPaths

release = threading.Event()


class Rules(BaseHTTPRequestHandler):
    """`/team.md` answers at once; `/slow.md` never does (it holds the request until the example ends)."""

    def do_GET(self) -> None:
        if self.path == "/slow.md":
            release.wait(30)
            return
        body = b"Write tests first."
        self.send_response(200)
        self.send_header("Content-Type", "text/markdown")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


async def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Rules)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"

    project = Path(tempfile.mkdtemp()) / "shop"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").write_text("Prices are in cents.\n")
    (project / "strata.json").write_text(json.dumps({"instructions": [f"{base}/team.md", f"{base}/slow.md"]}))
    env = {"HOME": str(project.parent / "home")}
    paths, where = StrataPaths.from_env(env), ProjectService(project)
    instructions = InstructionService(ConfigService(paths, where, env), where, paths, env, url_timeout=2.0)

    found = await instructions.system()
    for block in found.blocks:
        print("loaded:", block.source.replace(base, "<server>").replace(str(project), "<project>"))
    for failure in found.failures:
        print("failed:", failure.source.replace(base, "<server>"), "-", failure.reason)
    assert [failure.reason for failure in found.failures] == ["no answer within 2 s"]
    release.set()
    server.shutdown()


anyio.run(main)
