"""JupyterHub for a bleu_lab course on one server (The Littlest JupyterHub's shape: one machine, local users).

Install (as root, one environment for the hub and the students; docs/instructor.md, "On one server"):

    /usr/bin/python3 -m venv /opt/bleu-lab-hub      # the system's Python: one under /root is refused
    /opt/bleu-lab-hub/bin/pip install "bleu_lab-0.1.0-py3-none-any.whl[hub]"
    npm install -g configurable-http-proxy@5.3.0
    groupadd students && groupadd instructors         # both must exist (the start check below)
    install -d -m 700 /srv/bleu-lab-hub && cd /srv/bleu-lab-hub
    /opt/bleu-lab-hub/bin/jupyterhub -f "$(/opt/bleu-lab-hub/bin/python -c \
        'from bleu_lab.course import course_root; print(course_root() / "jupyter-settings/jupyterhub_config.py")')"

What a student gets: a login with their account on this machine (PAM; members of the Unix group STUDENTS_GROUP),
their own Jupyter server running as themselves, the course copied into ~/bleu-lab-course by ``bleu-lab lessons``
each time that server starts (new lessons added, untouched ones updated, a lesson they changed never overwritten),
JupyterLab opened on lesson 0, and the playground and the comparison page as Voilà apps at
``/user/NAME/voila/render/notebooks/playground.ipynb`` and ``.../compare_app.ipynb``.

Why the copy runs in the server's start command and not in a ``Spawner.pre_spawn_hook``: the hook runs inside the
hub's process, as root, so every file it wrote would belong to root (the student could not save a lesson) and a slow
disk would hold up the hub for every student; the start command runs as the student, under the student's limits,
with every spawner. (On Kubernetes, z2jh's ``singleuser.lifecycleHooks.postStart`` does the same: z2jh/config.yaml.)

Private by default, checked: when it starts, this config makes the hub's database readable by root only (mode
600; JupyterHub creates it 644) and refuses to start, printing one line per problem with its fix, where a student
could not run the hub's Python or read bleu_lab and the course (every server start would fail, after a timeout),
where a group it names does not exist (every login would fail), or where a student could read another student's
home (create them mode 700, each student with a group of their own: docs/instructor.md; a shared primary group and
homes of mode 750, or an ACL, are found), the hub's state folder (this working directory: mode 700) or, for graded
work, the worked solutions (bleu_lab.hub.checks).
It also notes, without refusing, packages of the students' servers that have modules without current bytecode
(students cannot write it into this environment, so each server start would compile them), with the command that
compiles them once.

Graded work: start the hub with BLEU_LAB_GRADED=1 in its environment. Each student's server then copies the lessons
as handed out, without worked solutions (``bleu-lab lessons --no-solutions``: solution files an earlier copy left
and the student never changed are deleted), and the hub refuses to start until the installed solutions are closed
to students: ``chmod -R go-rwx .../bleu_lab/course_files/notebooks/solutions`` (``bleu-lab guide`` prints where).

Limits and stopping: with systemd (this machine's init), SystemdSpawner (jupyterhub-systemdspawner, in the ``hub``
extra) runs each student's server in a systemd unit: ``mem_limit`` and ``cpu_limit`` are its MemoryMax= and
CPUQuota=, for all of the student's processes together, and stopping the server (the idle culler, an admin, the hub's
shutdown) stops the unit, which ends every process in it. Without systemd (a container), JupyterHub's own
LocalProcessSpawner would enforce neither limit and, on stop, signal only the server's process, leaving kernels'
children and whatever a student started with setsid or nohup running; this config uses bleu_lab.hub.fallback's
FallbackSpawner instead: LocalProcessSpawner with a cgroup per student made by hand (the same limits, as
memory.max/cpu.max or their cgroup v1 files, and every process left in the cgroup killed after the server stops).
Where root cannot make cgroups (a read-only /sys/fs/cgroup), no limit is enforced and every process of the
student's uid is killed after the server stops. The hub's log says, at start, which of these holds here.
"""

import os
import shlex
import sys
from pathlib import Path

import bleu_lab
from bleu_lab.course import (
    DEFAULT_DIR,
    FIRST_LESSON,
    GRADED_ENV,
    RELEASED_ENV,
    SOLUTIONS,
    course_files,
    course_root,
    graded_from_environment,
    read_released,
)
from bleu_lab.hub import checks as hub_checks
from bleu_lab.hub import fallback as hub_fallback

