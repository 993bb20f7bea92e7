"""train.py and its parts: config validation, masking, GAE, the PPO and cloning losses, checkpoints, resume."""
from __future__ import annotations

import glob
import math
import os

import numpy as np
import pytest
import torch
from torch import nn

import agents
from agents.checkpoint import CheckpointError, load_checkpoint
from agents.model import MASKED_LOGIT, ActorCritic, log_probs_entropy
from agents.policy import NetworkActor, PolicyAgent, phase_flags
from tarneeb_env import OBS_SIZE, PRESETS, raw_env
from tarneeb_env.batch import BatchEnv
from training import Trainer
from training import cli as train
from training.batch import Batch
from training.config import ConfigError, load_config
from training.imitation import TeacherRollout, agreement, bc_loss, bc_update
from training.ppo import gae_per_seat, ppo_loss
from training.rollout import LocalRollout, PoolEntry
from training.seeds import rollout_seeds

SMOKE = "configs/smoke.yaml"
TINY = [
    "env.num_games=8", "env.rollout_steps=80", "model.hidden=[16]", "ppo.minibatch_size=256",
    "selfplay.snapshot_interval=1", "selfplay.max_snapshots=2", "eval.interval=0", "budget.minutes=null",
    "selfplay.weights={current: 0.4, snapshots: 0.3, rule: 0.3}",
    "pretrain.decisions=1280", "pretrain.steps=80", "pretrain.minibatch_size=128",  # two chunks of 8 x 80
    "rollout.backend=local",  # tests/test_pipeline.py runs the rollout process
]


# ------------------------------------------------------------------ config
def test_config_files_load():
    for path in ("configs/smoke.yaml", "configs/default.yaml"):
        cfg = load_config(path)
        assert cfg.learn.phases == ["bidding", "trump", "play"]
        assert cfg.pretrain.teacher == "rule" and cfg.pretrain.decisions > 0
    assert load_config("configs/default.yaml").model.hidden == [256, 256]


def test_unknown_key_is_named():
    with pytest.raises(ConfigError, match=r"unknown key ppo\.learning_rate; allowed in ppo: \['lr'"):
        load_config(SMOKE, ["ppo.learning_rate=0.1"])
    with pytest.raises(ConfigError, match=r"unknown key optimiser"):
        load_config(SMOKE, ["optimiser.lr=0.1"])


def test_wrong_type_and_impossible_values_are_named():
    with pytest.raises(ConfigError, match=r"env\.num_games: expected an int, got 'many'"):
        load_config(SMOKE, ["env.num_games=many"])
    with pytest.raises(ConfigError, match=r"ppo\.clip: must be > 0"):
        load_config(SMOKE, ["ppo.clip=0"])
    with pytest.raises(ConfigError, match=r"ppo\.gae_lambda: must be <= 1"):
        load_config(SMOKE, ["ppo.gae_lambda=1.5"])
    with pytest.raises(ConfigError, match=r"learn\.phases\[1\]: 'defence' is not one of"):
        load_config(SMOKE, ["learn.phases=[play, defence]"])
    with pytest.raises(ConfigError, match=r"device: 'tpu' is not one of \['auto', 'cpu', 'cuda'\]"):
        load_config(SMOKE, ["device=tpu"])
    with pytest.raises(ConfigError, match=r"rules: .*target_score"):
        load_config(SMOKE, ["rules.target_score=0"])
    with pytest.raises(ConfigError, match=r"budget.decisions or budget.iterations"):
        load_config(SMOKE, ["ppo.lr_schedule=linear", "budget.iterations=null"])


def test_overrides_parse_as_yaml():
    cfg = load_config(SMOKE, ["ppo.lr=1e-4", "model.hidden=[32, 16]", "rules.target_score=41", "eval.opponents=[rule]"])
    assert cfg.ppo.lr == 1e-4 and isinstance(cfg.ppo.lr, float)
    assert cfg.model.hidden == [32, 16]
    assert cfg.make_rules().target_score == 41 and cfg.make_rules().auction == "team"
    assert cfg.eval.opponents == ["rule"]
    with pytest.raises(ConfigError, match="expected key=value"):
        load_config(SMOKE, ["ppo.lr"])


