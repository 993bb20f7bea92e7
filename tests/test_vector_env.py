"""tarneeb_env.vector_env: the batch engine as a gymnasium VectorEnv for one learner.

The differential test replays every completed deal of a vector run through ``raw_env`` (same seeds, the moves
from the hand records) and checks each learner decision's observation and mask, the learner's rewards between
its decisions, the episode ends and the final observations.
"""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

import tarneeb_env
from tarneeb_env import IllegalActionError, raw_env
from tarneeb_env.batch import random_legal_actions


def random_run(env, steps: int, seed: int):
    """``steps`` random learner decisions; per step the observation it was taken on and what came back."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset()
    log = []
    for _ in range(steps):
        acts = random_legal_actions(info["action_mask"], rng)
        entry = {"obs": obs, "mask": info["action_mask"], "seat": info["seat"], "action": acts}
        obs, rewards, terminated, truncated, info = env.step(acts)
        entry.update(rewards=rewards, terminated=terminated, truncated=truncated, info=info)
        log.append(entry)
    return log


def replay(env, log, i: int, team: bool) -> int:
    """Play game ``i``'s completed deals through ``raw_env`` and check them against ``log``; returns the
    learner decisions checked."""
    records = [e["info"]["hand_record"][i] for e in log if "hand_record" in e["info"]]
    records = [r for r in records if r is not None]
    aec = raw_env(rules=env.rules, episode=env.engine.episode, reward=env.engine.reward_mode,
                  max_hands=env.engine.max_hands)
    aec.reset(seed=env.engine.game_seeds[i])
    k, acc, learner = 0, 0.0, None  # learner decisions made so far; its reward since the last one; its seat
    for rec in records:
        for _, a in [*rec["auction"], *rec["plays"]]:
            seat = int(aec.agent_selection[-1])
            # the learner's decision k, unless its last decision of this episode has been made
            ended = learner is not None and (log[k - 1]["terminated"][i] or log[k - 1]["truncated"][i])
            if seat == log[k]["seat"][i] and not ended:
                if learner is not None:  # its previous decision's step, in the same episode
                    assert log[k - 1]["rewards"][i] == acc
                    assert not (log[k - 1]["terminated"][i] or log[k - 1]["truncated"][i])
                o = aec.observe(aec.agent_selection)
                assert np.array_equal(o["observation"], log[k]["obs"][i])
                assert np.array_equal(o["action_mask"], log[k]["mask"][i])
                assert a == log[k]["action"][i]
                learner, acc, k = seat & 1 if team else seat, 0.0, k + 1
            aec.step(a)
            if learner is None:  # no deal ends before the learner's first decision of an episode
                assert not any(aec.rewards.values())
                continue
            acc += aec.rewards[f"player_{learner}"]
            if aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]:
                last = log[k - 1]
                assert last["rewards"][i] == acc
                assert last["truncated"][i] == aec.truncations[aec.agent_selection]
                assert last["terminated"][i] == aec.terminations[aec.agent_selection]
                assert last["info"]["_final_obs"][i]
                assert np.array_equal(last["info"]["final_obs"][i], aec.observe(f"player_{learner}")["observation"])
                aec.reset()
                acc, learner = 0.0, None
    return k


@pytest.mark.parametrize("opponents,seats,episode,max_hands", [
    ("rule", "team", "hand", 200), ("random", "seat", "hand", 200), ("rule", "seat1", "game", 2),
])
def test_same_observations_and_rewards_as_tarneeb_v0(opponents, seats, episode, max_hands):
    env = tarneeb_env.vector_env(6, opponents=opponents, seats=seats, episode=episode, max_hands=max_hands, seed=4)
    log = random_run(env, 160, seed=1)
    checked = sum(replay(env, log, i, seats.startswith("team")) for i in range(env.num_envs))
    assert checked > 500  # most decisions are in deals that completed
    ends = sum(int((e["terminated"] | e["truncated"]).sum()) for e in log)
    assert ends >= 6
    if episode == "game":
        assert any(e["truncated"].any() for e in log)
    if seats == "seat1":
        assert all((e["seat"] == 1).all() for e in log)


def test_gymnasium_vector_api():
    env = tarneeb_env.vector_env(5, opponents="random", seed=0)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.single_action_space == gymnasium.spaces.Discrete(70)
    assert env.single_observation_space.shape == (tarneeb_env.OBS_SIZE,)
    assert env.observation_space == batch_space(env.single_observation_space, 5)
    assert env.action_space == batch_space(env.single_action_space, 5)
    obs, info = env.reset()
    for _ in range(40):
        assert env.observation_space.contains(obs)
        assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
        assert env.action_masks().any(axis=1).all()  # SAME_STEP: every observation is a real decision
        obs, rewards, terminated, truncated, info = env.step(random_legal_actions(info["action_mask"],
                                                                                 np.random.default_rng(0)))
        assert rewards.dtype == np.float32 and terminated.dtype == bool and truncated.dtype == bool


def test_seeding_replays_and_reset_seed_reseeds():
    a = random_run(tarneeb_env.vector_env(4, seed=9), 60, seed=2)
    b = random_run(tarneeb_env.vector_env(4, seed=9), 60, seed=2)
    c = random_run(tarneeb_env.vector_env(4, seed=10), 60, seed=2)
    assert all(np.array_equal(x["obs"], y["obs"]) and np.array_equal(x["rewards"], y["rewards"]) for x, y in zip(a, b))
    assert not np.array_equal(a[0]["obs"], c[0]["obs"])
    env = tarneeb_env.vector_env(4)
    obs1, _ = env.reset(seed=9)
    env.step(random_legal_actions(env.action_masks().astype(np.int8), np.random.default_rng(0)))
    obs2, _ = env.reset(seed=9)
    assert np.array_equal(obs1, obs2) and np.array_equal(obs1, a[0]["obs"])


def test_make_vec_and_record_episode_statistics():
    env = gymnasium.make_vec(tarneeb_env.VECTOR_ENV_ID, num_envs=3, opponents="random", seed=5)
    assert isinstance(env, tarneeb_env.vector.TarneebVectorEnv) and env.num_envs == 3
    stats = gymnasium.wrappers.vector.RecordEpisodeStatistics(env)
    obs, info = stats.reset()
    rng = np.random.default_rng(0)
    returns, lengths, seen = np.zeros(3), np.zeros(3, dtype=int), 0
    while seen < 3:
        obs, rewards, terminated, truncated, info = stats.step(random_legal_actions(info["action_mask"], rng))
        returns += rewards
        lengths += 1
        done = terminated | truncated
        for i in np.flatnonzero(done):
            assert info["_episode"][i] and info["episode"]["r"][i] == returns[i]
            if seen < 3 and lengths[i] == info["episode"]["l"][i]:  # the first episode of each game
                seen += 1
            returns[i], lengths[i] = 0.0, 0


def test_bad_input_says_what_is_wrong():
    with pytest.raises(ValueError, match=r"num_envs: must be a positive int, got 0"):
        tarneeb_env.vector_env(0)
    with pytest.raises(ValueError, match=r"seats: 'both' is not one of"):
        tarneeb_env.vector_env(2, seats="both")
    with pytest.raises(ValueError, match=r"reward: 'points' is not one of"):
        tarneeb_env.vector_env(2, reward="points")
    env = tarneeb_env.vector_env(2, opponents="random", seed=0)
    with pytest.raises(RuntimeError, match=r"before reset"):
        env.step(np.zeros(2, dtype=np.int64))
    obs, info = env.reset()
    with pytest.raises(ValueError, match=r"actions: expected 2 ints"):
        env.step(np.zeros(3, dtype=np.int64))
    illegal = np.array([int(np.flatnonzero(m == 0)[0]) for m in info["action_mask"]])
    with pytest.raises(IllegalActionError, match=r"game 0: illegal action"):
        env.step(illegal)
    with pytest.raises(ValueError, match=r"options: unknown key"):
        env.reset(options={"deal": []})


def test_observations_returned_stay_valid_and_an_illegal_action_changes_nothing():
    env = tarneeb_env.vector_env(3, opponents="random", seed=2)
    obs, info = env.reset()
    kept = obs.copy()
    illegal = np.array([int(np.flatnonzero(m == 0)[0]) for m in info["action_mask"]])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    legal = random_legal_actions(info["action_mask"], np.random.default_rng(0))
    after, *_ = env.step(legal)
    assert np.array_equal(obs, kept)  # the caller's array is not reused
    twin = tarneeb_env.vector_env(3, opponents="random", seed=2)
    twin.reset()
    assert np.array_equal(after, twin.step(legal)[0])  # the failed step left no trace


def test_random_agent_batched_draws_are_its_one_by_one_draws():
    """``random`` decides from masks at the batch engine (no views); its actions must stay those of ``act``."""
    from agents.random_agent import RandomAgent
    from tarneeb_env.batch import BatchEnv

    be = BatchEnv(20, seed=1)
    obs, mask, seat = be.reset()
    one, batched, on_env = RandomAgent(seed=3), RandomAgent(seed=3), RandomAgent(seed=3)
    for _ in range(150):
        observations = [{"observation": None, "action_mask": m} for m in mask]
        expected = [one.act(o, v) for o, v in zip(observations, be.views(range(20)))]
        assert batched.act_batch(observations, None) == expected
        assert on_env.act_batch_env(be, list(range(20))) == expected
        obs, mask, seat, *_ = be.step(np.array(expected))


def test_reset_options_deal_fixed_hands_per_game():
    from tarneeb_env.observation import HAND

    deal = [list(range(s * 13, s * 13 + 13)) for s in range(4)]  # seat s holds suit s
    env = tarneeb_env.vector_env(2, opponents="random", seats="seat2", seed=0)
    obs, info = env.reset(options={"games": [{"deal": deal, "dealer": 1}, None]})
    assert np.flatnonzero(obs[0, HAND : HAND + 52]).tolist() == deal[2]
    assert (info["seat"] == 2).all()
    with pytest.raises(ValueError, match=r"options\[1\]"):
        env.reset(options={"games": [None, {"dealer": 7}]})


def test_batch_step_some_steps_only_the_games_named():
    from tarneeb_env.batch import BatchEnv

    be, twin = BatchEnv(4, seed=6), BatchEnv(4, seed=6)
    obs, mask, seat = be.reset()
    tobs, tmask, tseat = twin.reset()
    rng = np.random.default_rng(0)
    acts = random_legal_actions(mask, rng)
    kept = obs[[1, 3]].copy()
    be.step_some([0, 2], acts[[0, 2]], obs, mask, seat)
    assert np.array_equal(obs[[1, 3]], kept)  # the waiting games are untouched
    tobs, tmask, tseat, *_ = twin.step(acts)
    assert np.array_equal(obs[[0, 2]], tobs[[0, 2]]) and np.array_equal(seat[[0, 2]], tseat[[0, 2]])
    with pytest.raises(ValueError, match=r"each game at most once"):
        be.step_some([1, 1], acts[[1, 1]], obs, mask, seat)
    with pytest.raises(IllegalActionError, match=r"game 3: illegal action"):
        be.step_some([1, 3], np.array([acts[1], int(np.flatnonzero(mask[3] == 0)[0])]), obs, mask, seat)
