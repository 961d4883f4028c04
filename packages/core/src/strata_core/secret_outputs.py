"""The clear outputs of tool calls that showed a secret file with the user's consent, held in memory only.

A `.env`-style file (`tool.support.content_guard.is_secret`) that the user let a tool show (an ask answered
yes, `--auto`, or a rule allowing it) reaches the model once. What is stored with the call's part, published on
the bus, exported and summarised is a placeholder (`secret_placeholder`, worded in
`prompts/tools/secret_output.txt`); the clear output lives here, keyed by session and part id, for the rest of
the process. `history.to_model_messages` puts it back into the requests this process sends, so the current
conversation goes on as if nothing were held back. After a restart (a resumed session, `strata run -s`, an
import) nothing is here and the model reads the placeholder, which tells it that reading the file again asks
the user again. Compaction builds its summary request without this service: a summary is stored.

The container holds one `SecretOutputs` (`core.secret_outputs`), a Singleton shared by the processor, which
keeps each such output, and the request builder, which restores it; a test or an application may override it.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import define, field, frozen

from strata_core.message import FilePart, ToolPart
from strata_core.texts import read_prompt

MAX_KEPT = 256
"""Outputs held at most (each within the read tool's 50 KB); past it the oldest is dropped and the model
reads its placeholder, which says how to get the content back."""


@frozen
class ClearOutput:
    """What a call gave the model, before the placeholder took its place in the store."""

    output: str
    placeholder: str
    """What the part stores instead: only where it still does is the output given back (a client may have
    replaced the part since, `PATCH .../part/{id}`)."""
    attachments: list[FilePart] | None = None


def secret_placeholder(files: Sequence[str]) -> str:
    """The stored stand-in for the content of `files`: shown once, not kept, asked again on a new read."""
    named = ", ".join(files) if files else "a protected file"
    return read_prompt("tools/secret_output.txt").strip().replace("{files}", named)


@define
class SecretOutputs:
    """Clear outputs by (session id, part id), oldest first, at most `max_kept` of them."""

    max_kept: int = MAX_KEPT
    _kept: dict[tuple[str, str], ClearOutput] = field(factory=dict, init=False, repr=False)

    def keep(self, part: ToolPart, clear: ClearOutput) -> None:
        key = (part.session_id, part.id)
        self._kept.pop(key, None)
        self._kept[key] = clear
        while len(self._kept) > self.max_kept:
            del self._kept[next(iter(self._kept))]

    def clear_output(self, part: ToolPart) -> ClearOutput | None:
        """The output `part` really had, when this process showed it; None otherwise (or once dropped)."""
        return self._kept.get((part.session_id, part.id))
