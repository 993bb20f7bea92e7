"""Double-dummy solving for the ``expert`` agent, through endplay's ctypes binding of DDS.

Only this module talks to endplay, and only when a function here is first called, so
``import agents`` works without it. Positions are given in tarneeb-rl terms (seats 0-3,
hands as 52-bit masks, ``card = suit * 13 + rank``) and translated here:

- seats: tarneeb seat ``i`` plays after seat ``i - 1`` exactly as DDS's N(0) E(1) S(2) W(3),
  and partners sit opposite in both, so seat ``i`` is DDS player ``i``;
- suits: tarneeb clubs=0..spades=3, DDS denominations spades=0, hearts=1, diamonds=2, clubs=3,
  so DDS denomination = ``3 - suit``;
- ranks: tarneeb rank 0..12 (two..ace) is DDS rank 2..14, held in ``remainCards`` as bit ``rank + 2``.

Bidding solves one first lead per trump suit (:func:`lead_tricks`) rather than whole DD tables:
Tarneeb's first leader is known (the declarer or the eldest hand), and 4 solves cost a third of a table.

Threads: DDS solves a batch on as many threads as the machine has cores, counting cores this process may
not run on (a ``taskset``-pinned run, a container's CPU set), so by default this module caps it at the cores
the process may use (``os.sched_getaffinity``); :func:`set_threads` sets it (the evaluator gives each of its
``W`` worker processes its share of those cores). Solutions do not depend on the thread count.
"""
from __future__ import annotations

from typing import Sequence

from tarneeb_env.cards import rank_of, suit_of

from .cores import usable_cores

INSTALL_HINT = 'the expert agent needs endplay (the DDS double-dummy solver): pip install -e ".[expert]"'

_dds = None
_threads: int | None = None  # None: the cores this process may run on


def set_threads(n: int | None) -> None:
    """Solve on at most ``n`` threads (``None``: :func:`usable_cores`); applies now if DDS is loaded,
    else when it first is, so calling this never imports endplay."""
    global _threads
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"DDS threads must be a whole number >= 1 (or None for the usable cores), got {n!r}")
    _threads = n
    if _dds is not None:
        _dds.SetMaxThreads(threads())


def threads() -> int:
    """The thread count DDS solves on (set by :func:`set_threads`, else the usable cores)."""
    return _threads if _threads is not None else usable_cores()


def _lib():
    """endplay's DDS binding, imported on first use with an install hint when missing."""
    global _dds
    if _dds is None:
        try:
            import endplay._dds as dds
        except ImportError as e:
            raise ImportError(f"{INSTALL_HINT} ({e})") from None
        dds.SetMaxThreads(threads())
        _dds = dds
    return _dds


def require() -> None:
    """Raise ImportError with the install hint now, rather than at the first decision."""
    _lib()


def _fill_hands(remain, hands: Sequence[int]) -> None:
    for seat in range(4):
        h = hands[seat]
        row = remain[seat]
        for suit in range(4):
            row[3 - suit] = ((h >> (13 * suit)) & 0x1FFF) << 2


def _fill_deal(d, hands: Sequence[int], trump: int, leader: int, trick: Sequence[int]) -> None:
    d.trump = 3 - trump
    d.first = leader
    for i in range(3):
        if i < len(trick):
            c = trick[i]
            d.currentTrickSuit[i] = 3 - suit_of(c)
            d.currentTrickRank[i] = rank_of(c) + 2
        else:
            d.currentTrickSuit[i] = 0
            d.currentTrickRank[i] = 0
    _fill_hands(d.remainCards, hands)


def _solved_boards(positions: Sequence[tuple[Sequence[int], int, int, Sequence[int]]], solutions: int):
    """Solve ``(hands, trump, leader, trick)`` positions in batches of up to 200 on DDS's own threads;
    yields each position's ``futureTricks`` (valid until the next one is drawn from a new batch)."""
    dds = _lib()
    for start in range(0, len(positions), dds.MAXNOOFBOARDS):
        chunk = positions[start:start + dds.MAXNOOFBOARDS]
        bop = dds.boards()
        bop.noOfBoards = len(chunk)
        for i, (hands, trump, leader, trick) in enumerate(chunk):
            _fill_deal(bop.deals[i], hands, trump, leader, trick)
            bop.target[i] = -1
            bop.solutions[i] = solutions
            bop.mode[i] = 1
        solved = dds.solvedBoards()
        dds.SolveAllBoardsBin(bop, solved)
        for i in range(len(chunk)):
            yield solved.solvedBoard[i]


def solve_positions(
    positions: Sequence[tuple[Sequence[int], int, int, Sequence[int]]],
) -> list[dict[int, int]]:
    """Double-dummy value of every legal card in each position.

    A position is ``(hands, trump, leader, trick)``: the four remaining hands (masks, the cards of
    the current trick already removed), the trump suit, the seat that led the current trick and the
    cards played to it so far (at most 3). Returns, per position, ``{card: tricks}`` where tricks
    counts the tricks still to come (the current one included) won by the side to play.
    """
    for _, _, _, trick in positions:
        if len(trick) > 3:
            raise ValueError(f"a trick in progress holds at most 3 cards, got {len(trick)}")
    out: list[dict[int, int]] = []
    for fut in _solved_boards(positions, 3):  # every card with its score
        values: dict[int, int] = {}
        for j in range(fut.cards):
            suit = 3 - fut.suit[j]
            score = fut.score[j]
            held = (1 << fut.rank[j]) | fut.equals[j]
            for r in range(13):
                if held >> (r + 2) & 1:
                    values[suit * 13 + r] = score
        out.append(values)
    return out


def lead_tricks(positions: Sequence[tuple[Sequence[int], int, int]]) -> list[int]:
    """Tricks the leader's side takes from full hands: positions are ``(hands, trump, leader)``."""
    # the best card only: its score is the side's trick count
    return [fut.score[0] for fut in _solved_boards([(h, t, lead, ()) for h, t, lead in positions], 1)]
