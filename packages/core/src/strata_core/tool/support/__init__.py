"""What the built-in tools are made of: file text and kinds, search, shell parsing and processes, patches, edits.

What other packages use is re-exported here; each name loads with its module on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from strata_core._exports import lazy_exports

if TYPE_CHECKING:
    from strata_core.tool.support.confined_file import (
        ChangedWhileOpening,
        NotRegularFile,
        Target,
        descriptor,
        kind_name,
        open_for_reading,
        read_all,
    )
    from strata_core.tool.support.file_kind import is_binary, media_type
    from strata_core.tool.support.network_address import is_address
    from strata_core.tool.support.paths_guard import absolute, inside_project, real
    from strata_core.tool.support.search import Search, SearchError, walk_files

__all__ = [
    "ChangedWhileOpening",
    "NotRegularFile",
    "Search",
    "SearchError",
    "Target",
    "absolute",
    "descriptor",
    "inside_project",
    "is_address",
    "is_binary",
    "kind_name",
    "media_type",
    "open_for_reading",
    "read_all",
    "real",
    "walk_files",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ChangedWhileOpening": "strata_core.tool.support.confined_file",
        "NotRegularFile": "strata_core.tool.support.confined_file",
        "Search": "strata_core.tool.support.search",
        "SearchError": "strata_core.tool.support.search",
        "Target": "strata_core.tool.support.confined_file",
        "absolute": "strata_core.tool.support.paths_guard",
        "descriptor": "strata_core.tool.support.confined_file",
        "inside_project": "strata_core.tool.support.paths_guard",
        "is_address": "strata_core.tool.support.network_address",
        "is_binary": "strata_core.tool.support.file_kind",
        "kind_name": "strata_core.tool.support.confined_file",
        "media_type": "strata_core.tool.support.file_kind",
        "open_for_reading": "strata_core.tool.support.confined_file",
        "read_all": "strata_core.tool.support.confined_file",
        "real": "strata_core.tool.support.paths_guard",
        "walk_files": "strata_core.tool.support.search",
    },
)