# ------------------------------------------------------------------ masking
def test_masked_actions_get_zero_probability():
    torch.manual_seed(0)
    model = ActorCritic([32])
    obs = torch.rand(5, OBS_SIZE)
    mask = torch.zeros(5, 70, dtype=torch.bool)
    mask[:, [3, 17, 52]] = True
    mask[4, :] = False
    mask[4, 69] = True
    logits, _ = model(obs, mask)
    logp, ent = log_probs_entropy(logits)
    probs = logp.exp()
    assert torch.all(probs[~mask] == 0.0)
    assert torch.allclose(probs.sum(-1), torch.ones(5))
    assert probs[4, 69] == 1.0 and ent[4] == 0.0
    assert torch.all(torch.isfinite(ent))


# ------------------------------------------------------------------ GAE
def test_gae_per_seat_matches_hand_computation():
    # One game (N=1), 7 steps. Seats act 0,1,2,0,1 (hand ends after step 4: rewards +3 team 0, -3 team 1),
    # then a new episode: seat 2 at step 5, seat 3 at step 6 (unfinished). Step 3 (seat 0) is a rule
    # agent's decision: outside the chain, so seat 0's chain is steps 0 -> (reward) only.
    seats = np.array([[0], [1], [2], [0], [1], [2], [3]])
    values = np.array([[1.0], [2.0], [-1.0], [0.0], [0.5], [4.0], [0.25]], dtype=np.float32)
    in_chain = np.array([[True], [True], [True], [False], [True], [True], [True]])
    rewards = np.zeros((7, 1, 4), dtype=np.float32)
    rewards[4, 0] = [3, -3, 3, -3]
    rewards[6, 0] = [0, 0, 0, 9]  # after seat 3's decision, no done: its own reward
    dones = np.zeros((7, 1), dtype=bool)
    dones[4, 0] = True
    g, lam = 0.9, 0.5
    adv = gae_per_seat(values, rewards, dones, seats, in_chain, g, lam)[:, 0]
    # seat 1: steps 1 -> 4 (terminal, reward -3)
    a4 = -3 - 0.5
    a1 = (0 + g * 0.5 - 2.0) + g * lam * a4
    # seat 0: step 0 is its last chain decision of the episode, reward +3 at the end
    a0 = 3 - 1.0
    # seat 2: step 2, terminal, reward +3
    a2 = 3 - (-1.0)
    # new episode: seat 2 at step 5 never sees a reward (0 - 4), seat 3 at step 6 gets 9
    a5 = 0 - 4.0
    a6 = 9 - 0.25
    expected = np.array([a0, a1, a2, 0.0, a4, a5, a6], dtype=np.float32)
    np.testing.assert_allclose(adv, expected, rtol=1e-6)


# ------------------------------------------------------------------ PPO loss
class _Fixed(nn.Module):
    """Returns fixed logits/values whatever the input, to check the loss arithmetic."""

    def __init__(self, logits, values):
        super().__init__()
        self.logits = nn.Parameter(torch.tensor(logits))
        self.values = nn.Parameter(torch.tensor(values))

    def forward(self, obs, mask, priv=None):
        return self.logits.masked_fill(~mask, MASKED_LOGIT), self.values


def test_ppo_loss_matches_hand_computation():
    ln2 = math.log(2.0)
    # row 0: actions {0, 1} legal, logits (0, ln2) -> p = (1/3, 2/3); row 1: only {2, 3}, equal logits
    model = _Fixed([[0.0, ln2, 5.0, 5.0], [7.0, 7.0, 1.0, 1.0]], [0.5, -1.0])
    mask = torch.tensor([[True, True, False, False], [False, False, True, True]])
    old_logp = torch.tensor([math.log(0.5), math.log(0.25)])
    batch = Batch(
        obs=torch.zeros(2, 1), mask=mask, actions=torch.tensor([1, 2]), logp=old_logp,
        advantages=torch.tensor([2.0, -1.0]), returns=torch.tensor([1.5, 0.0]), values=torch.zeros(2),
    )
    clip, ent_coef, vf_coef = 0.2, 0.01, 0.5
    loss, stats = ppo_loss(model, batch, clip, ent_coef, vf_coef, normalize_adv=False)
    r0 = (2 / 3) / 0.5  # 1.333 -> clipped to 1.2 for a positive advantage
    r1 = 0.5 / 0.25  # 2.0, negative advantage: unclipped term is worse, max picks -adv*r = 2.0
    pg = (max(-2 * r0, -2 * 1.2) + max(1 * r1, 1 * 1.2)) / 2
    vl = 0.5 * ((0.5 - 1.5) ** 2 + (-1.0 - 0.0) ** 2) / 2
    h0 = -(1 / 3 * math.log(1 / 3) + 2 / 3 * math.log(2 / 3))
    ent = (h0 + math.log(2)) / 2
    kl = ((r0 - 1 - math.log(r0)) + (r1 - 1 - math.log(r1))) / 2
    assert stats["policy_loss"].item() == pytest.approx(pg, rel=1e-6)
    assert stats["value_loss"].item() == pytest.approx(vl, rel=1e-6)
    assert stats["entropy"].item() == pytest.approx(ent, rel=1e-6)
    assert stats["approx_kl"].item() == pytest.approx(kl, rel=1e-6)
    assert stats["clipfrac"].item() == 1.0
    assert loss.item() == pytest.approx(pg - ent_coef * ent + vf_coef * vl, rel=1e-6)


