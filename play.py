"""Play Tarneeb against the computer at the terminal, or replay a saved hand.

    python play.py [--partner SPEC] [--opponents SPEC] [--rules PRESET|file.yaml] [--target N]
                   [--seed S] [--delay SECONDS] [--save-dir DIR]
    python play.py --replay FILE

You sit at seat 0; your partner is opposite and play goes counter-clockwise.
Agent specs are those of ``agents.load``. Type ``help`` at any prompt.

The library is the ``playing`` package; this script is its front end, as is ``tarneeb-play``.
"""
import sys

from playing.cli import main

if __name__ == "__main__":
    sys.exit(main())
