"""``evaluate.py --info FILE.pt``: what a checkpoint says about how it was made.

The file is read as the evaluator reads any agent (``weights_only``, format and layout checks), so a hostile or
damaged file is refused in one line before anything of it is shown. Printed as YAML: the file's sha256, rules,
network and counters, its provenance (:mod:`training.provenance`) and the resolved config it was trained with. A
file from before provenance was recorded shows what it holds (``averaged_from``, the config's seed) and, when its
sha256 is one of the shipped files', that file's entry of ``checkpoints/MANIFEST.yaml``.
"""
from __future__ import annotations

from typing import Any

import yaml

from agents.checkpoint import load_checkpoint, sha256_file
from agents.shipped import manifest_entry

NO_PROVENANCE = "none recorded (written before train.py recorded provenance)"


def _plain(value: Any) -> Any:
    """The value as YAML can print it: plain data as it is, anything else (a tensor in a crafted file) as text."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def checkpoint_info(path: str) -> dict[str, Any]:
    """What ``--info`` prints; :class:`~agents.checkpoint.CheckpointError` for a file that is not a checkpoint."""
    data = load_checkpoint(path)
    sha = sha256_file(path)
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    info: dict[str, Any] = {"file": path, "sha256": sha, "rules": data.get("rules"), "network": data.get("model"),
                            "learned": data.get("learn"), "counters": data.get("counters"),
                            "last_eval": data.get("last_eval"), "kind": "training checkpoint (resumable)"
                            if "optimizer" in data else "play-only (export or average)"}
    if "provenance" in data:
        info["provenance"] = data["provenance"]
    else:
        known = {"seed": (config.get("env") or {}).get("seed")}
        if "averaged_from" in data:
            known["averaged_from"] = data["averaged_from"]
        info["provenance"] = {"recorded": NO_PROVENANCE, "known_from_the_file": known}
    shipped = manifest_entry(sha)
    info["manifest"] = {shipped[0]: shipped[1]} if shipped else "not a shipped file (no MANIFEST.yaml entry)"
    info["config"] = config
    return _plain(info)


def format_info(info: dict[str, Any]) -> str:
    return yaml.safe_dump(info, sort_keys=False, width=120, allow_unicode=True, default_flow_style=None)
