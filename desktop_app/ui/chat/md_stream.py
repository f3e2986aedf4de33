"""Streaming Markdown split into blocks: finished blocks once, the unfinished last block on every update.

``MarkdownStream`` owns the text of one answer as it grows. ``feed`` parses only the part after the last
finished block with markdown-it-py (CommonMark plus tables and strikethrough, raw HTML off) and returns the
top-level blocks that are now complete (every block but the last: another block has started after it) and
the last, still open block. The view renders a finished block once and never touches it again, and renders
the open block again on each update, so the cost of an update depends on the size of that last block, not
on the length of the answer (STACK-NOTES §7).

The open block is *smoothed* before it is parsed, so that no raw syntax shows while it streams:

* a last line that is only markup so far (``-``, ``#``, ``` `` ```, ``|``, ``1.`` …) is held back until it
  says what it is (a half-typed ``---`` would otherwise turn the paragraph above into a heading and back);
* a table whose header row is complete is shown as a table at once: the delimiter row is written for it
  (or completed, when it has only begun), and a header row still being typed is held back;
* emphasis, strikethrough and inline code left open are closed, a dangling opener is dropped, and a link
  whose URL is still arriving is closed (``[text](http://ex`` → a link; ``[text`` → ``text``);
* an open code fence needs nothing: markdown-it already runs it to the end of the text, so it is a code
  block from its first line.

Only the open block is smoothed; a finished block is parsed as written. ``finish`` parses the rest as
written too, and because smoothing only ever completes what is there, the final render of the last block
looks like its last live render (no jump at the end).

This module is Qt-free: the view (``markdown_view``) turns ``Block`` values into widgets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# A line that is, so far, only markup: it may become a rule, a setext underline, a heading, a list item, a
# quote, a fence or a table, and shows nothing yet.
_MARKUP_ONLY = re.compile(r"^\s*(?:[-=*_+#`>|~:]+|\d{1,9}[.)]?)\s*$")
_TABLE_ROW = re.compile(r"^\s{0,3}\|.*\|\s*$")
_PARTIAL_DELIMITER = re.compile(r"^\s{0,3}\|?[\s:|-]*$")
_OPEN_LINK_URL = re.compile(r"(!?)\[([^\]\n]*)\]\(([^)\s]*)$")
_OPEN_LINK_TEXT = re.compile(r"!?\[([^\]\n]*)$")
_LIST_MARKER = re.compile(r"^(\s*)([*+-]|\d{1,9}[.)])(\s+)")

BlockKind = Literal["prose", "code"]
LONG_PARAGRAPH = 1200  # characters: an open paragraph longer than this is cut, so each update stays small
CUT_MARGIN = 40


def make_parser() -> MarkdownIt:
    """CommonMark with GitHub tables and strikethrough; raw HTML is shown as text, never interpreted."""
    from markdown_it import MarkdownIt  # ~30 ms: loaded with the first answer, not before the first paint

    return MarkdownIt("commonmark", {"html": False, "breaks": False}).enable(["table", "strikethrough"])


@dataclass(frozen=True)
class Block:
    """One top-level Markdown block, ready to render.

    ``kind`` is ``"code"`` for fenced and indented code (``code``/``language`` set, ``closed`` False while
    the fence is still open), else ``"prose"`` (``tokens``: markdown-it's tokens of the block; ``element``:
    its first tag, e.g. ``table``, ``h2``, ``ul``). ``source`` is the Markdown it came from.
    """

    kind: BlockKind
    source: str
    tokens: tuple[Any, ...] = ()
    element: str = ""
    code: str = ""
    language: str = ""
    closed: bool = True
    continues: bool = False  # the rest of the paragraph before it (a long paragraph is cut as it streams)


class MarkdownStream:
    """The growing text of one answer, cut into finished blocks and one open block."""

    def __init__(self, parser: MarkdownIt | None = None) -> None:
        self._md = parser or make_parser()
        self.source = ""
        self.frozen = 0  # offset in ``source`` where the unfinished part starts
        self.finished = False
        self._continuing = False  # the unfinished part starts inside a paragraph cut by ``_cut_long``

    def feed(self, text: str) -> tuple[list[Block], Block | None]:
        """Append ``text``; return the blocks finished by it and the open last block (None: nothing shows)."""
        self.source += text
        return self._update(final=False)

    def finish(self) -> list[Block]:
        """The text is complete: every remaining block, as written."""
        self.finished = True
        done, tail = self._update(final=True)
        return done + ([tail] if tail is not None else [])

    def _update(self, *, final: bool) -> tuple[list[Block], Block | None]:
        rest = self.source[self.frozen :]
        shown = rest if final else smooth(rest)
        env: dict[str, Any] = {}
        tokens = self._md.parse(shown, env)
        groups = _top_level(tokens)
        if not groups:
            return [], None
        done: list[Block] = []
        starts = _line_starts(rest)
        keep = len(groups) if final else len(groups) - 1
        for index in range(keep):
            start_line, group = groups[index]
            end = len(rest) if index + 1 >= len(groups) else starts[min(groups[index + 1][0], len(starts) - 1)]
            source = rest[starts[min(start_line, len(starts) - 1)] : end]
            done.append(self._block(group, env, source, continues=index == 0 and self._continuing))
        if final:
            self.frozen = len(self.source)
            self._continuing = False
            return done, None
        if keep:
            self.frozen += starts[min(groups[keep][0], len(starts) - 1)]
            self._continuing = False
        _start_line, group = groups[-1]
        tail = self._block(group, env, self.source[self.frozen :], open_block=True, continues=self._continuing)
        if tail.kind == "prose" and tail.element == "p" and len(tail.source) > LONG_PARAGRAPH:
            cut = _cut_point(tail.source)
            if cut is not None:  # freeze the paragraph's first part; the rest goes on in the same paragraph
                head_source = tail.source[:cut]
                head_tokens = _top_level(self._md.parse(head_source, env))[0][1]
                done.append(self._block(head_tokens, env, head_source, continues=self._continuing))
                self.frozen += cut
                self._continuing = True
                rest_tokens = _top_level(self._md.parse(smooth(self.source[self.frozen :]), env))
                if not rest_tokens:
                    return done, None
                tail = self._block(rest_tokens[0][1], env, self.source[self.frozen :], open_block=True, continues=True)
        return done, tail

    def _block(
        self,
        tokens: list[Any],
        env: dict[str, Any],
        source: str,
        *,
        open_block: bool = False,
        continues: bool = False,
    ) -> Block:
        first = tokens[0]
        if first.type in ("fence", "code_block"):
            language = first.info.strip().split(" ")[0] if first.type == "fence" else ""
            code = first.content[:-1] if first.content.endswith("\n") else first.content
            closed = first.type == "code_block" or not open_block or _fence_closed(source)
            return Block("code", source, code=code, language=language, closed=closed)
        return Block("prose", source, tokens=tuple(tokens), element=first.tag, continues=continues)


def _cut_point(paragraph: str) -> int | None:
    """Where a long open paragraph can be cut: after a sentence if there is one near the end, else after a
    space, always before a letter and with no span left open before it (so that both parts render as they
    would together). None: no such place yet."""
    low = max(1, len(paragraph) - LONG_PARAGRAPH)
    candidates = [p for p in range(len(paragraph) - CUT_MARGIN, low, -1) if _cuttable(paragraph, p)]
    if not candidates:
        return None
    sentence = [p for p in candidates if paragraph[p - 2] in ".!?:;" and paragraph[p].isupper()]
    position = (sentence or candidates)[0]
    head = paragraph[:position]
    lines = head.split("\n")
    if _close_inline(lines) != lines or "[" in lines[-1]:
        return None  # an open span: wait until it closes
    return position


def _cuttable(paragraph: str, position: int) -> bool:
    return paragraph[position - 1] == " " and paragraph[position].isalpha() and "\n" not in paragraph[position:]


def _top_level(tokens: list[Any]) -> list[tuple[int, list[Any]]]:
    """Group the tokens into top-level blocks: (first source line, tokens of the block)."""
    groups: list[tuple[int, list[Any]]] = []
    current: list[Any] = []
    depth = 0
    for token in tokens:
        if depth == 0:
            if token.map is None:  # nothing at the top level without a line range (defensive)
                continue
            current = [token]
            groups.append((token.map[0], current))
        else:
            current.append(token)
        depth += token.nesting
    return groups


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for match in re.finditer("\n", text):
        starts.append(match.end())
    return starts


def _fence_closed(source: str) -> bool:
    lines = source.split("\n")
    opener = _FENCE.match(lines[0])
    if opener is None:
        return False
    mark = opener.group(1)
    for line in lines[1:]:
        stripped = line.strip()
        if stripped.startswith(mark[0] * len(mark)) and set(stripped) == {mark[0]}:
            return True
    return False


def _open_fence(lines: list[str]) -> str | None:
    """The mark of the code fence the text ends in, if any (the lines start at a block boundary)."""
    mark: str | None = None
    for line in lines:
        if mark is None:
            opener = _FENCE.match(line)
            if opener is not None:
                mark = opener.group(1)
        else:
            stripped = line.strip()
            if stripped.startswith(mark) and set(stripped) == {mark[0]}:
                mark = None
    return mark


# -- smoothing the open block -----------------------------------------------------------------------------


def smooth(rest: str) -> str:
    """``rest`` (the unfinished part of an answer) made safe to show: see the module docstring."""
    lines = rest.split("\n")
    head, last = lines[:-1], lines[-1]
    fence = _open_fence(lines)
    if fence is not None:  # code shows as it is; only a closing fence being typed is held back
        stripped = last.strip()
        return "\n".join([*head, ""]) if stripped and set(stripped) == {fence[0]} else rest
    if last and _MARKUP_ONLY.match(last):
        last = ""
    head, last = _smooth_table(head, last)
    paragraph_start = len(head)
    while paragraph_start > 0 and head[paragraph_start - 1].strip():
        paragraph_start -= 1
    paragraph = [*head[paragraph_start:], last]
    closed = _close_inline(paragraph)
    return "\n".join([*head[:paragraph_start], *closed])


def _smooth_table(head: list[str], last: str) -> tuple[list[str], str]:
    """Show a table as soon as its header row is complete; hold back a header row still being typed."""
    before_last = head[-1] if head else None
    starts_block = len(head) < 1 or not head[-1].strip()
    if last.lstrip().startswith("|") and starts_block:
        return head, ""  # a header row in progress: nothing to show yet
    if before_last is None or not _TABLE_ROW.match(before_last):
        return head, last
    previous = head[-2] if len(head) >= 2 else ""
    if previous.strip():  # a row under other text: a body row of a table already there (or a paragraph)
        return head, last
    if last and not _PARTIAL_DELIMITER.match(last):
        return head, last
    columns = max(1, before_last.strip().strip("|").count("|") + 1)
    return [*head, "|" + "---|" * columns], ""


def _close_inline(lines: list[str]) -> list[str]:
    """Close the emphasis, strikethrough and code spans left open in the paragraph being typed."""
    text = "\n".join(lines)
    link = _OPEN_LINK_URL.search(text)
    if link is not None:
        text = text + ")" if link.group(3) else text[: link.start()] + link.group(2)
    else:
        label = _OPEN_LINK_TEXT.search(text)
        if label is not None:
            text = text[: label.start()] + label.group(1)
    stack: list[tuple[str, int]] = []
    i = 0
    line_start = True
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            line_start = False
            continue
        if char == "\n":
            line_start = True
            i += 1
            continue
        if line_start:
            marker = _LIST_MARKER.match(text, i)
            line_start = False
            if marker is not None:
                i = marker.end()
                continue
        if char == "`":
            run = len(text[i:]) - len(text[i:].lstrip("`"))
            run_text = "`" * run
            close = text.find(run_text, i + run)
            if close < 0:
                stack.append((run_text, i))
                break  # everything after an open code span is code
            i = close + run
            continue
        if char in "*_~":
            run = 2 if text.startswith(char * 2, i) else 1
            marker_text = char * run
            if char == "~" and run == 1:
                i += 1
                continue
            if char == "_" and i > 0 and text[i - 1].isalnum() and (not stack or stack[-1][0] != marker_text):
                i += run  # snake_case: an underscore inside a word opens nothing
                continue
            if stack and stack[-1][0] == marker_text:
                stack.pop()
            else:
                stack.append((marker_text, i))
            i += run
            continue
        i += 1
    for marker_text, position in reversed(stack):
        after = text[position + len(marker_text) :]
        if not after.strip():
            text = text[:position].rstrip(" ") if not text[:position].endswith("\n") else text[:position]
        else:
            text = text.rstrip() + marker_text
    return text.split("\n")


__all__ = ["Block", "MarkdownStream", "make_parser", "smooth"]
