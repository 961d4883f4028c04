"""A file the OS will not open is reported for what it is (permission denied, a symlink loop, a file where a
directory should be), not as a symlink race the model should retry.

Root ignores permission bits, so the denied cases run in a child process without the capabilities that let
it (`CAP_DAC_OVERRIDE`, `CAP_DAC_READ_SEARCH`): as the files' owner it is then held to their mode bits.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from denied_access import run_held_to_permissions

from strata_core.tool.builtin.read import ReadTool
from strata_core.tool.builtin.write import WriteTool
from strata_core.tool.contract import Tool, ToolContext, ToolFailure
from strata_core.tool.support.confined_file import ChangedWhileOpening, Target, open_for_reading, open_for_writing

RACE = "changed while it was being opened"
DENIED = "permission denied"

_ATTEMPTS = """
import json, sys
from pathlib import Path
from strata_core.tool.contract import ToolFailure
from strata_core.tool.support.confined_file import (
    Target, existing_kind, open_directory, open_for_reading, open_for_writing,
)

OPENERS = {"read": open_for_reading, "write": open_for_writing, "list": open_directory, "kind": existing_kind}
said = {}
for name, opener in json.loads(sys.argv[1]):
    path = Path(name)
    try:
        OPENERS[opener](Target(path, path, True))
        said[f"{opener} {name}"] = "opened"
    except ToolFailure as error:
        said[f"{opener} {name}"] = str(error)
print(json.dumps(said))
"""


def without_override(attempts: list[tuple[str, Path]]) -> dict[str, str]:
    """What each (opener, path) says in a process the permission bits apply to."""
    argument = json.dumps([[str(path), opener] for opener, path in attempts])
    said: dict[str, str] = json.loads(run_held_to_permissions(_ATTEMPTS, argument))
    return said


@pytest.fixture
def locked(project: Path) -> Iterator[Path]:
    """A project with a mode-000 file, a read-only file, a mode-000 directory and a read-only directory."""
    (project / "locked.txt").write_text("secret\n")
    (project / "ro.txt").write_text("read only\n")
    (project / "lockdir").mkdir()
    (project / "lockdir" / "f.txt").write_text("hidden\n")
    (project / "rodir").mkdir()
    (project / "locked.txt").chmod(0)
    (project / "ro.txt").chmod(0o444)
    (project / "lockdir").chmod(0)
    (project / "rodir").chmod(0o555)
    yield project
    (project / "lockdir").chmod(0o755)  # so tmp_path can be cleaned up
    (project / "rodir").chmod(0o755)


def test_permission_denied_is_reported_as_such_never_as_a_race(locked: Path) -> None:
    attempts = [
        ("read", locked / "locked.txt"),
        ("write", locked / "locked.txt"),
        ("write", locked / "ro.txt"),
        ("list", locked / "lockdir"),
        ("kind", locked / "lockdir" / "f.txt"),
        ("read", locked / "lockdir" / "f.txt"),
        ("write", locked / "lockdir" / "new.txt"),
        ("write", locked / "rodir" / "new.txt"),
        ("write", locked / "rodir" / "sub" / "new.txt"),
    ]
    said = without_override(attempts)
    for opener, path in attempts:
        message = said[f"{opener} {path}"]
        assert DENIED in message and RACE not in message, (opener, path, message)
    assert said[f"read {locked / 'locked.txt'}"].startswith(f"Cannot read {locked / 'locked.txt'}: permission denied")
    assert said[f"write {locked / 'ro.txt'}"].startswith(f"Cannot write {locked / 'ro.txt'}: permission denied")
    assert said[f"list {locked / 'lockdir'}"].startswith(f"Cannot list {locked / 'lockdir'}: permission denied")
    assert (locked / "ro.txt").stat().st_mode & 0o777 == 0o444
    assert not (locked / "rodir" / "sub").exists()


def test_a_readable_file_still_opens_in_the_same_process(locked: Path) -> None:
    (locked / "ok.txt").write_text("fine\n")
    said = without_override([("read", locked / "ok.txt"), ("write", locked / "ok.txt")])
    assert set(said.values()) == {"opened"}


@pytest.fixture
def loop(project: Path) -> Path:
    (project / "loopA").symlink_to("loopB")
    (project / "loopB").symlink_to("loopA")
    return project / "loopA"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool", "name"),
    [(ReadTool(), "loopA"), (WriteTool(), "loopA"), (WriteTool(), "loopA/inside.txt")],
    ids=["read", "write", "write-below"],
)
async def test_a_symlink_loop_is_reported_as_a_loop(loop: Path, ctx: ToolContext, tool: Tool, name: str) -> None:
    with pytest.raises(ToolFailure) as error:
        await tool.execute({"filePath": str(loop.parent / name), "content": "x"}, ctx)
    message = str(error.value)
    assert "symbolic link on its path leads back to itself" in message and RACE not in message, message


def test_a_file_where_a_directory_should_be_is_named(project: Path) -> None:
    (project / "a.txt").write_text("a file\n")
    target = project / "a.txt" / "new.txt"
    with pytest.raises(ToolFailure) as error:
        open_for_writing(Target(target, target, True))
    assert (
        str(error.value)
        == f"Cannot write {target}: {project / 'a.txt'} is not a directory. Nothing was read or written."
    )
    assert (project / "a.txt").read_text() == "a file\n"


def test_a_symlink_that_appears_after_the_check_is_still_a_race(project: Path, outside: Path) -> None:
    (project / "dir").mkdir()
    (project / "dir" / "a.txt").write_text("checked\n")
    target = Target(project / "dir" / "a.txt", project / "dir" / "a.txt", True)
    (outside / "a.txt").write_text("outside\n")
    (project / "dir").rename(project / "gone")
    (project / "dir").symlink_to(outside)  # the resolved path now passes through a link
    with pytest.raises(ChangedWhileOpening):
        open_for_reading(target)
    (project / "dir").unlink()
    (project / "dir").mkdir()
    (project / "dir" / "a.txt").symlink_to(outside / "a.txt")  # the final component became a link
    with pytest.raises(ChangedWhileOpening):
        open_for_reading(target)
