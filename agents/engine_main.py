"""``tarneeb-engine SPEC`` (or ``python -m agents.engine_main SPEC``): any agent spec as an engine.

It speaks the engine protocol (``docs/engine-protocol.md``) on stdin/stdout: it announces the presets the agent
plays (those it loads for), replays each ``deal``'s events into a :class:`~agents.engine_protocol.SeatReplay`
(what that seat knows, as the rules engine keeps it) and answers each ``act`` with the agent's choice from the
view and observation rebuilt there, so the agent plays as it would in-process. The ``act`` requests of one batch
(``pending`` counts down to 0) are decided in one ``act_batch`` call, in the order asked, as an in-process table
would ask them: a network's batched forward pass then gives the very same choices.

A message it cannot follow (a move out of turn, legal actions that disagree with its own replay) gets an
``error`` message naming it, and exit code 1: the host then stops the match with that line.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Optional

import numpy as np

from tarneeb_env import NUM_ACTIONS, PRESETS, Rules

from .engine_protocol import (ACT, BID, CUSTOM, DEAL, END, ERROR, HELLO, PASS_EVENT, PLAY, PROTOCOL_VERSION, QUIT,
                              TRUMP, ProtocolError, SeatReplay, rules_from_message)

EVENTS = (BID, PASS_EVENT, TRUMP, PLAY)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tarneeb-rl")
    except PackageNotFoundError:
        return "dev"


class Engine:
    """The engine's state: the agent per rules, the open deals, the act requests of the batch being asked."""

    def __init__(self, spec: str):
        import agents
        from agents.rules_check import RulesMismatchError

        self.spec = spec
        self._load, self._refused = agents.load, (agents.AgentSpecError, RulesMismatchError)
        self.by_rules: dict[Rules, Any] = {}
        first_error = None
        for name, rules in PRESETS.items():
            try:
                self.by_rules[rules] = agents.load(spec, rules=rules)
            except self._refused as e:
                first_error = first_error or e
        if not self.by_rules:
            raise ValueError(str(first_error))
        self.presets = [r.name for r in self.by_rules]
        if getattr(agents.load(spec), "rules", None) is None:  # it plays any rules
            self.presets.append(CUSTOM)
        self.deals: dict[int, tuple[SeatReplay, Any]] = {}
        self.asked: list[tuple[int, SeatReplay, Any]] = []

    def hello(self) -> dict:
        return {"type": HELLO, "protocol": PROTOCOL_VERSION, "name": f"tarneeb-engine {self.spec}",
                "version": _version(), "presets": self.presets,
                "deterministic": all(getattr(a, "deterministic", False) for a in self.by_rules.values())}

    def agent_for(self, rules: Rules):
        agent = self.by_rules.get(rules)
        if agent is None:
            if CUSTOM not in self.presets:
                raise ProtocolError(f"rules {rules.name} are not among the presets this engine plays "
                                    f"({', '.join(self.presets)})")
            agent = self.by_rules[rules] = self._load(self.spec, rules=rules)
        return agent

    def handle(self, msg: Any) -> list[dict]:
        """The answers to one message (none until the last ``act`` of a batch)."""
        if not isinstance(msg, dict):
            raise ProtocolError(f"expected a JSON object, got {msg!r:.80}")
        kind = msg.get("type")
        if kind == DEAL:
            rules = rules_from_message(msg.get("rules"))
            replay = SeatReplay(rules, msg.get("seat"), msg.get("dealer"), list(msg.get("hand") or ()),
                                msg.get("exposed_card"), msg.get("scores", (0, 0)), msg.get("seat_scores", (0,) * 4))
            agent = self.agent_for(rules)
            if msg.get("seed") is not None and callable(getattr(agent, "seed", None)):
                agent.seed(int(msg["seed"]))
            self.deals[msg.get("deal")] = (replay, agent)
            return []
        if kind == END:
            self.deals.pop(msg.get("deal"), None)
            return []
        if kind in EVENTS:
            self._deal(msg)[0].apply(msg.get("seat"), msg.get("action"))
            return []
        if kind == ACT:
            replay, agent = self._deal(msg)
            if tuple(msg.get("legal") or ()) != replay.legal():
                raise ProtocolError(f"deal {msg.get('deal')}: the legal actions sent, {msg.get('legal')}, are not "
                                    f"this seat's by its own replay, {list(replay.legal())}")
            self.asked.append((msg["deal"], replay, agent))
            return self._decide() if msg.get("pending", 0) == 0 else []
        raise ProtocolError(f"unknown message type {kind!r}")

    def _deal(self, msg: dict):
        found = self.deals.get(msg.get("deal"))
        if found is None:
            raise ProtocolError(f"{msg.get('type')} for deal {msg.get('deal')!r}, which was not dealt or has ended")
        return found

    def _decide(self) -> list[dict]:
        """One ``act_batch`` call per agent over the batch's requests, in the order asked."""
        asked, self.asked = self.asked, []
        actions: list[Optional[int]] = [None] * len(asked)
        groups: dict[int, list[int]] = {}
        for k, (_, _, agent) in enumerate(asked):
            groups.setdefault(id(agent), []).append(k)
        for members in groups.values():
            agent = asked[members[0]][2]
            reads = getattr(agent, "reads_observation", True)
            observations, views = [], []
            for k in members:
                replay = asked[k][1]
                mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
                mask[list(replay.legal())] = 1
                observations.append({"observation": replay.observation() if reads else None, "action_mask": mask})
                views.append(replay.view())
            batch = getattr(agent, "act_batch", None)
            chosen = batch(observations, views) if batch else [agent.act(o, v) for o, v in zip(observations, views)]
            for k, a in zip(members, chosen):
                actions[k] = int(a)
        return [{"type": "action", "deal": d, "action": a} for (d, _, _), a in zip(asked, actions)]


def serve(engine: Engine, stdin, stdout) -> int:
    """The message loop: a hello, then one answer per ``act``, until ``quit`` or the end of the input."""
    stdout.write(json.dumps(engine.hello()) + "\n")
    stdout.flush()
    for line in stdin:
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            msg = line
        if isinstance(msg, dict) and msg.get("type") == QUIT:
            return 0
        try:
            answers = engine.handle(msg)
        except ProtocolError as e:
            stdout.write(json.dumps({"type": ERROR, "message": str(e)}) + "\n")
            stdout.flush()
            return 1
        if answers:
            stdout.write("".join(json.dumps(a) + "\n" for a in answers))
            stdout.flush()
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tarneeb-engine",
        description="Run an agent spec as an engine of the tarneeb-rl engine protocol (JSON lines on stdin/stdout; "
        "see docs/engine-protocol.md). Seat it with the agent spec 'engine:tarneeb-engine SPEC'.")
    parser.add_argument("spec", metavar="SPEC", help="agent spec: rule, ppo, search?samples=8, a .pt checkpoint, "
                        "file.py:Name or module:Name")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)  # as the evaluator's tables: the same float sums, so the same choices
    try:
        engine = Engine(args.spec)
    except ValueError as e:
        print(f"tarneeb-engine: error: {e}", file=sys.stderr)
        return 2
    try:
        return serve(engine, sys.stdin, sys.stdout)
    except (BrokenPipeError, KeyboardInterrupt):  # the host is gone or stopped us: nothing to say to it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nor at exit, when stdout is flushed
        return 0


if __name__ == "__main__":
    sys.exit(main())
