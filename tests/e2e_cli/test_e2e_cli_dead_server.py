"""A model server that is not running: `strata run` fails at once, naming the provider and its baseURL."""

from __future__ import annotations

import socket

from cli_harness import Cli, mock_provider_config, write_config


def test_a_refused_local_base_url_fails_at_once_with_the_provider_and_base_url(cli: Cli) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}/v1"
    write_config(cli.project, mock_provider_config(base_url))
    result = cli("run", "say hello")
    assert result.returncode == 1
    assert f'provider "mock": nothing is listening at its baseURL {base_url}' in result.stderr
    assert "provider.mock.options.baseURL" in result.stderr
    assert "retry" not in (result.stdout + result.stderr).lower()
