"""``bleu-lab mark GRADES``'s page: each written answer beside its rubric, and a field for its mark, served on
127.0.0.1 only, on a free port (or ``--port``), behind a token, as Jupyter does: the address printed carries it
(``?token=...``), and every form sends it back; a request without it, or with another ``Host`` than the address's
(DNS rebinding), is refused. For a class of 200, a filter (a plain GET form, so the keyboard and no script do) lists
one student's answers (part of the login, any case) or the answers still to mark only; each mark form carries the
filter back, so the page after a save shows the same list. A saved mark is checked (``hand_marks.parse_mark``: from
0 to the answer's points, else the page says why beside the field), recorded, and every export written again
(``hand_marks.record``).

The page is rendered from ``templates/mark_page.html.j2`` with autoescape: a student's answer is untrusted text and
stays text. It runs no script and loads nothing (``Content-Security-Policy``), and is never cached; the server logs no
request (the token is in the address). Stop it with Ctrl-C (or SIGTERM).
"""

from __future__ import annotations

import hmac
import secrets
import signal
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

from ..reports.templates import render
from . import hand_marks
from .hand_marks import Change, StoredGrades

HOST = "127.0.0.1"
MAX_FORM_BYTES = 10_000
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
}


@dataclass(frozen=True)
class Filter:
    """Which answers the page lists: a student's (``student``: part of the login, any case) and/or those still to
    mark (``unmarked``: no mark, to mark again included); the default lists them all."""

    student: str = ""
    unmarked: bool = False

    @classmethod
    def from_query(cls, query: Mapping[str, list[str]]) -> Filter:
        """The filter a page's query string or form gave (``parse_qs``'s mapping)."""
        return cls(query.get("student", [""])[0].strip()[:200], query.get("unmarked", [""])[0] == "1")

    def keeps(self, answer: hand_marks.WrittenAnswer) -> bool:
        return self.student.casefold() in answer.student.casefold() and not (self.unmarked and answer.mark is not None)

    def query(self) -> dict[str, str]:
        """The filter as query parameters (none for the default)."""
        return {name: value for name, value in (("student", self.student), ("unmarked", "1" if self.unmarked else ""))
                if value}


class MarkingSession:
    """What the page shows and records: the stored grades, the token, and a lock around each recording."""

    def __init__(self, stored: StoredGrades, prog: str, token: str | None = None) -> None:
        self.stored, self.prog = stored, prog
        self.token = token or secrets.token_urlsafe(32)
        self.lock = threading.Lock()

    def answers(self) -> list[hand_marks.WrittenAnswer]:
        recorded = hand_marks.load_hand_record(self.stored.path)
        return hand_marks.written_answers(self.stored, recorded.marks, recorded.again)

    def page(self, message: str = "", errors: Mapping[int, str] | None = None,
             typed: Mapping[int, str] | None = None, chosen: Filter = Filter()) -> str:
        """The page: the answers ``chosen`` keeps (each with its number in the whole list, which its form posts)."""
        answers = self.answers()
        exports = self.stored.exports
        written = [str(p) for p in (exports.csv, exports.gradescope, exports.output) if p is not None]
        if exports.feedback is not None:
            written.append(f"the feedback pages in {exports.feedback}")
        return render("mark_page.html.j2", title="Written answers to mark", answers=answers, token=self.token,
                      shown=[(i, a) for i, a in enumerate(answers) if chosen.keeps(a)], chosen=chosen,
                      marked=sum(1 for a in answers if a.mark is not None), message=message, errors=errors or {},
                      typed=typed or {}, hand_marks=str(hand_marks.hand_marks_path(self.stored.path)),
                      exports=", ".join(written) or "no export (the grade command gave none)")

    def save(self, item: str, text: str) -> tuple[int, str]:
        """Record the mark ``text`` of answer number ``item``: (its index, what was done); ValueError if refused."""
        with self.lock:
            answers = self.answers()
            try:
                index = int(item)
                answer = answers[index]
            except (ValueError, IndexError):
                raise ValueError(f"no written answer number {item!r}: reload the page") from None
            try:
                mark = hand_marks.parse_mark(text, answer)
            except ValueError as exc:
                raise _Refused(index, str(exc)) from None
            hand_marks.record(self.stored, [Change(answer.student, answer.lesson, answer.exercise, mark)], self.prog)
        done = "removed" if mark is None else f"{mark:g} / {answer.max_points:g}"
        return index, f"Saved: {answer.student}, {answer.lesson}, {answer.exercise}: {done}. Every export is written " \
            "again."


