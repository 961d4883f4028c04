"""`stream_decode`'s pieces run: the in-process decoding measure and the end-to-end `strata run` over both wires.

No timing is asserted (timings are benchmarks, not tests): only what each returns, and that the end-to-end run
printed the whole answer (`end_to_end` raises otherwise).
"""

from __future__ import annotations

import anyio
import pytest

from benchmarks import stream_decode


@pytest.mark.parametrize("wire", stream_decode.WIRES)
def test_the_decoding_measure_counts_every_event(wire: stream_decode.Wire) -> None:
    rate, cpu, events = anyio.run(stream_decode.measure, wire, stream_decode.text_turn(300), 1, False)
    assert events == 303  # 300 deltas, the text part's start and end, the finish
    assert rate > 0 and cpu > 0


@pytest.mark.parametrize("wire", stream_decode.WIRES)
def test_strata_run_prints_the_whole_streamed_answer(wire: stream_decode.Wire) -> None:
    run = stream_decode.end_to_end(wire, 500)
    assert run.printing_seconds >= 0 and run.cpu_seconds > 0 and run.peak_rss_mib > 0
