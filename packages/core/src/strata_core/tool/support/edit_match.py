"""Finding the text an edit means, when the model's `oldString` is not quite what the file holds.

Models copy text imperfectly: indentation drifts, trailing spaces vanish, `\\n` arrives escaped, the middle
of a block is paraphrased. OpenCode (1.18.33) tries a chain of matchers, strictest first; each proposes
spans of the *file's* text, and the first span that occurs exactly once is replaced. This module follows
the same chain and thresholds, in its own code:

exact -> line-trimmed -> block anchor -> whitespace-normalised -> indentation-flexible -> escape-normalised
-> trimmed-boundary -> context-aware -> every exact occurrence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from strata_core.errors import StrataError

Matcher = Callable[[str, str], Iterator[str]]

NOT_FOUND = (
    "Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings."
)
AMBIGUOUS = "Found multiple matches for oldString. Provide more surrounding context to make the match unique."
IDENTICAL = "No changes to apply: oldString and newString are identical."
EMPTY_OLD = (
    "oldString cannot be empty when editing an existing file. Provide the exact text to replace, "
    "or use write for an intentional full-file replacement."
)
SPAN_TOO_LARGE = (
    "Refusing replacement because the matched span is much larger than oldString. "
    "Re-read the file and provide the full exact oldString for the intended replacement."
)

ANCHOR_SIMILARITY = 0.65
"""How alike (0..1, by edit distance) the middle lines of an anchored block must be to the model's."""


class EditMatchError(StrataError, ValueError):
    """The edit cannot be placed; the message is what the model is told."""


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _span(lines: list[str], first: int, last: int) -> str:
    """The file text covering lines first..last inclusive, without the final line ending."""
    return _without_cr("\n".join(lines[first : last + 1]))


def _without_cr(line: str) -> str:
    # Lines are split on "\n", so in a CRLF file each keeps its "\r". That "\r" belongs to the line ending,
    # not to the text matched: a span ending in it would be replaced along with it, leaving a lone "\n".
    return line.removesuffix("\r")


def _drop_trailing_empty(lines: list[str]) -> list[str]:
    return lines[:-1] if lines and lines[-1] == "" else lines


def levenshtein(a: str, b: str) -> int:
    if not a or not b:
        return max(len(a), len(b))
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b)))
        previous = current
    return previous[-1]


def exact(content: str, find: str) -> Iterator[str]:
    yield find


def line_trimmed(content: str, find: str) -> Iterator[str]:
    """Lines equal once leading and trailing whitespace is ignored."""
    lines, wanted = _lines(content), _drop_trailing_empty(_lines(find))
    trimmed = [line.strip() for line in wanted]
    for start in range(len(lines) - len(wanted) + 1):
        if all(lines[start + k].strip() == trimmed[k] for k in range(len(wanted))):
            yield _span(lines, start, start + len(wanted) - 1)


def _middle_similarity(lines: list[str], start: int, end: int, wanted: list[str], early_exit: bool) -> float:
    actual = end - start + 1
    checked = min(len(wanted) - 2, actual - 2)
    if checked <= 0:
        return 1.0
    total = 0.0
    for k in range(1, min(len(wanted) - 1, actual - 1)):
        ours, theirs = lines[start + k].strip(), wanted[k].strip()
        longest = max(len(ours), len(theirs))
        if longest == 0:
            continue
        total += (1 - levenshtein(ours, theirs) / longest) / checked
        if early_exit and total >= ANCHOR_SIMILARITY:
            break
    return total


def block_anchor(content: str, find: str) -> Iterator[str]:
    """A block whose first and last lines match, of about the same length, with a similar middle."""
    if len(_lines(find)) < 3:
        return
    lines, wanted = _lines(content), _drop_trailing_empty(_lines(find))
    first, last = wanted[0].strip(), wanted[-1].strip()
    slack = max(1, len(wanted) // 4)
    candidates: list[tuple[int, int]] = []
    for start, line in enumerate(lines):
        if line.strip() != first:
            continue
        end = next((j for j in range(start + 2, len(lines)) if lines[j].strip() == last), None)
        if end is not None and abs(end - start + 1 - len(wanted)) <= slack:
            candidates.append((start, end))
    if not candidates:
        return
    single = len(candidates) == 1
    scored = [(_middle_similarity(lines, s, e, wanted, early_exit=single), s, e) for s, e in candidates]
    best = max(scored, key=lambda item: item[0])  # max keeps the first of equals, like a strict `>` scan
    if best[0] >= ANCHOR_SIMILARITY:
        yield _span(lines, best[1], best[2])


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def whitespace_normalized(content: str, find: str) -> Iterator[str]:
    """Equal once every run of whitespace counts as one space."""
    wanted = _squash(find)
    lines = _lines(content)
    for line in lines:
        if _squash(line) == wanted:
            yield _without_cr(line)
        elif wanted in _squash(line):
            words = find.strip().split()
            pattern = r"\s+".join(re.escape(word) for word in words) if words else ""
            match = re.search(pattern, line)
            if match:
                yield match.group(0)
    find_lines = _lines(find)
    if len(find_lines) > 1:
        for start in range(len(lines) - len(find_lines) + 1):
            block = _span(lines, start, start + len(find_lines) - 1)
            if _squash(block) == wanted:
                yield block


def _dedent(text: str) -> str:
    lines = _lines(text)
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    if not indents:
        return text
    shift = min(indents)
    return "\n".join(line if not line.strip() else line[shift:] for line in lines)


def indentation_flexible(content: str, find: str) -> Iterator[str]:
    """Equal once the common indentation of each side is removed."""
    wanted = _dedent(find)
    lines, size = _lines(content), len(_lines(find))
    for start in range(len(lines) - size + 1):
        block = _span(lines, start, start + size - 1)
        if _dedent(block) == wanted:
            yield block


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "'": "'", '"': '"', "`": "`", "\\": "\\", "\n": "\n", "$": "$"}


