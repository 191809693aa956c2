"""Before nbval runs the lessons: build matplotlib's font cache once, so a fresh machine's first notebook
does not print "Matplotlib is building the font cache" into an output that nbval compares."""

import matplotlib.font_manager  # noqa: F401 - importing it builds (or loads) the cache
