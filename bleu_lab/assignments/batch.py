"""A batch: ``grade_batch`` reads and backs up every file first, then grades the notebooks, up to ``jobs`` at once,
and prints their reports in the batch's order.

Each notebook is graded in a process of its own, forked from the grader once everything marking needs is imported
(``_worker``): it parses the notebook (under limits), runs it in its own kernel and box, ends every process it
started, checks the grader's files, marks it, writes its grade to a file in the batch's private folder and exits:
nothing of a notebook stays in the grader, and one whose grading process dies (out of memory, killed) gets
``not graded`` while the others go on. After each one the grader restores any submitted file that changed and appends
the grade to the journal (``journal``); a rerun of the same command after a crash resumes from it, and removes the
temporary folders the dead run left (``integrity.remove_dead_batches``); the journal goes only once the exports are
written (``export``). Grading several notebooks at once needs bubblewrap: without it a notebook runs as you and could
reach the kernels running beside it. A notebook whose run with bleu_lab's functions hidden did not finish beside
others is run again once none runs (``own_code``). Where marks go to students (``students``), each student's notebooks
of a lesson are settled before any kernel starts (``roster``).
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import json
import os
import secrets
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from . import lesson_gradings
from .integrity import BatchFiles, TamperingError, remove_dead_batches
from .journal import Journal, batch_key, grade_from_json, grade_to_json, journal_path
from .lateness import LateWork
from .notebook import (
    DEFAULT_TIMEOUT,
    MARK_MEMORY,
    Context,
    _grade_one,
    check_memory,
    check_sandbox,
    check_timeout,
    recheck_own_code,
)
from .processes import descendants, end_leftovers, subreaper
from .report import _clean, _tampered, format_grade
from .results import NotebookGrade
from .roster import check_batch
from .submissions import MAX_NOTEBOOK_MB, check_notebook_mb, peek_lesson, read_submission

MAX_JOBS = 4  # notebooks at once by default, at most (each a kernel, its marking and a few hundred MB)
PR_SET_PDEATHSIG = 1


def default_jobs(sandbox_kind: str) -> int:
    """Notebooks at once when ``--jobs`` is not given: the CPUs, at most ``MAX_JOBS``, under bubblewrap; else 1."""
    return min(os.cpu_count() or 1, MAX_JOBS) if sandbox_kind == "bubblewrap" else 1


def check_jobs(jobs: object, sandbox_kind: str | None = None) -> None:
    """``jobs`` must be a whole number from 1 to 64, and above 1 only under bubblewrap (ValueError naming --jobs)."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= 64:
        raise ValueError(f"--jobs must be a whole number from 1 to 64, not {jobs!r}")
    if jobs > 1 and sandbox_kind is not None and sandbox_kind != "bubblewrap":
        raise ValueError(f"--jobs {jobs}: grading several notebooks at once needs the bubblewrap sandbox (without it "
                         "a notebook runs as you and could reach the kernels running beside it); use --jobs 1")