# ------------------------------------------------------------------ behaviour cloning
def test_bc_loss_matches_hand_computation():
    ln2 = math.log(2.0)
    model = _Fixed([[0.0, ln2, 5.0, 5.0], [7.0, 7.0, 1.0, 3.0]], [0.5, -1.0])
    mask = torch.tensor([[True, True, False, False], [False, False, True, True]])
    returns = torch.tensor([1.5, 0.0])
    batch = Batch(obs=torch.zeros(2, 1), mask=mask, actions=torch.tensor([0, 3]), logp=torch.zeros(2),
                  values=torch.zeros(2), advantages=returns, returns=returns)
    loss, stats = bc_loss(model, batch, vf_coef=0.5)
    # row 0: p(0) = 1/3 (greedy picks 1: wrong); row 1: p(3) = e^3 / (e + e^3) (greedy picks 3: right)
    ce = (-math.log(1 / 3) - (3 - math.log(math.e + math.e**3))) / 2
    vl = 0.5 * ((0.5 - 1.5) ** 2 + (-1.0) ** 2) / 2
    assert stats["policy_loss"].item() == pytest.approx(ce, rel=1e-6)
    assert stats["value_loss"].item() == pytest.approx(vl, rel=1e-6)
    assert stats["accuracy"].item() == 0.5
    assert loss.item() == pytest.approx(ce + 0.5 * vl, rel=1e-6)


def test_cloned_policy_reproduces_the_teacher_on_held_out_deals():
    torch.manual_seed(0)
    teacher = TeacherRollout("rule", load_config(SMOKE).make_rules(), num_games=16, steps=200, reward_scale=0.1,
                             gamma=1.0, learned=phase_flags(["bidding", "trump", "play"]))
    train_data, held_out = teacher.collect(1).to(torch.device("cpu")), teacher.collect(2).to(torch.device("cpu"))
    assert len(train_data) > 2000 and len(held_out) > 2000  # most of 16 x 200 decisions are in finished hands
    # value targets: a hand's score difference / 10, the same size for both teams
    assert torch.allclose(train_data.returns * 10, (train_data.returns * 10).round(), atol=1e-4)
    assert train_data.returns.abs().min() > 0 and abs(float(train_data.returns.mean())) < 0.3
    choice = held_out.mask.sum(-1) > 1
    uniform = float((1.0 / held_out.mask[choice].sum(-1).float()).mean())  # a random legal player's agreement
    model = ActorCritic([64])
    before = agreement(model, held_out)
    bc_update(model, torch.optim.Adam(model.parameters(), lr=3e-3), train_data, epochs=6, minibatch_size=256,
              vf_coef=0.5, max_grad_norm=0.5, generator=torch.Generator().manual_seed(0))
    after = agreement(model, held_out)
    assert before < 0.4 and uniform < 0.35
    assert after > 0.5, (before, after, uniform)


