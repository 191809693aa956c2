"""Test sets on disk: the shipped news corpus, plain text files, and sacrebleu's WMT downloads.

A test set is parallel line-aligned text: line i of the source, of every reference and of every system
output belong to segment i. ``Corpus`` keeps the files as they are (``reference_streams``, one list per
file) and gives the references per segment, as ``corpus_score`` and the significance tests take them.

The shipped corpus ``data/news`` (``load_corpus('news')``) works offline. ``load_wmt`` fetches an official
WMT test set through sacrebleu, which needs the internet the first time (sacrebleu caches it afterwards).
"""

from __future__ import annotations

import difflib
import gzip
import io
import socket
import sys
import warnings
import zlib
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .course import DEFAULT_DIR, course_root
from .validation import MAX_SEGMENT_CHARS, segment_too_long

DOWNLOAD_TIMEOUT = 60  # seconds before an unreachable download server counts as offline


class DataUnavailableError(RuntimeError):
    """A test set could not be obtained (typically: sacrebleu's download failed because the machine is offline)."""


# --- reading files ------------------------------------------------------------------------------------


MAX_INPUT_BYTES = 256 * 1024 * 1024  # a WMT test set is well under 1 MB; anything this big is a mistake
MAX_SEGMENTS = 1_000_000  # a WMT test set has a few thousand; this bounds the memory of short lines (see README)
MAX_LINE_BYTES = 4 * MAX_SEGMENT_CHARS + 2  # the most bytes a line within the bound can take (UTF-8, '\r\n')


def read_lines(path: str | Path, what: str = "text") -> list[str]:
    """The lines of a UTF-8 text file, without their line endings ('\\n' or '\\r\\n').

    ``path`` may be '-' (standard input) or a gzip file ending in '.gz', as sacrebleu reads them; a file starting
    with a byte order mark gets a warning (the BOM stays in the first token, as in sacrebleu).

    Files are split on '\\n' only, like sacrebleu's reader (str.splitlines would also split on rare Unicode
    separators and shift every later segment). Standard input is split as sacrebleu's command line reads it, a text
    stream with universal newlines, so a lone '\\r' ends a line there too. ``what`` names the file's role in error
    messages ("hypothesis", "reference 2"). Files are read a line at a time, at most ``MAX_INPUT_BYTES`` bytes,
    ``MAX_SEGMENTS`` lines and ``validation.MAX_SEGMENT_CHARS`` characters a line (a longer line is refused as soon as
    its first ``MAX_LINE_BYTES`` bytes are read).
    """
    if str(path) == "-":
        return _read_stream(sys.stdin.buffer, what, "standard input", lone_cr_ends_line=True)
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as stream:
            return _read_stream(stream, what, path)
    except FileNotFoundError:
        raise FileNotFoundError(f"{what} file not found: {path}{_course_hint(path)}") from None
    except IsADirectoryError:
        raise IsADirectoryError(f"{what} file {path} is a directory, not a text file") from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as err:
        raise ValueError(f"{what} file {path} is not a valid gzip file: {err}") from None



def _course_hint(path: Path) -> str:
    """Where the course's copy of a missing file is, when the course ships a file of that name (its examples are
    named relative to the course folder: data/news/ref.A.de)."""
    if path.is_absolute():
        return ""
    try:
        data = course_root() / "data"
    except FileNotFoundError:
        return ""
    found = next((p for p in sorted(data.rglob("*")) if p.name == path.name and p.is_file()), None)
    if found is None:
        return ""
    relative = found.relative_to(course_root())
    copy = DEFAULT_DIR / relative
    if copy.is_file():
        return f" (the course's copy is {copy}: give that path, or run this in {DEFAULT_DIR}/)"
    return (f" (the course ships it as {relative.as_posix()} in the course folder: 'bleu-lab lessons' makes "
            f"{DEFAULT_DIR}/, then give {(DEFAULT_DIR / relative).as_posix()} or run this in {DEFAULT_DIR}/)")


def decode_lines(data: bytes, path: object, what: str = "text") -> list[str]:
    """``read_lines`` on bytes already read (e.g. an uploaded file); ``path`` names the file in messages."""
    return _read_stream(io.BytesIO(data), what, path)


