"""bleu_lab's version (one place: the package, the command line's --version and a working copy's manifest read it)."""

__version__ = "0.1.0"
