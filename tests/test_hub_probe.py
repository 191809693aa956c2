"""``bleu-lab hub check`` (issue 44): what it refuses before it creates anything. The probe login itself, on a real
hub with PAM and real accounts, is checked by tests/test_hub_runbook.py (its runbook step 6b)."""

from __future__ import annotations

import os
import pwd
import socket
import uuid

import pytest

from bleu_lab.cli import main

hub_checks = pytest.importorskip("bleu_lab.hub.checks", reason="POSIX accounts and groups (pwd, grp)")
hub_harness = pytest.importorskip("hub_harness", reason="tests/hub_harness.py needs psutil and requests")


@pytest.mark.parametrize(("argv", "says"), [
    (["hub"], "bleu-lab hub: error: the one subcommand is 'check' (bleu-lab hub check --help)"),
    (["hub", "start"], "bleu-lab hub: error: the one subcommand is 'check' (bleu-lab hub check --help)"),
    (["hub", "check", "--timeout", "0"],
     "bleu-lab hub check: error: --timeout must be a positive number of seconds, got 0.0"),
    (["hub", "check", "--homes", "/no/such/folder"],
     "bleu-lab hub check: error: --homes /no/such/folder is not a folder"),
])
def test_bad_input_is_one_line_naming_the_option(capsys, argv, says):
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == says


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_missing_group_or_no_hub_is_named_before_any_account_is_made(capsys):
    probe = "blp" + uuid.uuid4().hex[:8]
    url = f"http://127.0.0.1:{closed_port()}"
    missing = "bleu-lab-no-such-group-" + uuid.uuid4().hex[:8]
    assert main(["hub", "check", "--url", url, "--group", missing, "--probe", probe]) == 1
    out = capsys.readouterr().out.splitlines()
    if os.geteuid() != 0:
        assert out == ["FAILED: root: bleu-lab hub check creates a local account and removes it: run it as root "
                       "(sudo -i)"]
        return
    [why] = hub_checks.group_problems({missing: "the students'"})
    assert out == [f"FAILED: the students' group: {why}"]
    assert main(["hub", "check", "--url", url, "--group", hub_harness.no_homes_group(), "--probe", probe]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"FAILED: the hub answers: no answer from {url} (ConnectionError): start the hub (the runbook's step 6), or "
        "give its address with --url"]
    with pytest.raises(KeyError):
        pwd.getpwnam(probe)  # nothing was made