class _Refused(ValueError):
    def __init__(self, index: int, why: str) -> None:
        super().__init__(why)
        self.index = index


def handler_class(session: MarkingSession, port: int) -> type[BaseHTTPRequestHandler]:
    hosts = {f"{HOST}:{port}", f"localhost:{port}"}

    class Handler(BaseHTTPRequestHandler):
        server_version = "bleu-lab-mark"
        sys_version = ""

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            pass  # the token is in the addresses: nothing is logged

        def _send(self, status: int, body: str, kind: str = "text/html") -> None:
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for name, value in SECURITY_HEADERS.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _refuse(self, status: int, why: str) -> None:
            self._send(status, f"bleu-lab mark: refused: {why}\n", "text/plain")

        def _allowed(self, token: str) -> bool:
            if self.headers.get("Host", "") not in hosts:
                self._refuse(HTTPStatus.FORBIDDEN, "This page answers only at the address bleu-lab mark printed.")
                return False
            if not hmac.compare_digest(token.encode(), session.token.encode()):
                self._refuse(HTTPStatus.FORBIDDEN, "Open the address bleu-lab mark printed (with its token).")
                return False
            return True

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            if url.path != "/":
                self._refuse(HTTPStatus.NOT_FOUND, "No such page.")
                return
            if not self._allowed(query.get("token", [""])[0]):
                return
            message = ""
            if "saved" in query:
                message = query.get("saved", [""])[0][:500]
            self._send(HTTPStatus.OK, session.page(message, chosen=Filter.from_query(query)))

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            length = self.headers.get("Content-Length", "")
            if not length.isdigit() or int(length) > MAX_FORM_BYTES:
                self._refuse(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"A form is at most {MAX_FORM_BYTES} bytes.")
                return
            form = parse_qs(self.rfile.read(int(length)).decode("utf-8", "replace"), keep_blank_values=True)
            if urlsplit(self.path).path != "/mark" or not self._allowed(form.get("token", [""])[0]):
                return
            text = form.get("mark", [""])[0]
            chosen = Filter.from_query(form)
            try:
                index, message = session.save(form.get("item", [""])[0], text)
            except _Refused as exc:
                self._send(HTTPStatus.BAD_REQUEST, session.page(errors={exc.index: str(exc)},
                                                                typed={exc.index: text}, chosen=chosen))
                return
            except (OSError, ValueError) as exc:
                self._send(HTTPStatus.BAD_REQUEST, session.page(f"Refused: {exc}", chosen=chosen))
                return
            target = "/?" + urlencode({"token": session.token, **chosen.query(), "saved": message}) + \
                f"#answer-{index}"
            self.send_response(HTTPStatus.SEE_OTHER)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            for name, value in SECURITY_HEADERS.items():
                self.send_header(name, value)
            self.end_headers()

    return Handler


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM stops the page as Ctrl-C does


def serve(stored: StoredGrades, port: int, prog: str) -> int:
    """Serve the page on 127.0.0.1:``port`` (0: a free one) until Ctrl-C or SIGTERM; print its address first."""
    session = MarkingSession(stored, prog)
    try:
        server = ThreadingHTTPServer((HOST, port), handler_class(session, 0))
    except OSError as exc:
        raise OSError(f"--port {port}: cannot listen on {HOST}:{port} ({exc.strerror}): give another port, or none "
                      "for a free one") from None
    server.daemon_threads = True
    bound = server.server_address[1]
    server.RequestHandlerClass = handler_class(session, bound)
    answers = session.answers()
    print(f"{prog}: {len(answers)} written answers of {stored.path}, {sum(a.mark is not None for a in answers)} "
          f"marked. Mark them at\n    http://{HOST}:{bound}/?token={session.token}\n(Ctrl-C to stop)", flush=True)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print(f"{prog}: stopped", file=sys.stderr)
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.server_close()
    return 0
