"""``bleu-lab grade NOTEBOOK ...``: marks that depend only on what the student's code returns.

Before the first submission runs, every file is read once (a link or a special file is refused, never followed),
backed up and fingerprinted; the grader imports everything marking needs (bleu_lab, sacrebleu and its tokenizers,
nltk's BLEU, numpy, nbclient ...), snapshots the files it runs (``Snapshot``) and guards any later import
(``ImportGuard``). Then, for each submission:

1. **Run it in a box.** Only the ``.ipynb`` is copied, into a private temporary folder that is the kernel's working
   directory and home; the kernel is the grader's own (``python -I -B``), with fresh IPython and Jupyter folders, its
   output to ``/dev/null``, a wall-clock limit for the whole notebook and a cap on the output kept. Under bubblewrap
   (``sandbox``) it sees the system read-only, no network, no other submission, no solution, and its own PIDs.
2. **Check the grader's files** (bleu_lab, everything on ``sys.path`` from the standard library on, the interpreter)
   against the snapshot *before* any marking (without bubblewrap; in its box they are read-only mounts) and after
   the notebook: a change stops the batch, and no file of it is ever read.
3. **Ask for plain values.** The grader sends the kernel the code of ``wire`` and asks for each answer by name; the
   replies (bounded JSON text) go undecoded to the marking process. A function answer comes back as a name: the
   checks get a ``KernelFunction`` that sends each call's arguments to the kernel (``CALL_TIMEOUT`` seconds a call).
4. **Mark under limits.** The lessons' own checks (``bleu_lab.course.exercises``) run in a forked child (``limits``)
   with a wall-clock limit (``--timeout``) and a memory limit (``--memory``), on the visible cases and on hidden cases
   drawn now from ``--seed`` (nothing hidden ships). Beyond a limit the notebook gets 0 and a note; the batch goes on.
5. **Clean up.** Every process the submission started is ended (``processes``: the grader is their subreaper), the
   grader's files are checked again, and a submitted file that changed is restored and the submission named.

Points: 1 for the visible check, 1 more for the hidden cases (function exercises), all or nothing each, and only for
the student's own code (``own_code``: marked again with bleu_lab's implementation hidden); a written answer is
"manual": shown with its key points, not counted here (``bleu-lab mark`` records its mark by hand, which the exports
count: ``hand_marks``).

The grader is split by role, each module importing only those above it:

- ``results``: ``ExerciseResult`` and ``NotebookGrade``;
- ``marking``: the checks on the student's values (``grade_exercise``, ``Marker``, ``assert_passes``);
- ``submissions``: reading a notebook, bounded (``read_regular``, ``read_submission``, ``lesson_of``);
- ``integrity``: the grader's files and the batch's (``Snapshot``, ``ImportGuard``, ``BatchFiles``);
- ``session``: the kernel under the output cap (``BoundedClient``, ``KernelSession``, its spec and environment);
- ``report``: ``format_grade``;
- ``notebook``: one notebook start to end (``Context``, ``choose_sandbox``, ``grade_notebook``);
- ``journal``: a batch's marks so far, so that a rerun after a crash resumes;
- ``roster``: whose notebook is which (the folder layout), one per student and lesson, settled before grading;
- ``batch``: ``grade_batch``: the notebooks graded in worker processes, up to ``--jobs`` at once.

This module re-exports their names (``from bleu_lab.assignments.grade import grade_batch`` keeps working, and so does
the nbgrader test cells' ``assert_passes``).
"""

from __future__ import annotations

from .batch import (  # noqa: F401 - re-exported
    MAX_JOBS,
    check_jobs,
    default_jobs,
    grade_batch,
)
from .integrity import (  # noqa: F401 - re-exported
    PROTECTED_PACKAGES,
    SKIPPED_IN_STDLIB,
    BatchFiles,
    ImportGuard,
    Snapshot,
    TamperingError,
    _import_everything,
    _walk_protected,
    protected_roots,
    remove_dead_batches,
)
from .marking import (  # noqa: F401 - re-exported
    WIRE_CLASSES,
    KernelFunction,
    Marker,
    StudentError,
    Unreadable,
    _answers,
    _run_check,
    _wire_classes,
    assert_passes,
    grade_exercise,
    grade_namespace,
    hidden_rng,
    student_error,
)
from .notebook import (  # noqa: F401 - re-exported
    DEFAULT_TIMEOUT,
    MARK_MEMORY,
    SANDBOX_MODES,
    Context,
    _grade_one,
    _mark,
    check_memory,
    check_sandbox,
    check_timeout,
    choose_sandbox,
    grade_notebook,
)
from .report import (  # noqa: F401 - re-exported
    _clean,
    _tampered,
    format_grade,
)
from .results import (  # noqa: F401 - re-exported
    ExerciseResult,
    NotebookGrade,
)
from .session import (  # noqa: F401 - re-exported
    CALL_TIMEOUT,
    MAX_MESSAGE_BYTES,
    OUTPUT_LIMIT,
    RECEIVE_QUEUE,
    REPLY_LIMIT,
    KernelSession,
    _bounded_client_class,
    _cell_timeout,
    _error,
    _kernel_env,
    _kernel_spec_manager,
    _kill_group,
    _process_group,
    _run_cells,
    message_size,
)
from .submissions import (  # noqa: F401 - re-exported
    MAX_BRACKETS,
    MAX_CELLS,
    MAX_NOTEBOOK_MB,
    READ_MEMORY,
    READ_SECONDS,
    check_notebook_mb,
    lesson_of,
    parse_notebook,
    read_regular,
    read_submission,
)
