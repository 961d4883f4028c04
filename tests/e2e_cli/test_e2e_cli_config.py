"""The CLI and typed config: a wrong value is one paragraph naming file, key and expectation; unknown keys show."""

from __future__ import annotations

import json

from cli_harness import Cli


def test_a_wrong_config_value_is_one_paragraph_naming_file_key_and_expectation(cli: Cli) -> None:
    config = cli.project / "opencode.json"
    config.write_text(json.dumps({"model": "a/b", "compaction": {"reserved": "abc"}}))
    expected = f'Error: {config}:1:45: compaction.reserved: expected a whole number of tokens, got "abc"\n'
    for args in (["debug", "config"], ["run", "hi"], ["models"], ["agent", "list"]):
        done = cli(*args)
        assert done.returncode == 1, args
        assert done.stderr == expected
        assert done.stdout == ""


def test_the_error_names_the_global_file_that_set_the_bad_value(cli: Cli) -> None:
    global_config = cli.project.parent / "home" / ".config" / "opencode" / "opencode.json"
    global_config.parent.mkdir(parents=True)
    global_config.write_text(json.dumps({"agent": {"build": {"temperature": "hot"}}}))
    (cli.project / "opencode.json").write_text(json.dumps({"agent": {"build": {"description": "mine"}}}))
    done = cli("debug", "config")
    assert done.returncode == 1
    assert done.stderr.startswith(f"Error: {global_config}:1:37: agent.build.temperature: expected a number")


def test_debug_config_shows_keys_strata_does_not_read(cli: Cli) -> None:
    (cli.project / "opencode.json").write_text(
        json.dumps({"theme": "tokyonight", "lsp": {"pyright": {"disabled": True}}, "brand_new_key": [1, 2]})
    )
    done = cli("debug", "config")
    assert done.returncode == 0, done.stderr
    config = json.loads(done.stdout)["config"]
    assert config == {"theme": "tokyonight", "lsp": {"pyright": {"disabled": True}}, "brand_new_key": [1, 2]}


def test_debug_config_hides_every_configured_secret(cli: Cli) -> None:
    secrets = {
        "provider": {"x": {"options": {"key": "sk-secret", "baseURL": "https://h.example/v1"}}},
        "mcp": {
            "remote": {
                "type": "remote",
                "url": "https://m.example/mcp",
                "oauth": {"clientSecret": "oauth-s3cret"},
                "enabled": False,
            },
            "local": {"type": "local", "command": ["true"], "environment": {"GH": "ghp-env-s3cret"}, "enabled": False},
        },
    }
    (cli.project / "opencode.json").write_text(json.dumps(secrets))
    done = cli("debug", "config")
    assert done.returncode == 0, done.stderr
    for secret in ("sk-secret", "oauth-s3cret", "ghp-env-s3cret"):
        assert secret not in done.stdout
    options = json.loads(done.stdout)["config"]["provider"]["x"]["options"]
    assert options == {"key": "<redacted>", "baseURL": "https://h.example/v1"}


def test_a_key_stored_in_auth_json_makes_its_provider_usable_and_is_never_shown(cli: Cli) -> None:
    stored = cli.project.parent / "home" / ".local" / "share" / "strata" / "auth.json"
    stored.parent.mkdir(parents=True)
    stored.write_text(json.dumps({"groq": {"type": "api", "key": "sk-stored-never-shown"}}))
    models = cli("models", "groq")
    assert models.returncode == 0, models.stderr
    assert models.stdout.splitlines() and all(line.startswith("groq/") for line in models.stdout.splitlines())
    shown = cli("debug", "config")
    assert shown.returncode == 0, shown.stderr
    assert "sk-stored-never-shown" not in shown.stdout + shown.stderr
