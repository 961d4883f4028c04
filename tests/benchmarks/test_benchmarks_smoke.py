"""The benchmark runner's pieces work: fixtures, one quick scenario, process measurement, the table.

No timing is asserted here (timings are benchmarks, not tests): only that each piece runs and has the shape
the runner and the README rely on.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from benchmarks import common, lsp_edit, prompt_assembly  # lsp_edit: its tools dir from the real HOME
from benchmarks.__main__ import command_line, main, report, run_module, update_readme
from benchmarks.common import (
    Result,
    at_least,
    at_most,
    clean_env,
    markdown_table,
    measure_process,
    ratio_at_least,
)
from benchmarks.opencode_side_by_side import (
    HELLO,
    TOOL_SESSION,
    TOOL_STEPS,
    build_project,
    check_edits,
    project_files,
    run_once,
    strata_cli,
)


def test_prompt_fixture_has_200_instruction_files_and_a_nested_working_directory(tmp_path: Path) -> None:
    fixture = prompt_assembly.build_fixture(tmp_path, ["http://127.0.0.1:9/instructions/a"])
    markdown = [p for p in fixture.worktree.rglob("*.md")]
    assert len(markdown) == prompt_assembly.INSTRUCTION_FILES == 200
    assert fixture.directory.is_relative_to(fixture.worktree)
    assert len(fixture.directory.relative_to(fixture.worktree).parts) == prompt_assembly.NESTED_DEPTH
    config = json.loads((fixture.worktree / "strata.json").read_text())
    assert config["instructions"][-1] == "http://127.0.0.1:9/instructions/a"


def test_prompt_assembly_quick_scenario_builds_the_whole_prompt() -> None:
    # A short URL timeout stands in for the 5 s one; check() inside raises if any file or URL is missing.
    timings = prompt_assembly.measure(with_hang=True, runs=1, url_timeout=1.0, warmup=False)
    assert len(timings) == 1


def test_tool_session_script_has_twenty_tool_steps_naming_the_work_dir(tmp_path: Path) -> None:
    script = TOOL_SESSION.script(tmp_path)
    tool_turns = [turn for turn in script if "tool_calls" in turn]
    assert len(tool_turns) == TOOL_STEPS == 20
    assert {turn["tool_calls"][0]["name"] for turn in tool_turns} == {"read", "glob", "grep", "edit", "bash"}
    assert "text" in script[-1]
    assert all(
        str(tmp_path) in json.dumps(turn) for turn in tool_turns if turn["tool_calls"][0]["name"] in ("read", "edit")
    )
    assert HELLO.script(tmp_path) == [{"text": "Hello! How can I help you today?"}]


def test_project_fixture_is_a_committed_repo_whose_edits_can_be_checked(tmp_path: Path) -> None:
    build_project(tmp_path, 4321)
    assert (tmp_path / ".git").is_dir()
    assert "127.0.0.1:4321" in (tmp_path / "opencode.json").read_text()
    assert set(project_files()) <= {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()}
    with pytest.raises(RuntimeError, match="edits not applied"):
        check_edits(tmp_path)
    # Each scripted edit's old string is in the fixture exactly once, so the edit tools can apply it.
    for turn in TOOL_SESSION.script(tmp_path):
        for call in turn.get("tool_calls", []):
            if call["name"] == "edit":
                text = Path(call["arguments"]["filePath"]).read_text()
                assert text.count(call["arguments"]["oldString"]) == 1


def test_measure_process_reports_a_childs_exit_output_and_usage(tmp_path: Path) -> None:
    code = "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"
    sample = measure_process([sys.executable, "-c", code], cwd=tmp_path, env=clean_env(tmp_path))
    assert (sample.returncode, sample.stdout, sample.stderr) == (3, "out\n", "err\n")
    assert sample.wall > 0 and sample.cpu > 0 and sample.peak_rss_mib > 1


def test_clean_env_carries_no_keys_and_a_fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "secret")
    env = clean_env(tmp_path)
    assert env["HOME"] == str(tmp_path)
    assert "OPENAI_API_KEY" not in env and env["TERM"] == "dumb"


def test_verdicts_for_each_kind_of_target() -> None:
    assert Result("s", "wall", "s", 0.2, 4.0, ratio_at_least(10), versus_opencode=True).verdict() == "met"
    assert Result("s", "wall", "s", 0.8, 4.0, ratio_at_least(10)).verdict() == "missed: 5.0x of 10x"
    assert Result("s", "wall", "s", 0.8, None, ratio_at_least(10)).verdict() == "OpenCode absent"
    assert Result("s", "rss", "MiB", 80, target=at_most(75)).verdict().startswith("missed by 5")
    assert Result("s", "rate", "events/s", 60_000, target=at_least(50_000)).verdict() == "met"
    assert Result("s", "rate", "events/s", None, target=at_least(50_000)).verdict() == "not measured"


def test_runner_table_has_one_row_per_result_and_the_readme_keeps_other_sections(tmp_path: Path) -> None:
    rows = [
        Result("hello", "wall", "s", 0.25, 3.1, ratio_at_least(10), versus_opencode=True),
        Result("hello", "peak RSS", "MiB", 60.0, None, at_most(75), versus_opencode=True),
        Result("prompt", "wall", "ms", 40.0, target=at_most(100)),
    ]
    table = markdown_table(rows).splitlines()
    assert table[0].startswith("| scenario | metric | Strata | OpenCode | ratio | target | verdict |")
    assert len(table) == 2 + len(rows)
    assert all(line.count("|") == 8 for line in table)
    assert "| 12.4x |" in table[2] and "| absent |" in table[3]

    machine = {"date": "2026-12-01", "nproc": "2", "cpu": "cpu", "memory": "1 GiB", "os": "Linux", "python": "3.11"}
    text = report(rows, {**machine, "opencode": "absent"}, "uv run python -m benchmarks")
    readme = tmp_path / "README.md"
    readme.write_text("# Benchmarks\n\nIntro.\n\n## Summary\n\nold table\n\n## Stream decoding\n\nkept\n")
    update_readme(text, readme)
    updated = readme.read_text()
    assert "old table" not in updated and "| 12.4x |" in updated
    assert updated.index("## Summary") < updated.index("## Stream decoding") and "kept" in updated


def test_a_missing_benchmark_module_is_a_row_not_a_crash() -> None:
    [row] = run_module("no_such_benchmark", quick=True, runs=1)
    assert row.strata is None and "not present" in row.note


def test_the_runner_runs_each_module_in_a_fresh_process(tmp_path: Path) -> None:
    """So a child's peak RSS (wait4) is not raised by what an earlier module left in the runner's own memory."""
    import sys

    sys.modules.pop("benchmarks.sandbox_cost", None)
    saved = tmp_path / "run.json"
    assert main(["--only", "sandbox_cost", "--quick", "--runs", "1", "--json", str(saved)]) == 0
    rows = json.loads(saved.read_text())["results"]
    assert rows and all(row["scenario"].startswith("bash call") for row in rows)
    assert "benchmarks.sandbox_cost" not in sys.modules  # measured in the child, not here


def test_the_recorded_command_leaves_out_where_the_output_went() -> None:
    argv = ["--runs", "5", "--json", "/tmp/x.json", "--update-readme", "--only", "prompt_assembly"]
    assert command_line(argv) == "uv run python -m benchmarks --runs 5 --only prompt_assembly"


def test_a_saved_run_is_reported_again_without_running(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    row = Result("hello", "wall", "s", 0.3, 3.3, ratio_at_least(10), runs=5, versus_opencode=True)
    machine = {"date": "2026-12-01", "nproc": "2", "cpu": "cpu", "memory": "1 GiB", "os": "Linux", "python": "3.11"}
    saved = {"command": "uv run python -m benchmarks --runs 5", "machine": {**machine, "opencode": "1.18.33"}}
    path = tmp_path / "run.json"
    path.write_text(json.dumps({**saved, "results": [row.to_json()]}))
    assert main(["--from-json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "`uv run python -m benchmarks --runs 5`" in out and "| 11.0x |" in out and "| met |" in out


@pytest.mark.parametrize("server", ["oracle", "in-process fallback"])
def test_one_strata_hello_run_against_each_kind_of_server(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = strata_cli()
    if cli is None:
        pytest.skip("the strata console script is not installed in .venv")
    if server == "oracle" and not common.oracle_available():
        pytest.skip("no ../shared/oracle in this checkout")
    if server != "oracle":
        monkeypatch.setattr(common, "ORACLE_DIR", tmp_path / "no-oracle")
    sample = run_once(cli, HELLO)  # raises RunFailed unless it exited 0 having made the scripted call
    assert sample.returncode == 0 and "Hello!" in sample.stdout


def test_server_load_runs_sessions_at_once_and_checks_every_answer() -> None:
    from benchmarks import server_load

    (run,), others = server_load.measure(runs=1, sessions=2, with_opencode=False)
    assert run.other_answers == []
    assert run.completed == 2 and run.health_ms and not others


def test_multi_host_answers_every_turn_and_sees_each_turn_end_on_the_other_hosts(postgres_url: str) -> None:
    from benchmarks import multi_host

    outcome = multi_host.measure(hosts=2, sessions_per_host=2, database_url=postgres_url)
    assert outcome.answered == outcome.turns == 4 and len(outcome.latencies) == 4
    assert len(outcome.cross_host_delays) == 4  # each session's end, seen by the one other host
    rows = {row.metric: row for row in multi_host.results(outcome)}
    assert rows["turns answered"].strata == 4 and "event delay across hosts p99" in rows


def test_sandbox_cost_quick_run_has_a_row_per_mechanism_and_mode() -> None:
    from benchmarks import sandbox_cost

    rows = sandbox_cost.run(quick=True, runs=1, files=20)
    assert [row.metric for row in rows] == [
        "process only, bare",
        "process only, under the reaper",
        "process only, inside bwrap (workspace-write layout)",
        "tool call, danger-full-access",
        "tool call, workspace-write",
        "tool call, read-only",
        "project walk, this repository's checkout",
        "rg .env search (main's), this repository's checkout",
        "project walk, the generated project (20 files)",
        "rg .env search (main's), the generated project (20 files)",
        "containment's in-process work (prepare, finish, walk after), workspace-write",
        "process only, inside bwrap, 150 .env masks (masker)",
        "process only, inside bwrap, 150 .env masks (bwrap's own binds)",
    ]
    assert rows[0].strata is not None and rows[3].strata is not None and rows[6].strata is not None


def test_lsp_edit_quick_run_times_the_checks_with_each_server_and_without_servers() -> None:
    rows = {row.scenario: row.strata for row in lsp_edit.run(quick=True, runs=1)}
    assert list(rows) == [
        "lsp: edit, pyright warm, error edit",
        "lsp: edit, pyright warm, clean edit",
        "lsp: edit, typescript warm, error edit",
        "lsp: edit, typescript warm, clean edit",
        "lsp: edit, pyright warm, clean edit after a clean one",
        "lsp: edit, typescript warm, clean edit after a clean one",
        "lsp: edit, typescript warm, 50 other files open, error edit",
        "lsp: edit, not configured",
    ]
    assert rows["lsp: edit, not configured"] is not None
    pyright_rows = [rows["lsp: edit, pyright warm, error edit"], rows["lsp: edit, pyright warm, clean edit"]]
    assert all(value is not None for value in pyright_rows) == lsp_edit.PYRIGHT.exists()
    typescript_rows = [rows["lsp: edit, typescript warm, error edit"], rows["lsp: edit, typescript warm, clean edit"]]
    typescript_rows.append(rows["lsp: edit, typescript warm, 50 other files open, error edit"])
    installed = lsp_edit.TYPESCRIPT_SERVER.exists() and lsp_edit.TSSERVER.exists()
    assert all(value is not None for value in typescript_rows) == installed


def test_thread_hop_measures_both_ways_to_a_thread() -> None:
    from benchmarks import thread_hop

    figures = anyio.run(thread_hop.measure, 20)
    assert set(figures) == {"anyio.to_thread.run_sync", "DatabaseThread.run"}
    assert all(micros > 0 for micros in figures.values())
