"""The closed sets of names the game speaks of: a unit's kind, an order's verb, a phase, an order's
result, what a power must do next, why an order has its result. Each is an enum that owns its names;
modules compare with its members and never spell one of its names again
(``tests/project/test_closed_sets.py`` holds that).

Each is a ``StrEnum``: its members are ``str``, so the facts, the text lines and the JSON documents
that carry a name spell it exactly as before, a member equals its name (``UnitKind.ARMY == "army"``)
and a name read from a file or from the rules' answer compares with a member as it is. PyYAML's safe
dumper refuses a ``str`` subclass, so the package writes YAML through ``yaml_lines.dump_yaml``, which
writes a member as its name.
"""

from __future__ import annotations

from enum import StrEnum


class UnitKind(StrEnum):
    """A unit's kind, as maps, orders (``A``/``F`` are its letters), facts and documents name it."""

    ARMY = "army"
    FLEET = "fleet"


class OrderKind(StrEnum):
    """What an order does: its verb, as the rules' facts and every JSON document name it. ``unplaced``
    is an order that names no place of the multiverse (illegal before the rules see it)."""

    HOLD = "hold"
    MOVE = "move"
    SUPPORT_HOLD = "support_hold"
    SUPPORT_MOVE = "support_move"
    CONVOY = "convoy"
    OPEN_CONVOY = "open_convoy"
    JUMP_ASSIST = "jump_assist"
    RETREAT = "retreat"
    DISBAND = "disband"
    BUILD = "build"
    WAIVE = "waive"
    SUSTAIN = "sustain"
    UNPLACED = "unplaced"


class Phase(StrEnum):
    """A phase a step adjudicates. Movement, retreat and adjustment are phases of a board (its next
    step); sustain is a phase of the whole multiverse (docs/rules.md §6.8.3, option ``sustain``).
    The names are also those of the logic programs that adjudicate them."""

    MOVEMENT = "movement"
    RETREAT = "retreat"
    ADJUSTMENT = "adjustment"
    SUSTAIN = "sustain"


class Result(StrEnum):
    """An order's result, as the rules' answer, scenarios' expectations, game files and JSON name it:
    it takes effect, it is legal but fails, or it is illegal (and then holds or disbands)."""

    SUCCEEDS = "succeeds"
    FAILS = "fails"
    INVALID = "invalid"


class DutyKind(StrEnum):
    """What a power must do on a head in the next phase (``game.play.Duty``): give movement orders,
    retreat a dislodged unit (or disband it), build, disband, or vote in the sustain phase."""

    ORDERS = "orders"
    RETREAT = "retreat"
    BUILD = "build"
    DISBAND = "disband"
    SUSTAIN = "sustain"


class CauseKind(StrEnum):
    """Why an order has its result: the kind of a reason the rules derive (``asp/*/reasons.lp``,
    ``reason/4``) or a backup rule gives (``paradox``), as scenarios' expectations and JSON name it.
    The members are in the order a result's reasons are listed."""

    BEATEN_HEAD_TO_HEAD = "beaten_head_to_head"
    BOUNCED = "bounced"
    OWN_UNIT = "own_unit"
    CONVOY_DISRUPTED = "convoy_disrupted"
    NO_ROUTE = "no_route"
    PARADOX = "paradox"
    DISLODGED = "dislodged"
    CUT = "cut"
    NOT_MATCHING = "not_matching"
    UNUSED = "unused"
    STRENGTH = "strength"
    DUPLICATE = "duplicate"
    NO_BUILDS_LEFT = "no_builds_left"
    NO_DISBANDS_LEFT = "no_disbands_left"
    CIVIL_DISORDER = "civil_disorder"
    TOO_FEW_ASSISTS = "too_few_assists"
    OPEN_CONVOY_UNUSED = "open_convoy_unused"
    SUSTAINS_OTHER = "sustains_other"
    OVERRIDDEN = "overridden"
    SUPPORTED_FAILED = "supported_failed"


class Versus(StrEnum):
    """The strength a move was measured against, as a reason names it (DATC 5.B's decisions): the
    hold strength of the unit in the way, the prevent strength of a rival move, the defend strength
    of a unit moving head to head, or the opposition a successful move overcame."""

    HOLD = "hold"
    PREVENT = "prevent"
    DEFEND = "defend"
    OPPOSITION = "opposition"


CLOSED_SETS: tuple[type[StrEnum], ...] = (UnitKind, OrderKind, Phase, Result, DutyKind, CauseKind, Versus)
"""Every closed set of names above, for the test that no module compares with one of their names."""