# ------------------------------------------------------------------ acting
def test_the_rollout_and_the_table_agent_act_through_one_network_actor():
    cfg = load_config(SMOKE, TINY + ["model.critic=privileged"])
    rollout = LocalRollout(cfg, cfg.make_rules())
    torch.manual_seed(0)
    model = ActorCritic.from_arch(vars(cfg.model))
    rollout.collect(model.state_dict(), [PoolEntry("current", 1.0)], 3)
    storage = rollout.storage
    assert isinstance(rollout.actor, NetworkActor) and storage.learned[0].all()  # every seat is the learner's
    obs, mask, priv = storage.obs[0], storage.mask[0], storage.priv[0]
    # the first step's actions, log-probabilities and values are decide()'s with the rollout's first draws
    actor = NetworkActor(model)
    recorded = actor.decide(obs, mask, rollout_seeds(3).sampling, priv=priv, record=True)
    assert np.array_equal(recorded.actions, storage.actions[0]) and mask[np.arange(len(obs)), recorded.actions].all()
    assert np.array_equal(recorded.logp, storage.logp[0]) and np.array_equal(recorded.values, storage.values[0])
    with torch.no_grad():
        logits, values = model(torch.from_numpy(obs), torch.from_numpy(mask), torch.from_numpy(priv))
    logp = torch.log_softmax(logits, -1)[torch.arange(len(obs)), torch.from_numpy(recorded.actions)]
    assert torch.allclose(torch.from_numpy(recorded.logp), logp)
    assert torch.allclose(torch.from_numpy(recorded.values), values)
    # sampling: one seed, one set of legal actions
    again = actor.decide(obs, mask, rollout_seeds(3).sampling)
    assert np.array_equal(again.actions, recorded.actions) and again.logp is None and again.values is None
    # the table agent: greedy is decide()'s argmax; sampled, a seed replays and every action is legal
    observations = [{"observation": o, "action_mask": m} for o, m in zip(obs, mask)]
    greedy = actor.decide(obs, mask).actions
    assert np.array_equal(greedy, logits.argmax(-1).numpy())
    assert PolicyAgent(model).act_batch(observations, None) == greedy.tolist()
    sampled = [PolicyAgent(model, sample=True, seed=5).act_batch(observations, None) for _ in range(2)]
    assert sampled[0] == sampled[1] and mask[np.arange(len(obs)), sampled[0]].all()
    assert sampled[0] != greedy.tolist()  # it does sample


# ------------------------------------------------------------------ end to end
def _train(tmp_path, name, sets, resume=False):
    run_dir = str(tmp_path / name)
    argv = ["--resume", run_dir] if resume else ["--config", SMOKE, "--run-dir", run_dir]
    argv += [a for s in sets for a in ("--set", s)] + ["--no-progress"]
    assert train.main(argv) == 0
    return run_dir


