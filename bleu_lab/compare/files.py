"""Files in: line-aligned text files (paths or uploaded bytes) checked and turned into ``compare_systems``'s input.

Every file is UTF-8 text with one segment per line; line i of every file belongs to segment i. With several
reference files an empty line means "no reference for this segment" (``data.references_per_segment``). Each
problem is a ``ValueError`` that names the file: a line count that differs, bytes that are not UTF-8, a file too big.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..data import decode_lines, line_count_error, read_lines, references_per_segment


@dataclass(frozen=True)
class TextFile:
    """One input file: what it is called in messages, and its lines."""

    label: str  # e.g. "system file sys.de"
    lines: list[str]


@dataclass(frozen=True)
class ComparisonInputs:
    """What ``compare_systems`` takes: {name: output lines}, per-segment references, the source lines or None."""

    systems: dict[str, list[str]]
    references: list[list[str]]
    sources: list[str] | None


def read_text_file(path: str | Path, what: str) -> TextFile:
    """A file on disk (``data.read_lines``: UTF-8, size-bounded, '-' for standard input, '.gz' allowed)."""
    return TextFile(f"{what} file {path}", read_lines(path, what))


MAX_UPLOAD_BYTES = 20 * 2**20  # one uploaded file (files chosen at once: course.UPLOAD_MESSAGE_BYTES)


def decode_text_file(name: str, data: bytes, what: str, max_bytes: int = MAX_UPLOAD_BYTES) -> TextFile:
    """Uploaded bytes, decoded as ``read_lines`` does; at most ``max_bytes`` (a test set is well under 1 MB)."""
    if len(data) > max_bytes:
        raise ValueError(f"{what} file {name} has {len(data):,} bytes; at most {max_bytes:,} are accepted here "
                         "(a test set, one segment per line, is well under a megabyte)")
    return TextFile(f"{what} file {name}", decode_lines(data, name, what))


def comparison_inputs(
    names: Sequence[str], systems: Sequence[TextFile], references: Sequence[TextFile], source: TextFile | None = None
) -> ComparisonInputs:
    """Check that every file has as many lines as the first system file, and assemble the inputs."""
    if not systems:
        raise ValueError("no system file: give at least one system's output")
    if not references:
        raise ValueError("no reference file: give at least one reference translation")
    if len(names) != len(systems):
        raise ValueError(f"{len(names)} names for {len(systems)} system files: give one name per system")
    first = systems[0]
    for f in [*systems[1:], *references, *([source] if source else [])]:
        if len(f.lines) != len(first.lines):
            raise line_count_error(f.label, f.lines, first.label, first.lines)
    if not first.lines:
        raise ValueError(f"{first.label} is empty: a comparison needs at least one segment")
    streams = [f.lines for f in references]
    refs = references_per_segment(streams) if len(streams) > 1 else [[line] for line in streams[0]]
    return ComparisonInputs(dict(zip(names, (f.lines for f in systems))), refs, source.lines if source else None)


def default_names(files: Sequence[str]) -> list[str]:
    """The file names (without folders), or the full names where two are the same."""
    names = [Path(f).name for f in files]
    return names if len(set(names)) == len(names) else list(files)
