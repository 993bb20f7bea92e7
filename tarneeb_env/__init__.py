"""tarneeb_env: the Tarneeb rules engine and its PettingZoo AEC environment ``tarneeb_v0``."""
import gymnasium
import pettingzoo

from .cards import BID_BASE, NUM_ACTIONS, PASS, TRUMP_BASE, action_str, bid_action, card_str, trump_action
from .game import PHASES, HandResult, IllegalActionError, TarneebGame, deal_cards
from .observation import OBS_SIZE, OBS_VERSION
from .rules import PRESETS, Rules, make_rules
from .tarneeb import env, legal_mask, raw_env
from .view import PlayerView

# pettingzoo.make("aec", "tarneeb_v0"): PettingZoo has a registry from 1.27 on (and no entry points, so
# registering needs this import); older versions, which the env supports otherwise, have none.
if hasattr(pettingzoo, "aec_registry") and "tarneeb-v0" not in pettingzoo.aec_registry:
    pettingzoo.register("aec", "tarneeb-v0", entry_point="tarneeb_env:env")


# gymnasium.make_vec(VECTOR_ENV_ID, num_envs=..., **vector_env's arguments): the batch engine's vector env;
# gymnasium.make(VECTOR_ENV_ID, **the same arguments): one of its games as an Env (agents.single_env). Their
# opponents are agents, so the entry points are the agents package's (this package imports nothing above it).
VECTOR_ENV_ID = "tarneeb/Tarneeb-v0"
if VECTOR_ENV_ID not in gymnasium.registry:
    gymnasium.register(VECTOR_ENV_ID, entry_point="agents.single_env:TarneebEnv",
                       vector_entry_point="agents.vector:vector_env")


def vector_env(num_envs: int = 1, **options):
    """``gymnasium.make_vec(VECTOR_ENV_ID, num_envs, **options)``: ``num_envs`` games for one learner against
    agents (``opponents="rule"`` by default); the options are :func:`agents.vector.vector_env`'s."""
    return gymnasium.make_vec(VECTOR_ENV_ID, num_envs=num_envs, **options)


__all__ = [
    "BID_BASE", "NUM_ACTIONS", "PASS", "TRUMP_BASE", "OBS_SIZE", "OBS_VERSION", "PHASES", "PRESETS", "VECTOR_ENV_ID",
    "HandResult", "IllegalActionError", "PlayerView", "Rules", "TarneebGame",
    "action_str", "bid_action", "card_str", "deal_cards", "env", "legal_mask", "make_rules", "raw_env", "trump_action",
    "vector_env",
]