def _read_stream(stream: BinaryIO, what: str, name: object, lone_cr_ends_line: bool = False) -> list[str]:
    """Decode and split ``stream`` one '\\n'-terminated line at a time, within the size bounds."""
    lines: list[str] = []
    size = number = 0
    while raw := stream.readline(min(MAX_INPUT_BYTES + 1 - size, MAX_LINE_BYTES + 1)):  # each stops at a bound
        while lone_cr_ends_line and len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n") and \
                b"\r" in raw[-MAX_LINE_BYTES:]:  # lines that end in a lone '\r': read on to the '\n'
            more = stream.readline(min(MAX_INPUT_BYTES + 1 - size - len(raw), MAX_LINE_BYTES + 1))
            if not more:
                break
            raw += more
        size, number = size + len(raw), number + 1
        if len(raw) > MAX_LINE_BYTES and not (lone_cr_ends_line and b"\r" in raw):
            raise segment_too_long(f"{what} file {name}, line {number},")
        if size > MAX_INPUT_BYTES:
            raise ValueError(f"{what} file {name} is larger than {MAX_INPUT_BYTES // 2**20} MB: not a test set "
                             "(one segment per line, a few MB at most)")
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            warnings.warn(f"{what} file {name} starts with a UTF-8 byte order mark (BOM); it stays part of the first "
                          "token, as in sacrebleu, and can cost that segment matches: save the file as UTF-8 without "
                          "BOM", stacklevel=3)
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ValueError(
                f"{what} file {name} is not valid UTF-8: byte 0x{raw[err.start]:02x} at line {number}, column "
                f"{err.start + 1} (save the file as UTF-8)"
            ) from None
        if line.endswith("\n"):
            line = line[:-2] if line.endswith("\r\n") else line[:-1]
        pieces = line.split("\r") if lone_cr_ends_line else [line[:-1] if line.endswith("\r") else line]
        if lone_cr_ends_line and len(pieces) > 1 and pieces[-1] == "" and not raw.endswith(b"\n"):
            pieces.pop()  # the stream ends with a lone '\\r': it ends the last line
        longest = max(map(len, pieces))
        if longest > MAX_SEGMENT_CHARS:
            raise segment_too_long(f"{what} file {name}, line {number},", longest)
        lines.extend(pieces)
        if len(lines) > MAX_SEGMENTS:
            raise ValueError(f"{what} file {name} has more than {MAX_SEGMENTS:,} lines: not a test set "
                             "(a WMT test set has a few thousand segments)")
    return lines


def line_count_error(name: str, lines: Sequence[str], other: str, other_lines: Sequence[str]) -> ValueError:
    """The error for two files that should be line-aligned but are not, naming both files and counts."""
    return ValueError(
        f"{name} has {_lines(len(lines))} but {other} has {_lines(len(other_lines))}: "
        "line i of every file must belong to segment i"
    )


def check_line_counts(files: dict[str, Sequence[str]]) -> None:
    """Raise ``ValueError`` naming the first file whose line count differs from the first file's."""
    (first, first_lines), *others = files.items()
    for name, lines in others:
        if len(lines) != len(first_lines):
            raise line_count_error(name, lines, first, first_lines)


def _lines(n: int) -> str:
    return f"{n} line" if n == 1 else f"{n} lines"


def references_per_segment(streams: Sequence[Sequence[str]]) -> list[list[str]]:
    """Per-segment reference lists from line-aligned reference files; an empty line means "no reference here".

    A segment keeps its non-empty references; if all of them are empty it keeps one empty reference
    (so every segment has at least one, as BLEU requires).
    """
    segments = []
    for refs in zip(*streams):
        kept = [r for r in refs if r.strip()]
        segments.append(kept or [refs[0]])
    return segments


# --- corpora ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    """A line-aligned test set: sources, references and (for shipped corpora) system outputs."""

    name: str
    path: Path
    sources: list[str]
    reference_streams: dict[str, list[str]]  # reference name -> one line per segment ('' = no reference)
    systems: dict[str, list[str]]  # system name -> one hypothesis per segment

    def __len__(self) -> int:
        return len(self.sources)

    @property
    def references(self) -> list[list[str]]:
        """All references of each segment (empty lines dropped): ``references[i]`` goes with segment i."""
        return references_per_segment(list(self.reference_streams.values()))

    def references_for(self, *names: str) -> list[list[str]]:
        """Per-segment references from the named reference files only, e.g. ``references_for('A')``."""
        if not names:
            raise ValueError(f"name at least one reference; this corpus has {', '.join(self.reference_streams)}")
        unknown = [n for n in names if n not in self.reference_streams]
        if unknown:
            raise ValueError(f"unknown reference {unknown[0]!r}; this corpus has {', '.join(self.reference_streams)}")
        return references_per_segment([self.reference_streams[n] for n in names])

    def __str__(self) -> str:
        refs = ", ".join(
            f"{n} ({sum(1 for line in s if line.strip())} lines)" for n, s in self.reference_streams.items()
        )
        systems = ", ".join(self.systems) or "none"
        return f"Corpus {self.name!r}: {len(self)} segments; references {refs}; systems: {systems}"

    def _repr_html_(self) -> str:
        from .reports.templates import render  # the pages' templates live in the reports layer

        references = [(n, sum(1 for line in s if line.strip()), len(s)) for n, s in self.reference_streams.items()]
        return render("corpus.html.j2", corpus=self, references=references)


def corpus_dir() -> Path:
    """The folder of the shipped corpora: the course's ``data/`` (in the installed package, or a clone's top level)."""
    return course_root() / "data"