def grade_batch(paths: list[Path], *, timeout: int = DEFAULT_TIMEOUT, seed: int | None = None,
                lesson: str | None = None, out=None, grades: list[NotebookGrade] | None = None,
                sandbox: str = "auto", memory: int = MARK_MEMORY, max_notebook_mb: float = MAX_NOTEBOOK_MB,
                jobs: int | None = None, journal_beside: Path | None = None,
                students: Callable[[Path], str] | None = None,
                export: Callable[[list[NotebookGrade]], object] | None = None, late: LateWork | None = None) -> int:
    """Grade each notebook of ``paths`` and print its report (one ``score:`` line each) to ``out``, in the order of
    ``paths``; return the exit code: 0, or 3 if the grader's files changed during a run (that notebook's marks and the
    rest are withheld). Each reported ``NotebookGrade`` is also appended to ``grades`` (for ``gradebook``'s exports).
    ``sandbox``: "auto", "bubblewrap" (required) or "none" (``choose_sandbox``); ``memory``: megabytes for marking one
    notebook; ``max_notebook_mb``: a larger file is refused unread; ``jobs``: notebooks at once (default
    ``default_jobs``); ``journal_beside``: the export whose journal lets a rerun resume (``journal_path``).

    ``students`` (e.g. ``roster.student_of``): marks go to students, one notebook per student and lesson, so before
    any kernel starts a student's extra notebooks of a lesson are named and not graded (``roster.check_batch``).
    ``export(grades)``: called once every notebook is graded (not when the grader's files changed), before the
    journal is removed: an export that fails or a crash while it runs keeps every mark for the rerun. ``late``: each
    notebook's lateness and the penalty rule (``lateness``), shown in its report."""
    out = out or sys.stdout
    check_timeout(timeout)
    check_sandbox(sandbox)
    check_memory(memory)
    check_notebook_mb(max_notebook_mb)
    if jobs is not None:
        check_jobs(jobs)
    sys.dont_write_bytecode = True
    for path in paths:  # an instructor's typo stops the batch before anything runs (a link or FIFO does not)
        if not os.path.lexists(path):
            raise FileNotFoundError(f"{path}: no such file")
    if lesson is not None and lesson not in lesson_gradings():
        raise ValueError(f"--lesson {lesson}: there is no such lesson (one of {', '.join(sorted(lesson_gradings()))})")
    removed = remove_dead_batches()
    context = Context.start(sandbox, memory)
    jobs = default_jobs(context.sandbox.kind) if jobs is None else jobs
    try:
        check_jobs(jobs, context.sandbox.kind)
    except ValueError:
        context.close()
        raise
    context.alone = jobs == 1 or not hasattr(os, "fork")
    context.sandbox = dataclasses.replace(context.sandbox, jobs=jobs)  # each kernel's memory: a share (sandbox)
    key = batch_key(paths, {"lesson": lesson, "timeout": timeout, "memory": memory, "sandbox": context.sandbox.kind,
                            "max_notebook_mb": max_notebook_mb})
    book = Journal.open(journal_path(journal_beside, key), key, seed, secrets.randbelow(2 ** 32))
    batch = context.batch = BatchFiles(max_notebook_mb)
    try:
        print(f"seed: {book.seed}  (hidden cases; bleu-lab grade --seed {book.seed} draws the same ones)", file=out,
              flush=True)
        print(context.sandbox.header, file=out, flush=True)
        if removed:
            print(f"bleu-lab grade: removed {removed} temporary folder{'s' if removed > 1 else ''} of a grader that "
                  "stopped", file=sys.stderr, flush=True)
        unread: dict[int, str] = {}
        for index, path in enumerate(paths):  # each file is read once, before any submission runs (kept on disk)
            try:
                batch.add(path)
            except (OSError, ValueError) as err:
                unread[index] = str(err)
        results: dict[int, NotebookGrade | TamperingError] = {}
        lessons = _settle(paths, unread, lesson, batch, students, results, out) if students is not None else {}
        resumed = 0
        for index, path in enumerate(paths):
            earlier = book.earlier(index, batch.digest(path)) if index not in unread.keys() | results.keys() else None
            if earlier is not None:
                earlier.note = (earlier.note + "; " if earlier.note else "") + (
                    "resumed: marked by an earlier run of this command, which stopped")
                results[index] = earlier
                resumed += 1
        if resumed:
            print(f"resumed: {resumed} of {len(paths)} notebooks marked by an earlier run of this command "
                  f"(journal {_clean(str(book.path))})", file=out, flush=True)
        todo = [index for index in range(len(paths)) if index not in results]
        printed = _Printer(paths, results, out, grades, late)
        printed.flush()

        def grade_here(index: int, pending: NotebookGrade | None = None) -> NotebookGrade | TamperingError:
            return _grade_here(paths[index], unread.get(index), lessons.get(index, lesson), timeout, seed=book.seed,
                               context=context, pending=pending)

        def done(index: int, grade: NotebookGrade | TamperingError, alongside: int) -> bool:
            if isinstance(grade, NotebookGrade):
                _restore(paths[index], grade, batch, alongside)
                book.record(index, batch.digest(paths[index]), grade)
            results[index] = grade
            return printed.flush()

        with subreaper():
            keep = descendants()
            if not hasattr(os, "fork"):  # (Windows: one at a time, in this process)
                for index in todo:
                    grade = grade_here(index)
                    end_leftovers(keep)
                    if not done(index, grade, 0):
                        break
            else:
                _run_workers(todo, jobs, grade_here, done, paths, batch.backup, keep)
        tampered = printed.tampered or min(((i, g) for i, g in results.items() if isinstance(g, TamperingError)),
                                           default=None, key=lambda item: item[0])
        if tampered is not None:
            book.finish()  # (regrade after reinstalling, as the error says)
            _tampered(paths[tampered[0]], tampered[1])
            return 3
        if export is not None:
            export(printed.given)
        book.finish()  # only now: every mark is in the exports
    finally:
        context.close()
        batch.close()
    return 0


