"""The observation encoder's output, bit for bit, against digests recorded before it was written once (#45):
the shipped networks read these floats, so a change here would silently change every shipped agent.

For every preset, seeded random whole games through ``raw_env`` (all four observers at every decision, the
incremental writer), through ``BatchEnv`` (the kernels' encoder) and, for no-auction deals, through the
``contract7`` view. Regenerate the fixture only with a layout change (and ``OBS_VERSION`` bumped):
``python tests/test_observation_fixture.py > tests/fixtures/observation_digests.json``.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from tarneeb_env import raw_env
from tarneeb_env.batch import BatchEnv
from tarneeb_env.rules import PRESETS
from tarneeb_env.transforms import as_contract7

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "observation_digests.json"
SEED = 45
ENV_EPISODES = 2  # whole games of raw_env per preset
BATCH_GAMES, BATCH_STEPS = 16, 400


def env_digests(preset: str) -> dict[str, str]:
    env_hash, view_hash = hashlib.sha256(), hashlib.sha256()
    rng = np.random.default_rng(SEED)
    env = raw_env(rules=preset, episode="game", max_hands=20)
    for episode in range(ENV_EPISODES):
        env.reset(seed=SEED + episode)
        while env.agents:
            rows = np.stack([env.observe(a)["observation"] for a in env.possible_agents])
            env_hash.update(rows.tobytes())
            view_hash.update(as_contract7(rows).tobytes())
            _, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return {"raw_env": env_hash.hexdigest(), "contract7": view_hash.hexdigest()}


def batch_digest(preset: str) -> str:
    digest = hashlib.sha256()
    rng = np.random.default_rng(SEED)
    batch = BatchEnv(BATCH_GAMES, rules=preset, episode="game", max_hands=20, seed=SEED)
    obs, mask, _ = batch.reset()
    for _ in range(BATCH_STEPS):
        digest.update(obs.tobytes())
        u = rng.random(len(mask))[:, None]
        actions = (np.cumsum(mask, axis=1) > u * mask.sum(axis=1, keepdims=True)).argmax(axis=1)
        obs, mask, *_ = batch.step(actions)
    return digest.hexdigest()


def digests(preset: str) -> dict[str, str]:
    out = env_digests(preset)
    if PRESETS[preset].auction != "none":
        del out["contract7"]  # the view is defined for deals without an auction only
    return {**out, "batch": batch_digest(preset)}


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_observations_are_bit_identical_to_the_recorded_ones(preset):
    assert digests(preset) == json.loads(FIXTURE.read_text())[preset]


if __name__ == "__main__":
    print(json.dumps({p: digests(p) for p in sorted(PRESETS)}, indent=1))
