"""Bounds on pathological input, enforced before any work: a segment longer than ``MAX_SEGMENT_CHARS`` (a file
without line breaks) on the command line (score, compare, why), in the comparison page's uploads and in the API;
uploads bigger than ``MAX_UPLOAD_BYTES`` on the comparison page."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from async_run import run_async

import bleu_lab
from bleu_lab import data
from bleu_lab.cli import main
from bleu_lab.compare import compare_systems
from bleu_lab.compare.files import MAX_UPLOAD_BYTES, decode_text_file
from bleu_lab.course.widgets.compare import CompareUpload
from bleu_lab.course.widgets.compare_app import CompareApp
from bleu_lab.readings import why
from bleu_lab.validation import MAX_SEGMENT_CHARS

NEWS = Path(__file__).resolve().parent.parent / "data" / "news"
BOUND = re.compile(r"at most 20,000 \(the longest line of the WMT21 test sets has 854\)")
MB8 = 8 * 2**20


@pytest.fixture(scope="module")
def one_line_files(tmp_path_factory) -> list[Path]:
    """Three one-line files of 8 MB each (words of data/news without a line break), as the issue measured."""
    folder = tmp_path_factory.mktemp("one-line")
    words = (NEWS / "ref.A.de").read_text(encoding="utf-8").split()
    text = " ".join(words)
    paths = []
    for i in range(3):
        body = (text[i:] + " ") * (MB8 // len(text) + 1)
        path = folder / f"big{i}.txt"
        path.write_text(body[:MB8] + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def test_the_bound_is_far_above_every_real_segment():
    lines = [line for path in NEWS.iterdir() for line in path.read_text(encoding="utf-8").splitlines()]
    assert max(map(len, lines)) * 20 < MAX_SEGMENT_CHARS


@pytest.mark.parametrize("command", [
    ["{0}", "{1}"],  # bleu-lab HYP REF (scoring)
    ["{0}", "{1}", "--compare", "{2}", "--paired-bs"],
    ["compare", "--systems", "{0}", "{1}", "--refs", "{2}"],
    ["why", "--reported", "27.3", "{0}", "{1}", "{2}"],
])
def test_the_command_line_refuses_a_one_line_8_mb_file_naming_the_bound(one_line_files, command, capsys):
    argv = [part.format(*one_line_files) for part in command]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(r"file .*big0.txt, line 1, has more than 20,000 characters", err[0])
    assert BOUND.search(err[0])


def test_a_long_line_is_refused_after_reading_a_bounded_start_of_it(one_line_files):
    stream = io.BytesIO(one_line_files[0].read_bytes())
    with pytest.raises(ValueError, match="line 1, has more than 20,000 characters"):
        data._read_stream(stream, "system", "big.txt")
    assert stream.tell() <= data.MAX_LINE_BYTES + 1  # 80 kB read of 8 MB: refused before any work


def test_the_bound_counts_characters_not_bytes(tmp_path):
    fits = "😀" * MAX_SEGMENT_CHARS  # 4 bytes each: the longest line in bytes that is within the bound
    path = tmp_path / "emoji.txt"
    path.write_bytes(f"a b\r\n{fits}\r\n".encode())
    assert data.read_lines(path) == ["a b", fits]
    path.write_text(f"a b\n{fits}x\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"file .*emoji.txt, line 2, has 20,001 characters; a segment may have at "
                                         r"most 20,000"):
        data.read_lines(path, "reference")
    with pytest.raises(ValueError, match="line 2, has more than 20,000 characters"):  # known from its byte count
        decode_text_file("e.txt", f"a\n{fits}😀x\n".encode(), "reference")


def test_standard_input_is_bounded_too(one_line_files):
    code = ("import sys; from bleu_lab.cli import main; sys.exit(main([sys.argv[1], sys.argv[2]]))")
    with one_line_files[0].open("rb") as stdin:
        done = subprocess.run([sys.executable, "-c", code, "-", str(one_line_files[1])], stdin=stdin,
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "standard input, line 1, has more than 20,000 characters" in done.stderr


def test_the_api_refuses_a_long_segment_naming_it():
    long = "x " * MAX_SEGMENT_CHARS
    with pytest.raises(ValueError, match=r"systems\['b'\]\[1\] has 40,000 characters; a segment may have at most"):
        compare_systems({"a": ["a b", "c d"], "b": ["a b", long]}, [["a b"], ["c d"]])
    with pytest.raises(ValueError, match=r"references\[0\]\[1\] has 40,000 characters"):
        compare_systems({"a": ["a b"], "b": ["a c"]}, [["a b", long]])
    with pytest.raises(ValueError, match=r"sources\[0\] has 40,000 characters"):
        compare_systems({"a": ["a b"], "b": ["a c"]}, [["a b"]], sources=[long])
    with pytest.raises(ValueError, match=r"hypotheses\[0\] has 40,000 characters"):
        why([long], [["a b"]], 27.3)
    with pytest.raises(ValueError, match=r"references\[0\]\[0\] has 40,000 characters"):
        why(["a b"], [[long]], 27.3)
    assert bleu_lab.corpus_score([long], [[long]]).score == pytest.approx(100)  # the core scores it, as sacrebleu


def upload(name: str, content: bytes) -> dict:
    return {"name": name, "type": "text/plain", "size": len(content), "content": memoryview(content),
            "last_modified": datetime.now(UTC)}


@pytest.mark.parametrize("page", [CompareApp, CompareUpload])
def test_an_upload_of_one_line_files_gets_a_message_naming_the_bound(page, one_line_files):
    app = page(n_samples=100, n_trials=200) if page is CompareUpload else page(example=False)
    small = [p.read_bytes()[: MAX_UPLOAD_BYTES // 4] + b"\n" for p in one_line_files]  # within the size bound
    app.systems.value = (upload("big0.txt", small[0]), upload("big1.txt", small[1]))
    app.references.value = (upload("ref.txt", small[2]),)
    assert app.compare() is None and not app.result.children
    assert "system file big0.txt, line 1, has more than 20,000 characters" in app.message.value
    assert BOUND.search(app.message.value) and "Traceback" not in app.message.value
    app.systems.value = tuple(upload(p.name, p.read_bytes()) for p in one_line_files[:2])  # 8 MB each
    app.references.value = (upload("ref.txt", one_line_files[2].read_bytes()),)
    assert app.compare() is None and "one comparison here takes at most 4,194,304 bytes" in app.message.value


@pytest.mark.parametrize("page", [CompareApp, CompareUpload])
def test_an_upload_bigger_than_the_bound_is_refused_before_it_is_read(page, monkeypatch):
    import bleu_lab.data

    read = []
    monkeypatch.setattr(bleu_lab.data, "_read_stream", lambda *args: read.append(args) or [])
    app = page(example=False) if page is CompareApp else page()
    half = b"a b\n" * (MAX_UPLOAD_BYTES // 8 + 1)  # two files, each within the bound, more than it together
    app.systems.value = (upload("a.txt", half), upload("b.txt", half))
    app.references.value = (upload("r.txt", b"a b\n"),)
    assert app.compare() is None and not read
    assert f"take at most {MAX_UPLOAD_BYTES:,} bytes in all" in app.message.value.replace("takes", "take")
    assert "a.txt (2,097,156 bytes)" in app.message.value


# --- bleu-lab classroom: every student's kernel runs under a memory limit ---------------------------------------


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux enforces RLIMIT_DATA (and shows it in /proc)")
def test_a_classroom_kernel_runs_under_its_memory_limit_and_survives_going_past_it():
    """A real kernel started by the classroom's kernel manager: its limit is in place from its first line, a
    computation past it fails with MemoryError, and the kernel goes on answering."""
    from bleu_lab.course.classroom import ClassroomKernelManager

    async def run(code: str, client) -> dict:
        msg_id = client.execute(code, stop_on_error=False)  # an error must not abort the next request (a race CI met)
        while True:
            reply = await client.get_shell_msg(timeout=120)
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply["content"]

    async def scenario() -> tuple[str, dict, dict, int]:
        manager = ClassroomKernelManager(kernel_memory_mb=600, max_starting=0)
        kernel_id = await manager.start_kernel()
        kernel = manager.get_kernel(kernel_id)
        pid = kernel.provisioner.process.pid
        client = kernel.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=120)
            limits = Path(f"/proc/{pid}/limits").read_text()
            too_much = await run("import numpy; x = numpy.ones(2 * 2**30 // 8)", client)
            after = await run("import bleu_lab; y = bleu_lab.corpus_score(['a b c d'], [['a b c d']]).score", client)
        finally:
            client.stop_channels()
            await manager.shutdown_all(now=True)
        return limits, too_much, after, pid


    limits, too_much, after, pid = run_async(scenario())
    data_line = next(line for line in limits.splitlines() if line.startswith("Max data size"))
    assert data_line.split()[3:5] == [str(600 * 2**20)] * 2  # soft and hard: the kernel cannot raise it
    assert too_much["status"] == "error" and too_much["ename"] in ("MemoryError", "_ArrayMemoryError")
    assert after["status"] == "ok"
    assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()


def test_the_pages_say_a_computation_went_past_the_memory_limit(monkeypatch):
    import bleu_lab.course.widgets.compare as compare_widgets

    def needs_too_much(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(compare_widgets, "compare_systems", needs_too_much)
    app = CompareApp(example=False)
    app.systems.value = (upload("a.txt", b"a b\n"), upload("b.txt", b"a c\n"))
    app.references.value = (upload("r.txt", b"a b\n"),)
    assert app.compare() is None
    assert "more memory than this page may use" in app.message.value and "memory limit" in app.message.value


def test_classroom_passes_the_memory_limit_to_its_kernels(capsys):
    from bleu_lab.course import classroom

    files = classroom.classroom_files("compare")
    args = classroom.build_parser().parse_args(["--page", "compare", "--memory", "800"])
    assert "--ClassroomKernelManager.kernel_memory_mb=800" in classroom.voila_arguments(args, files)
    assert classroom.build_parser().parse_args([]).memory == classroom.DEFAULT_KERNEL_MEMORY_MB
    assert classroom.main(["--memory", "100"]) == 2
    assert "--memory must be at least 400 (MB), got 100" in capsys.readouterr().err
    kernel = ["python", "-m", "ipykernel_launcher"]
    assert classroom.limited_command(kernel, 0) == kernel and classroom.limited_command(kernel, 500)[-3:] == kernel


def test_standard_input_with_lone_cr_line_ends_is_many_short_segments(monkeypatch):
    """sacrebleu's command line reads a lone '\\r' as a line end on standard input: a file saved with old Mac line
    ends is many short segments, not one long line; one long segment among them is still refused."""
    short = b"a b c\r" * 50_000  # 300 kB without a '\\n'
    lines = data._read_stream(io.BytesIO(short + b"d e\n"), "hypothesis", "standard input", lone_cr_ends_line=True)
    assert len(lines) == 50_001 and lines[-1] == "d e"
    with pytest.raises(ValueError, match=r"line 1, has 100,000 characters; a segment may have at most"):
        data._read_stream(io.BytesIO(short + b"x" * 100_000 + b"\r"), "hypothesis", "standard input",
                          lone_cr_ends_line=True)


def test_a_comparison_too_big_for_the_paired_tests_is_refused_before_any_tokenization(monkeypatch):
    import bleu_lab.compare.comparison as comparison

    def tokenized(*args, **kwargs):
        raise AssertionError("tokenized before the bound was checked")

    monkeypatch.setattr(comparison, "make_preprocessor", tokenized)
    lines = [f"segment {i}" for i in range(6_000)]  # 10,000 trials x 6,000 segments: 60 million draws
    with pytest.raises(ValueError, match="n_trials = 10000 on 6000 segments needs 60,000,000 random draws"):
        compare_systems({"a": lines, "b": lines}, [[line] for line in lines])