def _settle(paths: list[Path], unread: dict[int, str], lesson: str | None, batch: BatchFiles,
            students: Callable[[Path], str], results: dict, out) -> dict[int, str]:
    """Before any kernel starts: each readable notebook's lesson (``lesson``, else ``peek_lesson``), by index, and,
    of a student's several notebooks of one lesson, those not graded (``roster.check_batch``): their grades go into
    ``results`` now, and a line for each student's lesson so settled is printed to ``out``."""
    gradings = lesson_gradings()
    lessons = {}
    for index, path in enumerate(paths):
        found = lesson if index not in unread else None
        if index not in unread and found is None:
            found = peek_lesson(path, batch.read(path), gradings)
        if found is not None:
            lessons[index] = found
    refused, lines = check_batch(paths, lessons, students)
    for line in lines:
        print(_clean(line), file=out, flush=True)
    for index, why in refused.items():
        results[index] = NotebookGrade(paths[index], lessons[index], note=f"not graded: {why}", graded=False)
    return lessons


class _Printer:
    """Prints the reports in the batch's order as the grades come in (a grade waits for those before it)."""

    def __init__(self, paths: list[Path], results: dict, out, grades: list[NotebookGrade] | None,
                 late: LateWork | None = None) -> None:
        self.paths, self.results, self.out, self.grades, self.late = paths, results, out, grades, late
        self.given: list[NotebookGrade] = []  # every grade printed, in order
        self.next = 0
        self.tampered: tuple[int, TamperingError] | None = None

    def flush(self) -> bool:
        """Print every report now due; False once a notebook changed the grader's files (nothing more is printed)."""
        while self.tampered is None and self.next in self.results:
            grade = self.results.pop(self.next)
            if isinstance(grade, TamperingError):
                self.tampered = (self.next, grade)
                return False
            print(format_grade(grade, self.late), file=self.out, flush=True)
            self.given.append(grade)
            if self.grades is not None:
                self.grades.append(grade)
            self.next += 1
        return self.tampered is None and not any(isinstance(g, TamperingError) for g in self.results.values())


def _grade_here(path: Path, unread: str | None, lesson: str | None, timeout: float, *, seed: int,
                context: Context, pending: NotebookGrade | None = None) -> NotebookGrade | TamperingError:
    """One notebook of the batch, in this process: parsed (from the batch's copy), run and marked, then every process
    it started ended and the grader's files checked. ``pending``: its grade, whose run with bleu_lab's functions
    hidden did not finish beside other notebooks (``retry``): that run alone is tried again."""
    if unread is not None:
        return NotebookGrade(path, "?", note=f"not graded: {unread}", graded=False, sandbox=context.sandbox.kind)
    try:
        nb, lesson_name = read_submission(path, lesson, context.batch.read(path), max_mb=context.batch.max_mb)
    except (OSError, ValueError) as err:
        return NotebookGrade(path, "?", note=f"not graded: {err}", graded=False, sandbox=context.sandbox.kind)
    with subreaper():
        keep = descendants()
        try:
            if pending is None:
                grade = _grade_one(path, nb, lesson_name, timeout, seed, context)
            else:
                grade = recheck_own_code(path, nb, pending, timeout, seed, context, first=False)
        except TamperingError as exc:
            end_leftovers(keep)
            return exc
        except Exception as exc:  # noqa: BLE001 - one notebook never stops the batch
            grade = NotebookGrade(path, lesson_name, note=f"not graded: {type(exc).__name__}", graded=False,
                                  sandbox=context.sandbox.kind)
        del nb
        ended = end_leftovers(keep)
    if ended and context.sandbox.kind == "none":  # (a bubblewrap box's own processes may still be exiting)
        grade.note = (grade.note + "; " if grade.note else "") + (
            f"{ended} process{'es' if ended > 1 else ''} it left running {'were' if ended > 1 else 'was'} ended")
    try:
        context.check(f"while {path} ran")
    except TamperingError as exc:
        return exc
    return grade