c = get_config()  # noqa: F821 (defined by traitlets when it loads this file)

# --- who logs in -------------------------------------------------------------------------------------------------
# Local users (PAM, JupyterHub's default authenticator): the students' accounts on this machine, with private homes
# (mode 700) and a group of their own each (no shared primary group); docs/instructor.md's runbook, e.g.
#   groupadd students && groupadd instructors
#   useradd --create-home -K HOME_MODE=0700 --groups students alice && passwd alice
# The students' group: "students", or another name in BLEU_LAB_STUDENTS_GROUP; the instructors' (hub admins: they
# see and can stop every student's server): "instructors", or BLEU_LAB_INSTRUCTORS_GROUP. Both must exist: PAM's
# group check fails every login otherwise (the start check below refuses to start).
STUDENTS_GROUP = os.environ.get("BLEU_LAB_STUDENTS_GROUP", "students")
INSTRUCTORS_GROUP = os.environ.get("BLEU_LAB_INSTRUCTORS_GROUP", "instructors")
c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.allowed_groups = {STUDENTS_GROUP, INSTRUCTORS_GROUP}
c.PAMAuthenticator.admin_groups = {INSTRUCTORS_GROUP}

# --- each student's server ---------------------------------------------------------------------------------------
# The hub, the students' servers and bleu_lab share this Python environment (the one running the hub).
BIN = Path(sys.executable).parent
COURSE = DEFAULT_DIR.as_posix()  # ~/bleu-lab-course, as on a laptop
SINGLEUSER_CONFIG = course_root() / "jupyter-settings" / "singleuser" / "jupyter_server_config.py"
# `bleu-lab lessons` first (idempotent: it never overwrites a file the student changed; it names what it kept), then
# the server. If the copy fails (a full disk), the server still starts, on what the student has.
c.Spawner.cmd = ["/bin/sh", "-c", f'{shlex.quote(str(BIN / "bleu-lab"))} lessons "$HOME/{COURSE}"; '
                 f'exec {shlex.quote(str(BIN / "jupyterhub-singleuser"))} "$@"', "bleu-lab-singleuser"]
c.Spawner.args = [f"--config={SINGLEUSER_CONFIG}"]
c.Spawner.notebook_dir = f"~/{COURSE}"  # the server's root: /voila/render/notebooks/playground.ipynb is there
c.Spawner.default_url = f"/lab/tree/{FIRST_LESSON}"
c.Spawner.http_timeout = 120  # 20 students arriving together on 2 cores: a server can take half a minute to answer
c.Spawner.start_timeout = 180

# Memory and CPU per student, from benchmarks/bench_hub.py (docs/instructor.md): about 190 MB (PSS) for the server
# and a lesson's kernel, 265 MB with the playground open too; the limit leaves room for the corpus-level lessons.
c.Spawner.mem_limit = "1G"
c.Spawner.cpu_limit = 1.0
# One core per student, so numpy's OpenBLAS gets one thread in each of the student's processes (the server, every
# kernel), not one per core of the machine: fewer threads to start at every import of numpy (on 2 cores, 0.05 CPU s
# each; more on a bigger server) and none left competing for the student's one core.
c.Spawner.environment = {"OPENBLAS_NUM_THREADS": "1"}
if os.path.isdir("/run/systemd/system"):  # systemd is this machine's init (sd_booted)
    c.JupyterHub.spawner_class = "systemdspawner.SystemdSpawner"
    c.SystemdSpawner.isolate_tmp = True  # a private /tmp per student
    c.SystemdSpawner.isolate_devices = True
    c.SystemdSpawner.disable_user_sudo = True
else:  # a cgroup per student, by hand (bleu_lab/hub/fallback.py); the log line says what this machine enforces
    c.JupyterHub.spawner_class = hub_fallback.FallbackSpawner
    print("bleu_lab jupyterhub_config: " + hub_fallback.describe(hub_fallback.probe(), c.Spawner.mem_limit,
                                                                 c.Spawner.cpu_limit), file=sys.stderr)

# --- graded work: no worked solutions (BLEU_LAB_GRADED=1 in the hub's environment) --------------------------------
try:
    GRADED = graded_from_environment()
except ValueError as err:
    sys.exit(f"bleu_lab jupyterhub_config: {err}")
