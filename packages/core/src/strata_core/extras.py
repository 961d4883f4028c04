"""strata-core's optional parts (its extras), and the one way a feature asks for one.

The base install is what prompt assembly and a turn need: config, agents, skills, instructions, sessions, the
loop, and the built-in tools in pure Python. The rest is opt-in:

    strata-core[bash]      tree-sitter, tree-sitter-bash  the bash tool parses a command to ask its permissions
    strata-core[images]    Pillow                         images (read tool, attachments) checked and scaled
    strata-core[webfetch]  markdownify                    webfetch's HTML pages as markdown (its default format)
    strata-core[ripgrep]   ripgrep                        grep and glob run `rg` (else the pure-Python walk)
    strata-core[mcp]       mcp                            the config's `mcp` servers
    strata-core[lsp]       lsprotocol                     the config's `lsp` language servers
    strata-core[postgres]  psycopg, psycopg-pool          sessions in a PostgreSQL database shared by hosts
    strata-core[tools]     bash, images, webfetch, ripgrep: every built-in tool at full strength
    strata-core[all]       tools, mcp, lsp and postgres (what the `strata` CLI installs)

A feature imports its optional module inside `needing(extra, feature)`, so a missing one is a
`MissingExtraError` naming the extra to install, never an `ImportError` traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from strata_core.errors import MissingExtraError

EXTRAS: dict[str, tuple[tuple[str, ...], str]] = {
    "bash": (("tree_sitter", "tree_sitter_bash"), "tree-sitter and tree-sitter-bash"),
    "images": (("PIL",), "Pillow"),
    "webfetch": (("markdownify",), "markdownify"),
    "mcp": (("mcp",), "the MCP SDK (mcp)"),
    "lsp": (("lsprotocol",), "lsprotocol"),
    "postgres": (("psycopg", "psycopg_pool"), "psycopg 3 with its pool"),
}
"""Each extra a feature can ask for by import: the top-level modules it installs, and the distributions as a
message names them. (ripgrep is a binary, looked up on PATH instead.) Plain tuples: this module is loaded by
every start-up that loads the built-in tools, and a class would cost more than the lookup it serves."""


@contextmanager
def needing(extra: str, feature: str) -> Iterator[None]:
    """Imports made inside raise `MissingExtraError` for `feature` when a module of `extra` is not installed.

    Only the extra's own modules count: any other missing module (a broken install) propagates as it is.
    """
    modules, needs = EXTRAS[extra]
    try:
        yield
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] not in modules:
            raise
        raise MissingExtraError(feature, extra, needs) from None
