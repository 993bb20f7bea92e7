"""docs/config.md is what training.config_reference writes today, and it documents every config key."""
from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from training import config_reference
from training.config import Config, StageConfig, is_section


def _keys(cls, prefix: str = "") -> list[str]:
    keys = []
    for name, f in cls.model_fields.items():
        if is_section(f.annotation) and cls is Config:
            keys += _keys(f.annotation, f"{prefix}{name}.")
        else:
            keys.append(prefix + name)
    return keys


def test_the_committed_page_is_current():
    with open(config_reference.PAGE, encoding="utf-8") as f:
        committed = f.read()
    assert committed == config_reference.render(), "docs/config.md is stale: run python -m training.config_reference"


def test_every_key_is_on_the_page_with_its_meaning():
    page = config_reference.render()
    keys = _keys(Config) + [f"stages[i].{k}" for k in _keys(StageConfig)]
    assert len(keys) > 50
    missing = [k for k in keys if f"- `{k}` = " not in page]
    assert not missing, missing


def test_a_key_without_a_description_is_refused_by_name(monkeypatch):
    class Section(BaseModel):
        width: int = Field(1, ge=1)

    with pytest.raises(ValueError, match=r"^x\.width: no description"):
        config_reference._entries(Section, "x.")


def test_check_mode_reports_a_stale_page(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "config.md"
    stale.write_text("# old\n", encoding="utf-8")
    monkeypatch.setattr(config_reference, "PAGE", str(stale))
    assert config_reference.main(["--check"]) == 1
    assert "stale" in capsys.readouterr().err
    assert config_reference.main([]) == 0
    assert config_reference.main(["--check"]) == 0
