"""Before pytest runs the lessons with nbval: build matplotlib's font cache once.

At the top of the project so that it applies to notebooks/ as well as tests/: on a fresh machine the first
notebook would otherwise print "Matplotlib is building the font cache" into an output that nbval compares.
"""

import matplotlib.font_manager  # noqa: F401 - importing it builds (or loads) the cache