def _restore(path: Path, grade: NotebookGrade, batch: BatchFiles, alongside: int) -> None:
    """Put back the submitted files that changed, and say so in ``grade`` (naming it, when nothing else ran)."""
    restored = batch.restore()
    if not restored:
        return
    names = ", ".join(str(p) for p in restored[:5]) + (" ..." if len(restored) > 5 else "")
    who = "it changed submitted files" if not alongside else (
        f"submitted files changed while it and {alongside} other notebook{'s' if alongside > 1 else ''} ran")
    grade.note = (grade.note + "; " if grade.note else "") + f"{who} (restored): {names}"
    print(f"bleu-lab grade: warning: {_clean(str(path))}{'' if not alongside else ' (or one graded beside it)'} "
          f"changed submitted files, restored: {_clean(names)}", file=sys.stderr, flush=True)


def _run_workers(todo: list[int], jobs: int, grade_here: Callable[..., NotebookGrade | TamperingError],
                 done: Callable[[int, NotebookGrade | TamperingError, int], bool], paths: list[Path],
                 folder: Path, keep: set[int]) -> None:
    """Grade the notebooks ``todo`` (indices), each in a forked worker, at most ``jobs`` at once; ``done(index,
    grade, others_running)`` as each ends (False: start no more). A grade whose run with bleu_lab's functions hidden
    did not finish (``retry``) gets that run again in a worker of its own once no other runs (``grade_here(index,
    grade)``), so that nothing beside it disturbs it. Whatever a worker leaves is ended when none runs."""
    running: dict[int, int] = {}
    alone: list[tuple[int, NotebookGrade]] = []  # waiting for a retry with nothing beside it
    todo = list(todo)
    go_on = True
    try:
        while ((todo or alone) and go_on) or running:
            if alone and go_on and not running:
                index, pending = alone.pop(0)
                running[_fork_worker(index, lambda i, g=pending: grade_here(i, g),
                                     folder / f"result-{index}.json")] = index
            while todo and go_on and not alone and len(running) < jobs:
                index = todo.pop(0)
                running[_fork_worker(index, grade_here, folder / f"result-{index}.json")] = index
            pid, status = os.waitpid(-1, 0)  # a worker, or a process a dead worker left (re-parented here)
            if pid not in running:
                continue
            index = running.pop(pid)
            grade = _worker_result(folder / f"result-{index}.json", status, paths[index])
            if not running:
                end_leftovers(keep)
            if isinstance(grade, NotebookGrade) and grade.retry:
                print(f"bleu-lab grade: {_clean(str(paths[index]))}: its run with bleu_lab's functions hidden did "
                      f"not finish ({_clean(grade.retry)}): it runs again once nothing runs beside it",
                      file=sys.stderr, flush=True)
                alone.append((index, grade))
                continue
            go_on = done(index, grade, len(running)) and go_on
    finally:
        for pid in running:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in running:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        end_leftovers(keep)


def _fork_worker(index: int, grade_here: Callable[[int], NotebookGrade | TamperingError], result: Path) -> int:
    """A child process that grades notebook ``index`` and writes its grade to ``result`` (it dies with the grader)."""
    parent = os.getpid()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        _fresh_event_loop()
        grade = grade_here(index)
        if isinstance(grade, TamperingError):
            item = {"tampered": {"when": grade.when, "changed": grade.changed}}
        else:
            item = {"grade": grade_to_json(grade)}
        partial = result.with_suffix(".partial")
        partial.write_text(json.dumps(item), encoding="utf-8")
        os.replace(partial, result)
        code = 0
    except BaseException:  # noqa: BLE001 - a worker never returns into the grader's code
        code = 1
    finally:
        os._exit(code)


def _fresh_event_loop() -> None:
    """In a worker: close the event loop inherited from the grader (its selector and wake-up pipe are the grader's,
    shared by the fork), so that nbclient and jupyter_client make a new one. Only an embedding (a test that graded
    in-process before) has one: the command line's grader runs no loop before its workers."""
    from jupyter_core.utils import ensure_event_loop

    loop = ensure_event_loop()
    if not loop.is_running():
        loop.close()


def _worker_result(result: Path, status: int, path: Path) -> NotebookGrade | TamperingError:
    """What a worker wrote, or a grade saying how it died."""
    try:
        item = json.loads(result.read_text(encoding="utf-8")) if os.WIFEXITED(status) and not os.WEXITSTATUS(
            status) else None
        result.unlink(missing_ok=True)
        if item is not None and "tampered" in item:
            return TamperingError(item["tampered"]["when"], list(item["tampered"]["changed"]))
        if item is not None:
            return grade_from_json(item["grade"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit code {os.WEXITSTATUS(status)}"
    return NotebookGrade(path, "?", note=f"not graded: its grading process ended ({how}: out of memory?)",
                         graded=False)
