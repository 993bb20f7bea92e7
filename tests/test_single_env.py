"""gymnasium.make("tarneeb_env:tarneeb/Tarneeb-v0"): one game as a gymnasium Env, step for step the vector env with
one game (same seed, same actions: the same observations, rewards and episode ends)."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import tarneeb_env


def _legal(mask, rng) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("kwargs", [{}, {"seats": "seat", "opponents": "random", "rules": "syrian41"}])
def test_make_gives_the_vector_env_s_episodes_one_decision_at_a_time(kwargs):
    env = gym.make("tarneeb_env:tarneeb/Tarneeb-v0", **kwargs)
    vec = tarneeb_env.vector_env(1, seed=7, **kwargs)
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    obs, info = env.reset(seed=7)
    vobs, vinfo = vec.reset()
    episodes = 0
    while episodes < 3:
        np.testing.assert_array_equal(obs, vobs[0])
        np.testing.assert_array_equal(info["action_mask"], vinfo["action_mask"][0])
        assert info["seat"] == vinfo["seat"][0]
        assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool))
        obs, reward, terminated, truncated, info = env.step(_legal(info["action_mask"], rng_a))
        vobs, vrewards, vterm, vtrunc, vinfo = vec.step(np.array([_legal(vinfo["action_mask"][0], rng_b)]))
        assert (reward, terminated, truncated) == (vrewards[0], vterm[0], vtrunc[0])
        if terminated or truncated:
            episodes += 1
            np.testing.assert_array_equal(obs, vinfo["final_obs"][0])  # the ended episode's last observation
            assert not info["action_mask"].any() and not env.unwrapped.action_masks().any()
            assert info["hand_record"] == vinfo["hand_record"][0]
            obs, info = env.reset()  # the episode the vector env dealt already
    env.close()


def test_the_single_env_is_in_its_spaces_and_refuses_an_illegal_action_by_name():
    env = gym.make("tarneeb_env:tarneeb/Tarneeb-v0")
    obs, info = env.reset(seed=0)
    assert obs.shape == (tarneeb_env.OBS_SIZE,) and env.observation_space.contains(obs)
    assert env.action_space.n == tarneeb_env.NUM_ACTIONS
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(tarneeb_env.IllegalActionError, match=f"illegal action {illegal} "):
        env.step(illegal)
