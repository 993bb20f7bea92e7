"""Playing against the computer: the terminal game (:mod:`playing.terminal`), saved-hand replays
(:mod:`playing.records`) and the command line (:mod:`playing.cli`)."""
