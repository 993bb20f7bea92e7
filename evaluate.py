"""Duplicate evaluation from the command line: ``python evaluate.py A B [C ...]`` (see ``--help``).

The library is the ``evaluation`` package; this script is its front end, as is ``tarneeb-evaluate``.
"""
import sys

from evaluation.cli import main

if __name__ == "__main__":
    sys.exit(main())