if GRADED:  # `bleu-lab lessons` in the start command reads it: the lessons as handed out, no worked solutions
    c.Spawner.environment[GRADED_ENV] = "1"
# One lesson at a time: BLEU_LAB_RELEASED=/etc/bleu-lab/released.txt lists the numbered lessons handed out so far (one
# a line, optionally with the date and time it opens: "03_brevity_penalty 2026-12-01 09:00"). Each student's start
# command reads it at every login, so a line added (or an opening time passed) releases the lesson at the next one.
RELEASED = os.environ.get(RELEASED_ENV, "").strip()
if RELEASED:
    if not GRADED:
        sys.exit(f"bleu_lab jupyterhub_config: {RELEASED_ENV} releases graded lessons one at a time: set "
                 f"{GRADED_ENV}=1 too (without it every lesson is handed out, with its worked solution)")
    RELEASED = os.path.abspath(RELEASED)
    try:
        print(f"bleu_lab jupyterhub_config: released so far ({RELEASED}): "
              f"{', '.join(sorted(read_released(RELEASED))) or 'none'}", file=sys.stderr)
    except ValueError as err:
        sys.exit(f"bleu_lab jupyterhub_config: {err}")
    c.Spawner.environment[RELEASED_ENV] = RELEASED
    c.Spawner.default_url = "/lab/tree/notebooks"  # the first lesson may not be released yet

# --- private by default, checked before the hub starts -------------------------------------------------------------
STATE = Path.cwd()  # the hub's database, cookie secret and proxy token live in its working directory
DATABASE = STATE / "jupyterhub.sqlite"
c.JupyterHub.db_url = f"sqlite:///{DATABASE}"
SOLUTIONS_DIR = course_root() / Path(SOLUTIONS).parent
PROBLEMS = hub_checks.start_problems(
    group=STUDENTS_GROUP, python=Path(sys.executable), scripts=[BIN / "bleu-lab", BIN / "jupyterhub-singleuser"],
    package=Path(bleu_lab.__file__).parent,
    course=[course_root() / f for f in course_files(solutions=not GRADED)] + [SINGLEUSER_CONFIG],
    state=STATE, solutions=SOLUTIONS_DIR if GRADED else None,
    other_groups={INSTRUCTORS_GROUP: "the instructors', hub admins"})
if RELEASED:
    PROBLEMS += hub_checks.released_problems(Path(RELEASED), hub_checks.group_members(STUDENTS_GROUP)[0])
if PROBLEMS:
    sys.exit("bleu_lab jupyterhub_config: the hub does not start until these are fixed (one per line):\n  "
             + "\n  ".join(PROBLEMS))
hub_checks.private_database(DATABASE)  # root only (600): it holds every user's name and the hub's tokens
print(f"bleu_lab jupyterhub_config: checked: students can run {sys.executable} and read the course; groups "
      f"{STUDENTS_GROUP!r} and {INSTRUCTORS_GROUP!r} exist; no student can read another's home (group "
      f"{STUDENTS_GROUP!r}, each student's own groups and the homes' ACLs), {STATE} or {DATABASE.name}"
      + (f"; graded work: no student can read {SOLUTIONS_DIR}" if GRADED else ""), file=sys.stderr)
BYTECODE = hub_checks.bytecode_note(Path(sys.executable))  # pip compiles what it installs; a copy by hand may not
if BYTECODE:
    print(f"bleu_lab jupyterhub_config: {BYTECODE}", file=sys.stderr)

# --- idle servers are stopped ------------------------------------------------------------------------------------
# jupyterhub-idle-culler as a hub-managed service, with only the scopes it needs (JupyterHub 2+ roles): a server
# nobody used for an hour is stopped; the student's files stay, and the next login starts it again.
IDLE_TIMEOUT = 3600
c.JupyterHub.services = [
    {"name": "idle-culler",
     "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={IDLE_TIMEOUT}", "--cull-every=300"]},
]
c.JupyterHub.load_roles = [
    {"name": "idle-culler", "services": ["idle-culler"],
     "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"]},
]

# --- the hub -----------------------------------------------------------------------------------------------------
# Public address: every interface, port 8000. Put HTTPS in front (c.JupyterHub.ssl_cert / ssl_key, or a reverse
# proxy): PAM passwords must not cross the network in clear.
c.JupyterHub.bind_url = "http://:8000"
c.JupyterHub.cleanup_servers = True  # stopping the hub stops the students' servers