def test_smoke_run_writes_events_checkpoint_and_plays_legally(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run_dir = _train(tmp_path, "smoke", TINY + ["budget.iterations=2", "eval.interval=2", "eval.deals=4",
                                                "eval.opponents=[random]", "checkpoint.interval=1",
                                                "checkpoint.keep=1", "learn.phases=[bidding, play]",
                                                "learn.other=random"])
    events = glob.glob(os.path.join(run_dir, "events.out.tfevents.*"))
    assert len(events) == 1
    acc = EventAccumulator(events[0])
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    for tag in ("losses/policy_loss", "losses/value_loss", "losses/entropy", "losses/approx_kl",
                "losses/clipfrac", "losses/explained_variance", "charts/SPS", "charts/learning_rate",
                "charts/mean_hand_reward", "charts/rollout_seconds", "charts/update_seconds",
                "charts/learner_wait_seconds", "charts/policy_lag", "bidding/pass_rate", "eval/margin_vs_random"):
        assert tag in tags, tag
    assert not any(t.startswith("pretrain/") for t in tags)  # the warm start is a run of its own
    warm = EventAccumulator(os.path.join(run_dir, "warmstart"))
    warm.Reload()
    assert {"pretrain/loss", "pretrain/accuracy", "pretrain/value_loss"} <= set(warm.Tags()["scalars"])
    assert sorted(os.listdir(run_dir)) == ["config.yaml", os.path.basename(events[0]), "iter_000002.pt", "latest.pt",
                                           "warmstart"]
    data = torch.load(os.path.join(run_dir, "latest.pt"), weights_only=True)
    assert data["counters"]["iteration"] == 2 and data["counters"]["decisions"] == 2 * 8 * 80
    assert data["rules"]["target_score"] == 31 and data["learn"]["phases"] == ["bidding", "play"]

    agent = agents.load(os.path.join(run_dir, "latest.pt"), seed=3)
    assert isinstance(agent, PolicyAgent)
    for sample in (False, True):
        agent.sample = sample
        env = raw_env()
        env.reset(seed=5)
        for _ in range(150):
            name = env.agent_selection
            if env.terminations[name]:
                env.reset()
                name = env.agent_selection
            a = agent.act(env.observe(name), env.view(name))
            assert a in env.view(name).legal_actions
            env.step(a)
    be = BatchEnv(num_games=6, seed=1)
    obs, mask, seat = be.reset()
    for _ in range(60):
        obs_dicts = [{"observation": obs[i], "action_mask": mask[i]} for i in range(6)]
        acts = agent.act_batch(obs_dicts, [be.view(i) for i in range(6)])
        assert all(mask[i, a] == 1 for i, a in enumerate(acts))
        obs, mask, seat, *_ = be.step(np.array(acts))


def test_evaluations_do_not_change_what_a_run_learns(tmp_path):
    """eval.interval is a cost in wall time only (the recipes evaluate rarely for that): a run evaluated after its
    warm start and every iteration, ladder included, learns exactly the weights of one never evaluated."""
    sets = TINY + ["rollout.lag=1", "budget.iterations=3"]
    quiet = _train(tmp_path, "quiet", sets)
    watched = _train(tmp_path, "watched", sets + ["eval.interval=1", "eval.deals=4", "eval.opponents=[rule]",
                                                  "eval.ladder_deals=4"])
    a, b = (torch.load(os.path.join(d, "latest.pt"), weights_only=True) for d in (quiet, watched))
    assert "eval/margin_vs_rule" in b["last_eval"] and "league/rating/rule" in b["last_eval"]
    assert a["state_dict"].keys() == b["state_dict"].keys()
    for k in a["state_dict"]:
        assert torch.equal(a["state_dict"][k], b["state_dict"][k]), k


@pytest.mark.parametrize("rules", ["syrian41", "trump_by_card"])
def test_smoke_config_trains_under_variant_rules(tmp_path, rules):
    run_dir = _train(tmp_path, rules, TINY + [f"rules={rules}", "budget.iterations=2", "eval.interval=2",
                                              "eval.deals=4", "eval.opponents=[random]"])
    data = torch.load(os.path.join(run_dir, "latest.pt"), weights_only=True)
    assert data["rules"] == PRESETS[rules].to_dict() and data["counters"]["iteration"] == 2
    assert data["counters"]["learned_decisions"] > 0
    agent = agents.load(os.path.join(run_dir, "latest.pt"))
    assert agent.rules == PRESETS[rules]


def test_export_for_play_keeps_the_policy_and_drops_training_state(tmp_path):
    run_dir = _train(tmp_path, "exp", TINY + ["budget.iterations=1", "eval.interval=0"])
    src, dst = os.path.join(run_dir, "latest.pt"), str(tmp_path / "ship" / "agent.pt")
    assert train.main(["--export", src, dst]) == 0
    full, small = torch.load(src, weights_only=True), torch.load(dst, weights_only=True)
    assert "optimizer" in full and not {"optimizer", "pool", "rng"} & set(small)
    assert os.path.getsize(dst) < os.path.getsize(src)
    a, b = agents.load(src), agents.load(dst)
    env = raw_env()
    env.reset(seed=9)
    for _ in range(40):
        name = env.agent_selection
        obs, view = env.observe(name), env.view(name)
        assert a.act(obs, view) == b.act(obs, view)
        env.step(a.act(obs, view))
    assert train.main(["--export", str(tmp_path / "missing.pt"), dst]) == 2


def test_average_writes_the_mean_network_and_refuses_other_games_or_shapes(tmp_path, capsys):
    from training.checkpoints import save_checkpoint

    run_dir = _train(tmp_path, "avg", TINY + ["budget.iterations=1", "eval.interval=0"])
    src = os.path.join(run_dir, "latest.pt")
    data = load_checkpoint(src)
    other = str(tmp_path / "other.pt")
    g = torch.Generator().manual_seed(3)
    save_checkpoint(other, {**data, "state_dict": {k: v + torch.randn(v.shape, generator=g)
                                                   for k, v in data["state_dict"].items()}})
    out = str(tmp_path / "ship" / "mean.pt")
    assert train.main(["--average", out, src, other]) == 0
    a, b, mean = load_checkpoint(src), load_checkpoint(other), load_checkpoint(out)
    assert not {"optimizer", "pool", "rng"} & set(mean)
    assert mean["averaged_from"] == ["avg/latest.pt", f"{tmp_path.name}/other.pt"]  # folder/file: two latest.pt differ
    for k, v in mean["state_dict"].items():
        assert torch.equal(v, (a["state_dict"][k] + b["state_dict"][k]) / 2), k
    assert mean["counters"]["decisions"] == 2 * a["counters"]["decisions"] and mean["rules"] == a["rules"]
    # a network averaged with itself is itself: it plays every decision as the source does
    assert train.main(["--average", out, src, src]) == 0
    same, orig = agents.load(out), agents.load(src)
    env = raw_env()
    env.reset(seed=4)
    for _ in range(60):  # the auction, the trump and most of the card play
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            break
        obs, view = env.observe(name), env.view(name)
        assert same.act(obs, view) == orig.act(obs, view)
        env.step(orig.act(obs, view))
    capsys.readouterr()
    for change, words in ((("rules", PRESETS["syrian41"].to_dict()), "rules differ"),
                          (("model", {**data["model"], "hidden": [32]}), "network differ")):
        bad = str(tmp_path / "bad.pt")
        save_checkpoint(bad, {**data, change[0]: change[1]})
        assert train.main(["--average", str(tmp_path / "no.pt"), src, bad]) == 2
        err = capsys.readouterr().err
        assert err.startswith("train.py: error: ") and words in err and err.count("\n") == 1
        assert not (tmp_path / "no.pt").exists()
    with pytest.raises(SystemExit) as e:  # argparse: OUT and one checkpoint
        train.main(["--average", out, src])
    assert e.value.code == 2


def test_resume_equals_uninterrupted_run(tmp_path, monkeypatch):
    full = _train(tmp_path, "full", TINY + ["budget.iterations=4"])
    # killed during the second cloning chunk: the run saved after the first one
    part = str(tmp_path / "part")
    chunk = Trainer.pretrain_chunk

    def killed_in_second_chunk(self):
        if self.counters["pretrain_chunks"] == 1:
            raise KeyboardInterrupt
        return chunk(self)

    monkeypatch.setattr(Trainer, "pretrain_chunk", killed_in_second_chunk)
    argv = ["--config", SMOKE, "--run-dir", part, "--no-progress"] + [a for s in TINY for a in ("--set", s)]
    assert train.main(argv) == 130
    monkeypatch.setattr(Trainer, "pretrain_chunk", chunk)
    assert load_checkpoint(os.path.join(part, "latest.pt"))["counters"]["pretrain_chunks"] == 1
    # then stopped after the first PPO iteration
    _train(tmp_path, "part", ["budget.iterations=1"], resume=True)
    _train(tmp_path, "part", ["budget.iterations=4"], resume=True)
    a = load_checkpoint(os.path.join(full, "latest.pt"))
    b = load_checkpoint(os.path.join(part, "latest.pt"))
    assert a["counters"]["iteration"] == b["counters"]["iteration"] == 4
    assert a["counters"]["pretrain_chunks"] == b["counters"]["pretrain_chunks"] == 2
    assert a["counters"]["decisions"] == b["counters"]["decisions"]
    for k in a["state_dict"]:
        assert torch.equal(a["state_dict"][k], b["state_dict"][k]), k
    assert [s["iteration"] for s in a["pool"]["snapshots"]] == [3, 4]
    for sa, sb in zip(a["pool"]["snapshots"], b["pool"]["snapshots"]):
        for k in sa["state_dict"]:
            assert torch.equal(sa["state_dict"][k], sb["state_dict"][k])
    for k, v in a["optimizer"]["state"][0].items():
        assert torch.equal(v, b["optimizer"]["state"][0][k])


def test_resume_rejects_changing_what_the_run_computes(tmp_path):
    run_dir = _train(tmp_path, "r", TINY + ["budget.iterations=1"])
    with pytest.raises(ConfigError, match=r"--set ppo.lr: cannot be changed on --resume"):
        train.setup(train.parse_args(["--resume", run_dir, "--set", "ppo.lr=0.1"]))


def test_bad_checkpoints_give_clear_errors(tmp_path):
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a checkpoint at all")
    with pytest.raises(CheckpointError, match="not a tarneeb-rl checkpoint"):
        load_checkpoint(str(garbage))
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(3)}, other)
    with pytest.raises(CheckpointError, match="no 'tarneeb-rl-checkpoint' marker"):
        agents.load(str(other))
    old = tmp_path / "old.pt"
    torch.save({"format": "tarneeb-rl-checkpoint", "format_version": 1, "obs_version": 0}, old)
    with pytest.raises(CheckpointError, match="observation layout version 0"):
        load_checkpoint(str(old))
