"""``fivedp check``: scenario files run in lockstep batches, and over worker processes with ``--jobs``.

Each batch of files is loaded and run step by step with ``scenarios.check_scenarios``, so that the phases
waiting at one step are adjudicated together. What a file gave is kept as plain data (``Checked``),
which a worker process can send back; the files are reported in the order they were given.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Iterator, Sequence

from ...files.scenarios import Scenario, ScenarioRun, read_scenario, check_scenarios
from ...errors import AdjudicationError, EncodingError, InputError
from ...model.options import UserRule
from ...engine.userrules import scenario_with_preset, scenario_with_rules
from ...model.options import preset as preset_named
from .workers import in_batches

BATCH = 64  # files run in lockstep at a time: enough to share the fixed cost, few enough to report early


@dataclass(frozen=True)
class Checked:
    """One scenario file's outcome: its expectations met or not, or why it could not run
    (``error`` is ``input``, ``engine`` or ``encoding``, with ``message``)."""

    path: str
    id: str | None = None
    passed: bool = False
    problems: tuple[str, ...] = ()
    error: str | None = None
    message: str = ""


def _outcome(path: str, run: ScenarioRun | Exception) -> Checked:
    if isinstance(run, ScenarioRun):
        return Checked(path, run.scenario.id, run.passed, tuple(run.problems))
    if isinstance(run, EncodingError):
        return Checked(path, error="encoding", message=str(run))
    if isinstance(run, InputError):
        return Checked(path, error="input", message=str(run))
    if isinstance(run, AdjudicationError):
        return Checked(path, error="engine", message=f"the engine could not adjudicate: {run}")
    from ...errors import crash_message

    return Checked(path, error="engine", message=crash_message(run).splitlines()[0])


def check_batch(paths: Sequence[str], rules: tuple[UserRule, ...] = (), preset: str | None = None) -> list[Checked]:
    """Loads and runs these files together; every file gets its outcome, whatever the others do.
    ``rules`` (rules of your own, ``--rule``) are in effect in every file, each over the ``preset``
    (``--preset``) when one is named."""
    loaded: list[Scenario | Exception] = []
    for path in paths:
        try:
            loaded.append(scenario_with_preset(scenario_with_rules(read_scenario(path), rules), preset))
        except Exception as exc:  # noqa: BLE001 - reported as this file's outcome
            loaded.append(exc)
    scenarios = [c for c in loaded if isinstance(c, Scenario)]
    runs = iter(check_scenarios(scenarios))
    return [_outcome(path, c if isinstance(c, Exception) else next(runs)) for path, c in zip(paths, loaded)]


def check_paths(paths: Sequence[str], jobs: int = 1, batch: int = BATCH,
                rules: tuple[UserRule, ...] = (), scheduler: str | None = None,
                preset: str | None = None) -> Iterator[Checked]:
    """Each file's outcome, in the order given; ``jobs`` worker processes (or the workers of a Dask
    cluster, ``scheduler``) take batches in turn."""
    if preset is not None:
        preset_named(preset)  # an unknown name is refused before any work
    work = partial(check_batch, rules=rules, preset=preset) if rules or preset else check_batch
    return in_batches(paths, work, batch, jobs,
                      scheduler=scheduler, what="files")
