"""Terminal output: a Textual app drawn onto an SSH channel, in as few bytes as it takes.

:mod:`.driver` (Textual's driver over a channel), :mod:`.screen_diff` (only the changed
cells), :mod:`.sgr` (shorter style codes), :mod:`.no_colour` (monochrome and NO_COLOR
clients), :mod:`.term_size` (sizes a client may ask for).
"""
