"""A bot of your own for ``fivedp selfplay`` and ``fivedp explore --bot-games`` (docs/bots.md).

It keeps what it has: each unit supports one of its power's units on its board to hold when it can,
and holds otherwise; a dislodged unit retreats to the first place it may go (or disbands); builds go
into the first free home centres, and the units to remove are the first ones listed.

    fivedp selfplay --games 5 --bot England=docs/examples/cautious_bot.py:cautious
"""

import fivedp_asp as fd


def cautious(view):
    """The orders of ``view.power`` for the next phase: every one of them taken from the engine's own
    lists of legal orders (``view.legal_on``, ``view.legal``), so the engine accepts them all."""
    if view.phase == "movement":
        lines = []
        for head in view.heads():
            listed = view.legal_on(head)  # orders that stay on this board, grouped below by unit
            mine = {p.order.split(" ")[1] for p in listed if p.kind == "hold"}  # own units, as a-Lvp@0
            by_unit = {}
            for p in listed:
                by_unit.setdefault(p.unit, []).append(p)
            for unit, orders in sorted(by_unit.items()):
                support = [p.order for p in orders if p.kind == "support_hold" and p.order.split(" S ")[1] in mine]
                hold = [p.order for p in orders if p.kind == "hold"]
                lines.append((support or hold)[0])
        return lines
    if view.phase == "retreat":
        chosen = {}
        for kind in ("retreat", "disband"):  # the first retreat of each unit, or else its disband
            for p in view.legal(kind=kind):
                chosen.setdefault((p.board, p.unit), p.order)
        return list(chosen.values())
    if view.phase == "adjustment":
        lines = []
        for duty in fd.duties(view.game):
            if duty.power != view.power:
                continue
            listed = [p for p in view.legal() if p.board == duty.board]
            if duty.kind == "build":
                used = set()
                for p in listed:
                    place = p.order.split(" ")[2].split("/")[0]  # Build A a-Lon@2: a-Lon@2
                    if p.kind == "build" and place not in used and len(used) < duty.count:
                        used.add(place)
                        lines.append(p.order)
            elif duty.kind == "disband":
                lines += [p.order for p in listed if p.kind == "disband"][:duty.count]
        return lines
    return []  # the sustain phase: every fraction supports its own timeline