def available_corpora() -> list[str]:
    """Names of the shipped corpora (sub-folders of ``corpus_dir()`` holding a ``src.*`` file)."""
    root = corpus_dir()
    if not root.is_dir():
        return []
    return sorted(d.name for d in root.iterdir() if d.is_dir() and any(d.glob("src.*")))


def load_corpus(name: str = "news") -> Corpus:
    """Load a shipped corpus from ``corpus_dir()/name``: ``src.<lang>``, ``ref.<NAME>.<lang>``, ``sys.<NAME>.<lang>``.

    Systems are ordered by name. An empty line in a reference file means "no reference for this segment"
    (the news corpus's ``ref.B.de`` covers segments 1-60 only); ``Corpus.references`` drops those.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a corpus name (str), not {type(name).__name__}")
    known = available_corpora()
    if name not in known:  # only names of shipped corpora: never a path ("", "..", "/etc") outside data/
        if not known:
            raise FileNotFoundError(
                f"no shipped corpora found in {corpus_dir()}: the data/ folder comes with the bleu_lab repository "
                "and its wheel (reinstall bleu_lab: from its wheel, or from a clone with pip install -e .)"
            )
        raise ValueError(f"unknown corpus {name!r}; available: {', '.join(known)}")
    return _load_folder(name, corpus_dir() / name)


def _load_folder(name: str, folder: Path) -> Corpus:
    sources = sorted(folder.glob("src.*"))
    if len(sources) != 1:
        raise ValueError(f"{folder} must hold exactly one src.<lang> file, found {len(sources)}")
    refs = {p.name.split(".")[1]: p for p in sorted(folder.glob("ref.*.*"))}
    systems = {p.name.split(".")[1]: p for p in sorted(folder.glob("sys.*.*"))}
    if not refs:
        raise ValueError(f"{folder} holds no reference file ref.<NAME>.<lang>")
    files = {sources[0].name: read_lines(sources[0], "source")}
    files.update({p.name: read_lines(p, "reference") for p in refs.values()})
    files.update({p.name: read_lines(p, "system") for p in systems.values()})
    check_line_counts(files)
    return Corpus(
        name,
        folder,
        files[sources[0].name],
        {ref: files[p.name] for ref, p in refs.items()},
        {system: files[p.name] for system, p in systems.items()},
    )


# --- WMT test sets through sacrebleu -----------------------------------------------------------------


def load_wmt(test_set: str = "wmt21", langpair: str = "en-de") -> Corpus:
    """An official WMT test set (sources and references, no systems) through sacrebleu's dataset API.

    sacrebleu downloads the test set on first use and caches it (in ~/.sacrebleu or $SACREBLEU); offline
    this raises ``DataUnavailableError`` explaining what failed. The lessons use ``load_corpus('news')``.
    """
    from sacrebleu.dataset import DATASETS

    if not isinstance(test_set, str) or not isinstance(langpair, str):
        raise TypeError("test_set and langpair must be strings, e.g. load_wmt('wmt21', 'en-de')")
    if test_set not in DATASETS:
        close = difflib.get_close_matches(test_set, list(DATASETS), n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(f"unknown test set {test_set!r}{hint} (sacrebleu --list shows them all)")
    dataset = DATASETS[test_set]
    if langpair not in dataset.langpairs:
        raise ValueError(
            f"{test_set} has no language pair {langpair!r}; it has {', '.join(sorted(dataset.langpairs))}"
        )
    try:
        with _socket_timeout(DOWNLOAD_TIMEOUT):
            source_file = dataset.get_source_file(langpair)
            reference_files = dataset.get_reference_files(langpair)
    except (Exception, SystemExit) as err:  # sacrebleu calls sys.exit on some download failures
        detail = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
        raise DataUnavailableError(
            f"could not get the {test_set} {langpair} test set through sacrebleu ({detail}). sacrebleu downloads "
            "test sets from the internet on first use, so this machine is probably offline. "
            "The lessons use the shipped corpus instead: bleu_lab.data.load_corpus('news')"
        ) from None
    files = {Path(source_file).name: read_lines(source_file, "source")}
    names = {}
    for path in map(Path, reference_files):
        files[path.name] = read_lines(path, "reference")
        field = path.name.rsplit(".", 1)[-1]  # 'ref' or 'ref-A' (sacrebleu writes ref:A as ref-A)
        names[field.removeprefix("ref-") if field != "ref" else "ref"] = files[path.name]
    if not names:
        raise DataUnavailableError(f"sacrebleu lists no reference file for {test_set} {langpair}")
    check_line_counts(files)
    return Corpus(f"{test_set} {langpair}", Path(source_file).parent, files[Path(source_file).name], names, {})


@contextmanager
def _socket_timeout(seconds: float):
    """Give sacrebleu's downloads (urllib, no timeout of its own) a time limit, then restore the default."""
    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(seconds)
    try:
        yield
    finally:
        socket.setdefaulttimeout(previous)