def _unescape(text: str) -> str:
    return re.sub(r"\\(n|t|r|'|\"|`|\\|\n|\$)", lambda m: _ESCAPES[m.group(1)], text)


def escape_normalized(content: str, find: str) -> Iterator[str]:
    """Equal once backslash escapes (`\\n`, `\\t`, `\\"` ...) on either side are read as what they stand for."""
    wanted = _unescape(find)
    if wanted in content:
        yield wanted
    lines, size = _lines(content), len(_lines(wanted))
    for start in range(len(lines) - size + 1):
        block = _span(lines, start, start + size - 1)
        if _unescape(block) == wanted:
            yield block


def trimmed_boundary(content: str, find: str) -> Iterator[str]:
    """Equal once blank space around the whole `oldString` is ignored."""
    wanted = find.strip()
    if wanted == find:
        return
    if wanted in content:
        yield wanted
    lines, size = _lines(content), len(_lines(find))
    for start in range(len(lines) - size + 1):
        block = _span(lines, start, start + size - 1)
        if block.strip() == wanted:
            yield block


def context_aware(content: str, find: str) -> Iterator[str]:
    """Same first and last lines, same length, and at least half of the middle lines equal when trimmed."""
    find_lines = _lines(find)
    if len(find_lines) < 3:
        return
    wanted = _drop_trailing_empty(find_lines)
    lines = _lines(content)
    first, last = wanted[0].strip(), wanted[-1].strip()
    for start, line in enumerate(lines):
        if line.strip() != first:
            continue
        end = next((j for j in range(start + 2, len(lines)) if lines[j].strip() == last), None)
        if end is None or end - start + 1 != len(wanted):
            continue
        compared = equal = 0
        for k in range(1, len(wanted) - 1):
            ours, theirs = lines[start + k].strip(), wanted[k].strip()
            if ours or theirs:
                compared += 1
                equal += ours == theirs
        if compared == 0 or equal / compared >= 0.5:
            yield _span(lines, start, end)
            return


def every_occurrence(content: str, find: str) -> Iterator[str]:
    """Each exact occurrence (lets `replaceAll` act on text the earlier matchers found ambiguous)."""
    start = content.find(find)
    while start != -1 and find:
        yield find
        start = content.find(find, start + len(find))


MATCHERS: tuple[Matcher, ...] = (
    exact,
    line_trimmed,
    block_anchor,
    whitespace_normalized,
    indentation_flexible,
    escape_normalized,
    trimmed_boundary,
    context_aware,
    every_occurrence,
)


def _line_count(text: str) -> int:
    return text.count("\n") + 1


def span_too_large(span: str, find: str) -> bool:
    """A loose match that swallows far more than the model wrote (likely the wrong place): refuse it."""
    wanted = _line_count(find)
    if _line_count(span) >= max(wanted + 3, wanted * 2):
        return True
    if wanted == 1:
        return False
    return len(span.strip()) > max(len(find.strip()) + 500, len(find.strip()) * 4)


def replace(content: str, old: str, new: str, replace_all: bool = False) -> str:
    """`content` with the text `old` stands for replaced by `new`; `EditMatchError` when that is unclear."""
    if old == new:
        raise EditMatchError(IDENTICAL)
    if old == "":
        raise EditMatchError(EMPTY_OLD)
    found = False
    for matcher in MATCHERS:
        for candidate in matcher(content, old):
            index = content.find(candidate)
            if index == -1:
                continue
            found = True
            if span_too_large(candidate, old):
                raise EditMatchError(SPAN_TOO_LARGE)
            if replace_all:
                return content.replace(candidate, new)
            if index != content.rfind(candidate):
                continue
            return content[:index] + new + content[index + len(candidate) :]
    raise EditMatchError(AMBIGUOUS if found else NOT_FOUND)
