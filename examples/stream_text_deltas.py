"""Two sessions answering at once, both streaming into one callback of the application's: an interface
with a pane per session appends each piece of text as it arrives, and finds the whole answers stored once the
turns are done.

The bus carries every session's events in publish order; `PartDelta.session_id` says whose piece it is.
"""

import tempfile
from collections import defaultdict
from itertools import pairwise
from pathlib import Path

import anyio
from anyio.abc import ObjectReceiveStream

from strata_core import PromptRequest, TextInput, open_runtime
from strata_core.bus import BusEvent, PartDelta, SessionStatus
from strata_core.llm import ModelInfo
from strata_core.testing import ScriptedModel, ScriptedResolver

panes: dict[str, list[str]] = defaultdict(list)
arrivals: list[str] = []


def on_delta(pane: str, piece: str) -> None:
    """The application's callback: a real interface would draw the piece in the session's pane."""
    panes[pane].append(piece)
    arrivals.append(pane)


async def forward(events: ObjectReceiveStream[BusEvent], labels: dict[str, str]) -> None:
    """Hand each text piece of the labelled sessions to the callback, until every one of them is idle."""
    busy = set(labels)
    async for event in events:
        if isinstance(event, PartDelta) and event.session_id in labels:
            on_delta(labels[event.session_id], event.delta)
        elif isinstance(event, SessionStatus) and event.status == "idle":
            busy.discard(event.session_id)  # every piece of that session was published before it went idle
            if not busy:
                return


async def main() -> None:
    project = Path(tempfile.mkdtemp())
    # One scripted model per session, so each session's answer is known whichever turn runs first.
    poem, sums = _streaming("poem", "Roses are red, violets are blue."), _streaming("sums", "Two and two make four.")
    resolver = ScriptedResolver({poem.info.ref: poem, sums.info.ref: sums})
    async with open_runtime(project, {"HOME": str(project)}, models=resolver, store="memory") as rt:
        first, second = await rt.sessions.create(), await rt.sessions.create()
        labels = {first.id: "poem", second.id: "sums"}
        # Subscribed before the turns start, so no piece is published before anyone listens.
        async with rt.bus.subscribe() as events, anyio.create_task_group() as group:
            group.start_soon(forward, events, labels)
            group.start_soon(rt.loop.prompt, PromptRequest(first.id, [TextInput("a poem")], model=poem.info.ref))
            group.start_soon(rt.loop.prompt, PromptRequest(second.id, [TextInput("a sum")], model=sums.info.ref))
        stored = {labels[s]: (await rt.sessions.messages(s))[-1].text for s in labels}

    for pane, pieces in sorted(panes.items()):
        print(f"{pane}: {len(pieces)} pieces -> {''.join(pieces)!r}; stored: {stored[pane]!r}")
    switches = sum(1 for before, after in pairwise(arrivals) if before != after)
    print("the panes took turns", switches, "times")  # how often depends on scheduling; the texts do not
    assert {pane: "".join(pieces) for pane, pieces in panes.items()} == stored


def _streaming(name: str, text: str) -> ScriptedModel:
    """A model `scripted/NAME` streaming `text` 4 characters every 10 ms, as one over the network would, so
    the two sessions' streams overlap."""
    return ScriptedModel([{"text": text, "chunk_size": 4, "delay": 0.01}], info=ModelInfo("scripted", name))


anyio.run(main)
