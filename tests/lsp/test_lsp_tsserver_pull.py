"""A TypeScript server's diagnostics are asked of tsserver (`typescript.tsserverRequest`) after each change, for
the changed file and every other open one, not waited for as pushes; a server that refuses is waited on for
pushes, and not asked again. With a fake server
that pushes one thing ("pushed: ...") and answers another ("pulled: ..."), and on tsserver's own answers."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from lsp_tools import FAKE_SERVER

from strata_core.config.code_tools import LspConfig, LspServerConfig
from strata_core.lsp.servers import ServerSpec, configured_specs
from strata_core.lsp.service import ProjectLanguageServers
from strata_core.lsp.tsserver_pull import diagnostics_of
from strata_core.lsp.values import Diagnostic


def fake_typescript(tmp_path: Path) -> tuple[ServerSpec, ...]:
    """The fake server's `tsserver` mode configured as the `typescript` server, pyright off."""
    command = (sys.executable, str(FAKE_SERVER), "tsserver", str(tmp_path / "starts"))
    servers = {"pyright": LspServerConfig(disabled=True), "typescript": LspServerConfig(command, (".ts",))}
    config = LspConfig(True, servers)
    return configured_specs(config)


@pytest.mark.anyio
async def test_each_change_is_answered_with_what_tsserver_says_of_the_file_now(
    project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    main = project / "main.ts"
    main.write_text("const a = 1;\n")
    async with ProjectLanguageServers(fake_typescript(tmp_path), project, env) as servers:
        await servers.touch(main, wait=True)
        opened = servers.diagnostics()[main]
        main.write_text('const a = "one";\n')
        await servers.touch(main, wait=True)  # its push for the change comes first, the answer after
        changed = servers.diagnostics()[main]
    assert [item.message for item in opened] == ["pulled: const a = 1; [1]"]
    assert changed == [Diagnostic(0, 6, 0, 11, 'pulled: const a = "one"; [2]', 1, "typescript", 2322)]


@pytest.mark.anyio
async def test_a_change_refreshes_every_other_open_file(project: Path, env: dict[str, str], tmp_path: Path) -> None:
    """A change can break the files that import the changed one, and a write reports them: each open file's
    diagnostics are asked again (the fake's answers count the changes it was sent)."""
    changed, other = project / "changed.ts", project / "other.ts"
    changed.write_text("const a = 1;\n")
    other.write_text("const b = 2;\n")
    async with ProjectLanguageServers(fake_typescript(tmp_path), project, env) as servers:
        await servers.touch(other, wait=False)  # open, as a read leaves it
        await servers.touch(changed, wait=True)
        first = servers.diagnostics()
        changed.write_text("const a = 3;\n")
        await servers.touch(changed, wait=True)
        second = servers.diagnostics()
    assert [item.message for item in first[other]] == ["pulled: const b = 2; [2]"]
    assert [item.message for item in second[other]] == ["pulled: const b = 2; [3]"]
    assert [item.message for item in second[changed]] == ["pulled: const a = 3; [3]"]


@pytest.mark.anyio
async def test_a_server_that_refuses_is_waited_on_for_pushes_and_not_asked_again(
    project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    refused, other = project / "refused.ts", project / "other.ts"
    refused.write_text("// REFUSE\n")
    other.write_text("const b = 2;\n")
    async with ProjectLanguageServers(fake_typescript(tmp_path), project, env) as servers:
        await servers.touch(refused, wait=True)
        await servers.touch(other, wait=True)  # the fake would answer this one: asking again would show it
        found = servers.diagnostics()
    assert [item.message for item in found[refused]] == ["pushed: // REFUSE"]
    assert [item.message for item in found[other]] == ["pushed: const b = 2;"]


TSSERVER_ANSWER = {
    "seq": 0,
    "type": "response",
    "command": "semanticDiagnosticsSync",
    "request_seq": 11,
    "success": True,
    "body": [
        {
            "start": {"line": 1, "offset": 7},
            "end": {"line": 1, "offset": 12},
            "text": "Type 'string' is not assignable to type 'number'.",
            "code": 2322,
            "category": "error",
        },
        {
            "start": {"line": 2, "offset": 5},
            "end": {"line": 2, "offset": 11},
            "text": "'unused' is declared but its value is never read.",
            "code": 6133,
            "category": "suggestion",
            "reportsUnnecessary": True,
        },
        {"start": {"line": 3, "offset": 1}, "end": {"line": 3, "offset": 2}, "text": "w", "category": "warning"},
    ],
}
"""What typescript-language-server 5.3 forwarded from tsserver (TypeScript 5), the third entry made up."""


def test_tsservers_answer_becomes_what_the_server_would_have_pushed() -> None:
    assert diagnostics_of(TSSERVER_ANSWER) == [
        Diagnostic(0, 6, 0, 11, "Type 'string' is not assignable to type 'number'.", 1, "typescript", 2322),
        Diagnostic(1, 4, 1, 10, "'unused' is declared but its value is never read.", 4, "typescript", 6133),
        Diagnostic(2, 0, 2, 1, "w", 2, "typescript", None),
    ]


@pytest.mark.parametrize(
    "answer",
    [
        None,
        {**TSSERVER_ANSWER, "success": False},
        {**TSSERVER_ANSWER, "body": "no"},
        {**TSSERVER_ANSWER, "body": [{"text": "no position"}]},
        {**TSSERVER_ANSWER, "body": [["not", "an", "object"]]},
        {**TSSERVER_ANSWER, "body": [{"start": {"line": "x", "offset": 1}, "end": {"line": 1, "offset": 1}}]},
    ],
)
def test_anything_but_a_successful_answer_of_that_shape_is_none(answer: Any) -> None:
    assert diagnostics_of(answer) is None
