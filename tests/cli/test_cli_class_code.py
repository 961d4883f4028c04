"""attrs' generated methods are compiled once and reused by later runs, and the classes behave as attrs makes them."""

from __future__ import annotations

import sys
from pathlib import Path

import attr._make
import attrs
import pytest

import strata_cli.class_code
from strata_cli.class_code import cache_file, reused_class_code


def point_class() -> type:
    """The same class each call (same module and qualified name, so attrs generates the same script)."""

    @attrs.frozen
    class Point:
        x: int
        label: str = "a"
        tags: tuple[str, ...] = attrs.field(factory=tuple)

    return Point


def test_a_second_run_reuses_every_method_and_the_class_behaves_as_attrs_makes_it(tmp_path: Path) -> None:
    path = tmp_path / "class-code" / "code.marshal"
    with reused_class_code(path):
        compiled_here = point_class()
    stored = path.read_bytes()
    with reused_class_code(path):
        reused = point_class()
    assert path.read_bytes() == stored  # nothing was compiled the second time, so nothing was added
    plain = point_class()  # attrs on its own
    for cls in (compiled_here, reused):
        assert cls(1) == cls(1, "a", ()) and cls(1) != cls(2)
        assert repr(cls(1, "b")) == repr(plain(1, "b")) == "Point(x=1, label='b', tags=())"
        # The per-process number at the start of __hash__'s tuple is this process's, not the stored placeholder.
        assert hash(cls(1, "b")) == hash(plain(1, "b"))
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            cls(1).x = 2
    assert "compile" not in vars(attr._make)  # attrs compiles on its own again after the block


def test_an_unreadable_cache_is_ignored_and_written_anew(tmp_path: Path) -> None:
    path = tmp_path / "code.marshal"
    path.write_bytes(b"\x00not marshal data")
    with reused_class_code(path):
        cls = point_class()
    assert cls(3).x == 3
    fresh = path.read_bytes()
    with reused_class_code(path):
        point_class()
    assert path.read_bytes() == fresh


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    with reused_class_code(blocked / "code.marshal"):
        cls = point_class()
    assert cls(4).label == "a"


def test_the_cache_lives_beside_the_bytecode_unless_python_writes_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib.util import cache_from_source

    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "bytecode"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    bytecode_dir = Path(cache_from_source(strata_cli.class_code.__file__)).parent
    bytecode_dir.mkdir(parents=True)  # as Python made it when it wrote the module's .pyc
    assert cache_file(tmp_path / "user").parent == bytecode_dir
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert cache_file(tmp_path / "user").parent == tmp_path / "user" / "class-code"


ATTRS_LOADING = """
import builtins, sys
import strata_cli.class_code
from strata_cli.class_code import reused_class_code
compiled = []
sys.addaudithook(lambda event, args: compiled.append(args[1]) if event == "compile" else None)
with reused_class_code(__import__("pathlib").Path(sys.argv[1])):
    import attr
ours = sum(str(name).startswith("<attrs generated") for name in compiled)
print(ours, builtins.compile is strata_cli.class_code._COMPILE)
print(repr(attr.validators.instance_of(int)), attr.Attribute.__name__)
"""


def test_attrs_own_classes_are_served_too_when_the_block_loads_attrs(tmp_path: Path) -> None:
    import subprocess

    path = tmp_path / "code.marshal"

    def fresh_process() -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", ATTRS_LOADING, str(path)], capture_output=True, text=True, check=True, timeout=60
        )
        return done.stdout.splitlines()

    first, second = fresh_process(), fresh_process()
    assert int(first[0].split()[0]) > 10  # attrs compiled its own classes' methods, and they were stored
    assert second[0] == "0 True"  # the next process compiled none of them, and the builtin is back
    assert second[1] == first[1] == "<instance_of validator for type <class 'int'>> Attribute"


CONVERTING = """
import sys
from pathlib import Path
import attrs, cattrs
from strata_cli.class_code import reuse_converter_code, save_converter_code
compiled = []
sys.addaudithook(lambda event, args: compiled.append(str(args[1])) if event == "compile" else None)

@attrs.frozen
class Point:
    x: int
    tags: tuple[str, ...] = ()

reuse_converter_code(Path(sys.argv[1]))
converter = cattrs.Converter()
data = converter.unstructure(Point(1, ("a",)))
back = converter.structure(data, Point)
save_converter_code()
print(sum(name.startswith("<cattrs generated") for name in compiled), data, back == Point(1, ("a",)))
"""


def test_cattrs_converters_are_compiled_once_and_reused_by_the_next_process(tmp_path: Path) -> None:
    import subprocess

    path = tmp_path / "converters"

    def fresh_process() -> str:
        done = subprocess.run(
            [sys.executable, "-c", CONVERTING, str(path)], capture_output=True, text=True, check=True, timeout=60
        )
        return done.stdout.strip()

    first, second = fresh_process(), fresh_process()
    assert first == "2 {'x': 1, 'tags': ['a']} True"  # one unstructure and one structure function, stored
    assert second == "0 {'x': 1, 'tags': ['a']} True"


OTHER_PROCESS = """
import sys
from pathlib import Path

import attrs

from strata_cli.class_code import reused_class_code

with reused_class_code(Path(sys.argv[1])):

    @attrs.frozen
    class Other:
        y: int

print(Other(1).y)
"""


def test_what_another_process_stored_meanwhile_is_kept(tmp_path: Path) -> None:
    import subprocess

    path = tmp_path / "code.marshal"

    def other_process() -> None:
        command = [sys.executable, "-c", OTHER_PROCESS, str(path)]
        subprocess.run(command, capture_output=True, text=True, check=True, timeout=60)

    with reused_class_code(path):  # reads the cache (empty) as it starts
        point_class()
        other_process()  # stores its own class meanwhile
    both = path.read_bytes()
    other_process()  # finds its class stored: adds nothing
    with reused_class_code(path):
        point_class()  # and this one finds its own
    assert path.read_bytes() == both
