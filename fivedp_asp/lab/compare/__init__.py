"""``fivedp compare``: this engine against a reference adjudicator, on scenarios or random games.

The references this package brings are registered here, where the package is first imported: the
registry (``reference.py``) and the adapters (``diplomacy_ref.py``, ``pydip_ref.py``) then import one
way only, the adapters from the registry's interface.
"""

from __future__ import annotations

from ...model.map import GameMap
from .reference import ReferenceAdjudicator, register


def _diplomacy(game_map: GameMap) -> ReferenceAdjudicator:
    from .diplomacy_ref import DiplomacyReference

    return DiplomacyReference(game_map)


register("diplomacy", _diplomacy)


def _pydip(game_map: GameMap) -> ReferenceAdjudicator:
    from .pydip_ref import PydipReference

    return PydipReference(game_map)


register("pydip", _pydip)
