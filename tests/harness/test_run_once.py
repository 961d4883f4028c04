"""The run-wide store of work made once (`tests/helpers/run_once.py`): made once per inputs, read after that, and
made by one of several workers asking at the same time while the others wait."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from run_once import key_of, made_once


def test_the_same_inputs_are_made_once_and_other_inputs_again(tmp_path_factory: pytest.TempPathFactory) -> None:
    made: list[str] = []

    def make(into: Path) -> None:
        made.append(into.name)
        (into / "out.txt").write_text(f"made {len(made)}")

    first = made_once(tmp_path_factory, "probe", ["a", b"b"], make)
    again = made_once(tmp_path_factory, "probe", ["a", b"b"], make)
    other = made_once(tmp_path_factory, "probe", ["a", b"c"], make)
    assert first == again != other
    assert (again / "out.txt").read_text() == "made 1"
    assert (other / "out.txt").read_text() == "made 2"
    assert len(made) == 2


def test_a_make_that_failed_is_made_again(tmp_path_factory: pytest.TempPathFactory) -> None:
    def fail(into: Path) -> None:
        (into / "half.txt").write_text("half")
        raise RuntimeError("broke")

    with pytest.raises(RuntimeError):
        made_once(tmp_path_factory, "broken", ["x"], fail)

    def whole(into: Path) -> None:
        (into / "whole.txt").write_text("whole")

    again = made_once(tmp_path_factory, "broken", ["x"], whole)
    assert sorted(p.name for p in again.iterdir()) == [".done", "whole.txt"]


def test_askers_at_once_wait_for_the_one_that_makes_it(tmp_path_factory: pytest.TempPathFactory) -> None:
    started = threading.Event()
    release = threading.Event()
    calls: list[int] = []

    def slow(into: Path) -> None:
        calls.append(1)
        started.set()
        assert release.wait(10)
        (into / "out.txt").write_text("slow")

    results: list[Path] = []
    threads = [
        threading.Thread(target=lambda: results.append(made_once(tmp_path_factory, "race", ["k"], slow)))
        for _ in range(3)
    ]
    threads[0].start()
    assert started.wait(10)
    for thread in threads[1:]:
        thread.start()
    release.set()
    for thread in threads:
        thread.join(10)
    assert len(calls) == 1 and len(set(results)) == 1 and len(results) == 3


def test_the_key_tells_apart_parts_that_concatenate_alike() -> None:
    assert key_of(["ab", "c"]) != key_of(["a", "bc"])
