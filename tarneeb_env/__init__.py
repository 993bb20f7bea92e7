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
# gymnasium.make(VECTOR_ENV_ID, **the same arguments): one of its games as an Env (tarneeb_env.single_env)
VECTOR_ENV_ID = "tarneeb/Tarneeb-v0"
if VECTOR_ENV_ID not in gymnasium.registry:
    gymnasium.register(VECTOR_ENV_ID, entry_point="tarneeb_env.single_env:TarneebEnv",
                       vector_entry_point="tarneeb_env.vector:vector_env")


def __getattr__(name: str):
    """``vector_env`` on first use: it loads agents and the numba engine, which ``import tarneeb_env`` does not."""
    if name == "vector_env":
        from .vector import vector_env

        return vector_env
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BID_BASE", "NUM_ACTIONS", "PASS", "TRUMP_BASE", "OBS_SIZE", "OBS_VERSION", "PHASES", "PRESETS", "VECTOR_ENV_ID",
    "HandResult", "IllegalActionError", "PlayerView", "Rules", "TarneebGame",
    "action_str", "bid_action", "card_str", "deal_cards", "env", "legal_mask", "make_rules", "raw_env", "trump_action",
    "vector_env",
]
