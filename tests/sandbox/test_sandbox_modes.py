"""What each mode lets a command do, and what holds when there is no mechanism: read-only writes nothing on
disk, workspace-write writes the project and Strata's dirs only, the network is off unless allowed, /tmp is
private; without bwrap one warning, the mode falls back to uncontained and commands still run."""

from __future__ import annotations

import logging
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from sandbox_kit import MISSING_BWRAP, Site, bash_tool, needs_bwrap, run_bash

from strata_core.config.errors import ConfigError
from strata_core.config.structure import structure_config
from strata_core.sandbox import SandboxSettings, shell_sandbox
from strata_core.sandbox.settings import SandboxSettingError, parse_mode

pytestmark = pytest.mark.anyio


@pytest.fixture
def listener() -> Iterator[int]:
    """A loopback TCP port that accepts connections (and is closed after the test)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


@needs_bwrap
async def test_read_only_writes_nothing_in_the_project(site: Site) -> None:
    (site.project / "a.txt").write_text("before\n")
    result = await run_bash(bash_tool(site, "read-only"), site, "echo after > a.txt; touch b.txt; cat a.txt")
    assert "Read-only file system" in result.output and result.output.endswith("before\n")
    assert (site.project / "a.txt").read_text() == "before\n" and not (site.project / "b.txt").exists()


@needs_bwrap
async def test_tmp_is_private_and_strata_dirs_are_writable(site: Site) -> None:
    tool = bash_tool(site)
    output_dir = tool.truncation.directory
    with tempfile.NamedTemporaryFile(prefix="host-only-") as host_file:
        command = f"echo x > /tmp/private-7781 && echo y > {output_dir}/note && ls {host_file.name}"
        result = await run_bash(tool, site, command)
    assert "No such file or directory" in result.output  # /tmp is the command's own, not the host's
    assert not await anyio.Path("/tmp/private-7781").exists()
    assert (output_dir / "note").read_text() == "y\n"


@needs_bwrap
async def test_long_output_saved_by_strata_can_be_read_back_inside(site: Site) -> None:
    tool = bash_tool(site)
    first = await run_bash(tool, site, "seq 1 30000")
    saved = first.metadata["outputPath"]
    again = await run_bash(tool, site, f"tail -n 1 {saved}")
    assert again.output == "30000\n"


@needs_bwrap
async def test_the_network_is_off_unless_allowed(site: Site, listener: int) -> None:
    probe = f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {listener}), 2); print('reached')\""
    off = await run_bash(bash_tool(site), site, probe)
    assert "reached" not in off.output and off.metadata["exit"] != 0
    on = await run_bash(bash_tool(site, config={"network": True}), site, probe)
    assert on.output == "reached\n"


@needs_bwrap
async def test_configured_paths_are_readable_or_writable(site: Site) -> None:
    config = {"readable": (str(site.outside),), "writable": (str(site.root / "cache"),)}
    (site.root / "cache").mkdir()
    tool = bash_tool(site, config=config)
    result = await run_bash(tool, site, f"cat {site.secret}; echo z > {site.root}/cache/z; echo w > {site.outside}/w")
    assert "TOPSECRET" in result.output and (site.root / "cache/z").read_text() == "z\n"
    assert not (site.outside / "w").exists()


async def test_without_bwrap_commands_run_uncontained_after_one_warning(
    site: Site, caplog: pytest.LogCaptureFixture
) -> None:
    tool = bash_tool(site, settings_env={"STRATA_BWRAP": MISSING_BWRAP + "-2"})
    with caplog.at_level(logging.WARNING):
        first = await run_bash(tool, site, "cat ../outside/secret.txt")
        await run_bash(tool, site, "true")
    assert first.output == "TOPSECRET-4417\n"  # the permission rules alone apply now
    warnings = [r for r in caplog.records if "sandbox unavailable" in r.getMessage()]
    assert len(warnings) == 1
    state = tool.shell_sandbox().state()
    assert (state.wanted, state.mode, state.contained) == ("workspace-write", "danger-full-access", False)
    assert state.problem == f"{MISSING_BWRAP}-2 not found (install the bubblewrap package)"


async def test_a_bwrap_that_fails_its_trial_run_is_no_mechanism(site: Site, tmp_path: Path) -> None:
    broken = tmp_path / "bwrap"
    broken.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    broken.chmod(0o755)
    tool = bash_tool(site)
    state = shell_sandbox(SandboxSettings(bwrap=str(broken)), tool.paths, tool.truncation.directory).state()
    assert state.mechanism is None and state.problem is not None
    assert state.problem.endswith("failed its trial run: bwrap: No permissions to create new namespace")


def test_the_mode_comes_from_the_flag_over_the_config() -> None:
    blocks = structure_config({"sandbox": {"mode": "read-only", "network": True, "env_allow": ["NPM_TOKEN"]}})
    assert SandboxSettings.from_config(blocks.sandbox, {}, Path("/h")).wanted_mode == "read-only"
    flagged = SandboxSettings.from_config(blocks.sandbox, {"STRATA_SANDBOX": "danger-full-access"}, Path("/h"))
    assert flagged.wanted_mode == "danger-full-access" and flagged.network and flagged.env_allow == ("NPM_TOKEN",)
    assert SandboxSettings().wanted_mode == "workspace-write"
    with pytest.raises(SandboxSettingError, match="expected one of read-only, workspace-write, danger-full-access"):
        parse_mode("none", "$STRATA_SANDBOX")


def test_a_wrong_sandbox_config_names_the_key_and_what_is_expected() -> None:
    with pytest.raises(ConfigError, match=r"sandbox\.mode.*one of read-only, workspace-write, danger-full-access"):
        structure_config({"sandbox": {"mode": "off"}})
    with pytest.raises(ConfigError, match=r"sandbox\.network.*true or false"):
        structure_config({"sandbox": {"network": "yes"}})


def test_the_cli_offers_exactly_the_config_modes() -> None:
    from strata_cli.options import SANDBOX_MODES, SANDBOX_VARIABLE
    from strata_core.config.schema import SANDBOX_MODES as CONFIG_MODES
    from strata_core.sandbox.settings import MODE_VARIABLE

    assert (SANDBOX_MODES, SANDBOX_VARIABLE) == (CONFIG_MODES, MODE_VARIABLE)
