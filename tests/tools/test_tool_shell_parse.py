"""Reading command lines for permissions: simple commands (tree-sitter-bash), arity prefixes, path arguments."""

from __future__ import annotations

from pathlib import Path

import pytest

from strata_core.tool.support.shell_parse import argument_path, arity_prefix, parse_commands, scan

HOME = Path("/home/me")
CWD = Path("/work/project")


@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        ("git checkout main", "git checkout"),
        ("git config user.name x", "git config user.name"),
        ("npm install", "npm install"),
        ("npm run dev --watch", "npm run dev"),
        ("python script.py", "python script.py"),
        ("touch foo.txt", "touch"),
        ("ls -la", "ls"),
        ("docker compose up -d", "docker compose up"),
        ("docker run nginx", "docker run"),
        ("cargo build --release", "cargo build"),
        ("kubectl get pods", "kubectl get"),
        ("go test ./...", "go test"),
        ("pip install numpy", "pip install"),
        ("uv sync", "uv sync"),
        ("uv run pytest -q", "uv run pytest"),
        ("yarn add react", "yarn add"),
        ("pnpm install", "pnpm install"),
        ("gh pr list", "gh pr list"),
        ("make", "make"),
        ("unknowncmd a b", "unknowncmd"),
    ],
)
def test_arity_prefix_names_the_command(command: str, prefix: str) -> None:
    assert " ".join(arity_prefix(command.split())) == prefix


def test_arity_of_nothing_is_nothing() -> None:
    assert arity_prefix([]) == []


def test_every_simple_command_is_found_including_nested_ones() -> None:
    found = parse_commands("cd /tmp && ls -la > out.txt; echo $(rm -rf x) | grep y")
    assert [(c.source, c.words) for c in found] == [
        ("cd /tmp", ("cd", "/tmp")),
        ("ls -la > out.txt", ("ls", "-la")),
        ("echo $(rm -rf x)", ("echo",)),
        ("rm -rf x", ("rm", "-rf", "x")),
        ("grep y", ("grep", "y")),
    ]


def test_a_redirected_command_is_asked_about_with_its_redirection() -> None:
    (found,) = parse_commands("echo hi > notes.txt")
    assert found.source == "echo hi > notes.txt" and found.words == ("echo", "hi")


def test_scan_collects_patterns_and_remembered_prefixes_but_not_cd() -> None:
    result = scan("cd sub && git push origin main && npm run build", CWD, HOME, lambda path: True)
    assert result.patterns == ("git push origin main", "npm run build")
    assert result.always == ("git push *", "npm run build *")
    assert result.outside == ()


def test_scan_finds_paths_outside_the_project_that_file_commands_name() -> None:
    def is_inside(path: Path) -> bool:
        return path == CWD or CWD in path.parents

    result = scan("cd /tmp && rm -rf ../other/x ./ok.txt && cat ~/.ssh/id_rsa", CWD, HOME, is_inside)
    assert result.outside == (Path("/tmp"), Path("/work/other/x"), HOME / ".ssh/id_rsa")


@pytest.mark.parametrize(
    ("argument", "expected"),
    [
        ("notes.txt", CWD / "notes.txt"),
        ("'with space.txt'", CWD / "with space.txt"),
        ("../up", Path("/work/up")),
        ("~", HOME),
        ("~/x", HOME / "x"),
        ("$HOME/.ssh/key", HOME / ".ssh/key"),
        ("${HOME}/y", HOME / "y"),
        ("/abs/*.log", Path("/abs")),
        ("*.log", None),
        ("$TMPDIR/x", None),
        ("$(pwd)/x", None),
        ("`pwd`", None),
    ],
)
def test_argument_paths(argument: str, expected: Path | None) -> None:
    assert argument_path(argument, CWD, HOME) == expected


def test_flags_and_chmod_modes_are_not_paths() -> None:
    result = scan("chmod +x /outside/run.sh && rm -rf --verbose /outside/y", CWD, HOME, lambda path: False)
    assert result.outside == (Path("/outside/run.sh"), Path("/outside/y"))
