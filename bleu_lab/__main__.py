"""``python -m bleu_lab HYP REF [REF ...]``: the command line (see ``bleu_lab.cli``)."""

import sys

from .cli import main

sys.exit(main(prog="python -m bleu_lab"))
