"""Playing against the computer: the terminal game (:mod:`playing.terminal`), saved-hand replays
(:mod:`playing.records`), the browser table (:mod:`playing.web`) and the command line (:mod:`playing.cli`)."""
