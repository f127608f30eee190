"""Rules of your own that leave a step unsettled, reported as the user's problem.

A rule of your own can make a step unsatisfiable or ambiguous where the built-in rules never are;
that is bad input (``RuleError``), not an engine defect. To say which orders are involved, the step
is adjudicated again with orders left out one at a time, which is why this sits above ``step``."""

from __future__ import annotations

from typing import Any, Mapping

from ..errors import AdjudicationError, EncodingError, RuleError
from ..model.settings import Settings
from .step import step
from .userrules import _QUOTE

SHRINK_BUDGET = 80  # adjudications spent finding the orders an unsettled step needs


def unsettled(exc: Exception, settings: Settings, orders: Mapping[str, Any], mv: Any = None) -> Exception:
    """An adjudication that failed under rules of your own, as the user's problem (RuleError): the
    rules in effect, whether no adjudication or several remained, and the orders involved. With the
    position ``mv``, the orders are narrowed to a set that still leaves the step unsettled, each of
    which is needed (one order left out at a time, within SHRINK_BUDGET adjudications); without it,
    or past the budget, the step's orders are named. Any other failure is returned as it is."""
    if not isinstance(settings, Settings):
        raise TypeError(f"unsettled: settings must be a Settings, not {type(settings).__name__}")
    if not isinstance(exc, AdjudicationError) or isinstance(exc, EncodingError):
        return exc
    active = [r for r in settings.rules if settings.in_effect(r)]
    if not active:
        return exc
    text = str(exc)
    kind = ("no adjudication satisfies the rules (unsatisfiable)" if "no adjudication" in text
            else "several adjudications remain that the backup rules cannot settle (ambiguous)")
    lines = [(p, str(line)) for p, ls in orders.items() for line in (ls or ())]
    involved = _needed(mv, lines) if mv is not None else None
    if involved is not None:
        what = "the orders involved"
        lines = involved
    else:
        what = "the step's orders"
    shown = "; ".join(f"{p}: {line[:_QUOTE]}" for p, line in lines[:12]) + (
        f"; ... ({len(lines)} orders)" if len(lines) > 12 else "")
    names = ", ".join(f"{r.label} ({r.source})" for r in active)
    return RuleError(f"under your rule {names}: {kind}; {what}: {shown or 'none (it fails with no orders)'}")


def _needed(mv: Any, lines: list[tuple[str, str]]) -> list[tuple[str, str]] | None:
    """A subset of the orders with which the step still cannot be adjudicated, none of them
    superfluous; None when the budget runs out first."""
    def fails(subset: list[tuple[str, str]]) -> bool:
        orders: dict[str, list[str]] = {}
        for p, line in subset:
            orders.setdefault(p, []).append(line)
        try:
            step(mv, orders)
        except AdjudicationError:
            return True
        except Exception:  # noqa: BLE001 - bad input without this order's context: not the failure sought
            return False
        return False

    budget = SHRINK_BUDGET
    kept = list(lines)
    i = 0
    while i < len(kept):
        if budget <= 0:
            return None
        budget -= 1
        trial = kept[:i] + kept[i + 1:]
        if fails(trial):
            kept = trial
        else:
            i += 1
    return kept

