"""Diagnostics in edit and write results from real language servers (pyright, pylsp, typescript), as OpenCode
writes them, over a real turn with the scripted model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from engine_harness import Script, ask, engine, scripted, tool_results
from lsp_tools import NPM_BIN, NPM_MODULES, PY_BIN, tool

PYRIGHT = {"lsp": True}


async def turn(project: Path, env: dict[str, str], script: Script, config: dict[str, Any]) -> list[str]:
    """The tool results the model was sent on its last request, after running `script` with `config`."""
    async with scripted(script) as server, engine(project, env, server, mode="auto", extra_config=config) as rt:
        session = await rt.sessions.create()
        await rt.loop.prompt(ask(session.id, "change it"))
    return tool_results(server.main_requests[-1].body)


def edit(path: Path, old: str, new: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "edit", "arguments": {"filePath": str(path), "oldString": old, "newString": new}}]}


def write(path: Path, content: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "write", "arguments": {"filePath": str(path), "content": content}}]}


@pytest.mark.anyio
async def test_a_python_edit_that_breaks_the_types_gets_pyrights_error(project: Path, env: dict[str, str]) -> None:
    tool(NPM_BIN / "pyright-langserver")
    calc = project / "calc.py"
    (result,) = await turn(project, env, [edit(calc, "return a + b", 'return "x" + a'), {"text": "ok"}], PYRIGHT)
    assert result == (
        "Edit applied successfully.\n\nLSP errors detected in this file, please fix:\n"
        f'<diagnostics file="{calc}">\n'
        'ERROR [2:12] Operator "+" not supported for types "Literal[\'x\']" and "int"\n'
        "</diagnostics>"
    )


@pytest.mark.anyio
async def test_a_clean_edit_reports_nothing(project: Path, env: dict[str, str]) -> None:
    tool(NPM_BIN / "pyright-langserver")
    calc = project / "calc.py"
    (result,) = await turn(project, env, [edit(calc, "a + b", "b + a"), {"text": "ok"}], PYRIGHT)
    assert result == "Edit applied successfully."


@pytest.mark.anyio
async def test_a_write_reports_another_files_errors(project: Path, env: dict[str, str]) -> None:
    tool(NPM_BIN / "pyright-langserver")
    other = project / "other.py"
    other.write_text("count: int = 1\n")
    script = [
        edit(other, "count: int = 1", 'count: int = "one"'),
        write(project / "calc.py", "def add(a: int, b: int) -> int:\n    return b + a\n"),
        {"text": "ok"},
    ]
    first, second = await turn(project, env, script, PYRIGHT)
    assert first.startswith("Edit applied successfully.\n\nLSP errors detected in this file, please fix:\n")
    assert second.startswith(
        f'Wrote file successfully.\n\nLSP errors detected in other files:\n<diagnostics file="{other}">\nERROR [1:14]'
    )
    assert "this file" not in second


@pytest.mark.anyio
async def test_a_custom_server_from_config_replaces_the_builtin(project: Path, env: dict[str, str]) -> None:
    pylsp = tool(PY_BIN / "pylsp")
    config = {"lsp": {"pyright": {"disabled": True}, "pylsp": {"command": [str(pylsp)], "extensions": [".py"]}}}
    calc = project / "calc.py"
    (result,) = await turn(project, env, [edit(calc, "return a + b", "return a + missing"), {"text": "ok"}], config)
    assert result == (
        "Edit applied successfully.\n\nLSP errors detected in this file, please fix:\n"
        f"<diagnostics file=\"{calc}\">\nERROR [2:16] undefined name 'missing'\n</diagnostics>"
    )


@pytest.mark.anyio
async def test_lsp_off_reports_nothing_and_starts_nothing(project: Path, env: dict[str, str]) -> None:
    calc = project / "calc.py"
    (result,) = await turn(project, env, [edit(calc, "return a + b", 'return "x" + a'), {"text": "ok"}], {})
    assert result == "Edit applied successfully."


def typescript_project(project: Path) -> Path:
    """`project` as a TypeScript project on the installed TypeScript 5, strict; its main.ts."""
    tool(NPM_BIN / "typescript-language-server")
    typescript = tool(NPM_MODULES / "typescript" / "lib" / "tsserver.js").parents[1]
    (project / "node_modules").mkdir()
    (project / "node_modules" / "typescript").symlink_to(typescript)
    (project / "package.json").write_text(json.dumps({"name": "demo", "private": True}))
    (project / "tsconfig.json").write_text(json.dumps({"compilerOptions": {"strict": True}}))
    main = project / "main.ts"
    main.write_text("const total: number = 1;\n")
    return main


@pytest.mark.anyio
async def test_typescript_results_say_what_tsserver_found_after_each_change(project: Path, env: dict[str, str]) -> None:
    """Each result is tsserver's answer for the files as the tool left them (asked of it, not waited for as
    pushes): a clean edit (for which typescript-language-server pushes nothing), a write that breaks the file
    importing it, a new file whose first push would hold its errors, an edit into an error and out of it."""
    main = typescript_project(project)
    util = project / "util.ts"
    util.write_text("export const one: number = 1;\n")
    main.write_text('import { one } from "./util";\nexport const total: number = one;\n')
    script = [
        edit(main, "= one;", "= one + 1;"),
        write(util, 'export const one: string = "1";\n'),
        write(util, "export const one: number = 1;\n"),
        write(project / "extra.ts", 'export const two: number = "two";\n'),
        edit(main, "= one + 1;", '= "three";'),
        edit(main, '= "three";', "= 3;"),
        {"text": "ok"},
    ]
    clean, broke_importer, mended, new_file, broke, fixed = await turn(project, env, script, PYRIGHT)
    mismatch = "Type 'string' is not assignable to type 'number'."

    def errors(where: str, path: Path, line_column: str) -> str:
        block = f'<diagnostics file="{path}">\nERROR [{line_column}] {mismatch}\n</diagnostics>'
        return f"\n\nLSP errors detected in {where}:\n{block}"

    assert clean == "Edit applied successfully."
    assert broke_importer == "Wrote file successfully." + errors("other files", main, "2:14")
    assert mended == "Wrote file successfully."
    assert new_file == "Wrote file successfully." + errors("this file, please fix", project / "extra.ts", "1:14")
    assert broke == "Edit applied successfully." + errors("this file, please fix", main, "2:14")
    assert fixed == "Edit applied successfully."
