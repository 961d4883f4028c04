"""The README's everyday install gives a complete CLI: every package the CLI needs, `strata serve`'s included,
is named in the `uv tool install` line, and every path it names is a package of this workspace."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def install_line() -> list[str]:
    found = re.search(r"^uv tool install .*$", (REPO / "README.md").read_text(encoding="utf-8"), flags=re.M)
    assert found, "README.md has no `uv tool install` line"
    return shlex.split(found.group(0))


def project(path: str) -> tuple[str, set[str]]:
    """The package name at `path` (an optional `[extras]` suffix kept apart) and those extras."""
    directory, _, extras = path.partition("[")
    data = tomllib.loads((REPO / directory / "pyproject.toml").read_text(encoding="utf-8"))
    return data["project"]["name"], set(filter(None, extras.rstrip("]").split(",")))


def test_the_everyday_install_has_every_workspace_package_the_cli_and_its_server_need() -> None:
    words = install_line()
    cli_name, extras = project(words[3])
    named = {project(words[i + 1])[0] for i, word in enumerate(words) if word == "--with"}
    assert cli_name == "strata-cli" and "server" in extras, "the install must include `strata serve`"
    cli = tomllib.loads((REPO / "packages/cli/pyproject.toml").read_text(encoding="utf-8"))["project"]
    needed = [*cli["dependencies"], *cli["optional-dependencies"]["server"]]
    workspace = {project(str(p.parent.relative_to(REPO)))[0] for p in REPO.glob("packages/*/pyproject.toml")}
    wanted = {re.split(r"[\[<>=~ ;]", dep, maxsplit=1)[0] for dep in needed} & workspace
    assert wanted == {"strata-core", "strata-providers", "strata-server"}
    assert wanted <= named
