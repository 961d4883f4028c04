"""The visible text of an HTML page, for webfetch's `format: text`; imported when a page is first fetched."""

from __future__ import annotations

from html.parser import HTMLParser

HIDDEN_TAGS = frozenset({"script", "style", "noscript", "iframe", "object", "embed"})


class TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._hidden or tag in HIDDEN_TAGS:
            self._hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if self._hidden:
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)
