"""``fivedp explore PATH... --html FILE``: what differs, drawn.

For every scenario that differs under the values explored, and every step where it differs, the
boards that fought in that step are drawn under each combination side by side (render.board_svg,
with the step's orders and their results), above a table of the orders whose result changed, each
combination's result and reason beside it. The runs are made again here, in this process, for the
scenarios that differ only: the sweep itself keeps plain data (explore.py), not multiverses. The
page is self-contained (inline SVG and CSS, no scripts) and every text from the input is escaped.
"""

from __future__ import annotations

import html
from typing import Sequence

from ...files.scenarios import Scenario, check_scenarios
from .exploration import Asked, Exploration, _variants, column_label
from ...model.multiverse import board_name
from ...report.render import DrawnOrder, Frame, board_svg
from ...engine.step import StepReport, read_orders

MAX_BOARDS = 3  # boards drawn per step and combination: the fought ones, the first few


def _drawn(report: StepReport, lines) -> tuple[DrawnOrder, ...]:
    results = {(o.power, o.text): (o.result, o.reason) for o in report.outcomes}
    out, seen = [], set()
    for _, r in read_orders(report.before, lines):
        if (r.power, r.text) not in seen:
            seen.add((r.power, r.text))
            result, reason = results.get((r.power, r.text), (None, None))
            out.append(DrawnOrder(r, result, reason))
    return tuple(out)


def _cell(value) -> str:
    if isinstance(value, tuple) and len(value) == 2:
        result, reason = value
        return f"<b>{html.escape(str(result))}</b>" + (f" ({html.escape(str(reason))})" if reason else "")
    if value is None:
        return "<i>(no board)</i>"
    if isinstance(value, (list, tuple)):
        return html.escape(", ".join(str(v) for v in value)) or "-"
    return html.escape(str(value))


def _section(scenario: Scenario, ex: Exploration, asked: Asked) -> list[str]:
    esc = html.escape
    names, columns, own, variants = _variants(scenario, asked)
    runs = check_scenarios(variants)
    out = [f"<section><h2>{esc(ex.id)}: {esc(ex.title)}</h2><p class=path>{esc(ex.path)}</p>"]
    for s in ex.steps:
        out.append(f"<h3>Step {s.number}</h3>")
        reports = [r.reports[s.number - 1] if not isinstance(r, Exception) and len(r.reports) >= s.number else None
                   for r in runs]
        out.append("<div class=row>")
        for i, (column, report) in enumerate(zip(columns, reports)):
            label = column_label(names, column) + (" (own)" if i == own else "")
            out.append(f"<div class=col><h4>{esc(label)}</h4>")
            if report is None:
                out.append("<p>this step was not played under these values</p></div>")
                continue
            frame = Frame(label, report.after, _drawn(report, scenario.steps[s.number - 1].orders), (), (), frozenset(),
                          report.phase)
            fought = [b.key for b in report.before.heads if b.phase == report.phase][:MAX_BOARDS]
            for key in fought:
                if key in report.after.boards:
                    out.append(f"<figure>{board_svg(frame, key, standalone=True)}"
                               f"<figcaption>{esc(board_name(*key))}</figcaption></figure>")
            out.append("</div>")
        out.append("</div><table><tr><th>what</th>"
                   + "".join(f"<th>{esc(column_label(names, c))}{' (own)' if i == own else ''}</th>"
                             for i, c in enumerate(columns)) + "</tr>")
        for r in s.rows:
            label = " ".join(x for x in (r.board, r.power and f"{r.power}:", r.order or ("" if r.order else r.what)) if x)
            cls = " class=changed" if r.what == "order" else ""
            out.append(f"<tr{cls}><td>{esc(label or r.what)}</td>" + "".join(f"<td>{_cell(v)}</td>" for v in r.cells)
                       + "</tr>")
        out.append("</table>")
    out.append("</section>")
    return out


def exploration_page(scenarios: Sequence[Scenario], explorations: Sequence[Exploration], asked: Asked) -> str:
    by_path = {c.path: c for c in scenarios}
    body = []
    for ex in explorations:
        if ex.steps and ex.path in by_path:
            body += _section(by_path[ex.path], ex, asked)
    if not body:
        body = ["<p>No scenario differs under the values explored.</p>"]
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>fivedp explore</title><style>"
            "body{font-family:sans-serif;margin:1.5em}.row{display:flex;gap:1em;flex-wrap:wrap}"
            ".col{border:1px solid #ccc;padding:.5em}.col svg{width:420px;height:auto}"
            "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 6px;"
            "vertical-align:top}tr.changed td:first-child{background:#fde2e1;font-weight:bold}"
            ".path{color:#666}</style></head><body><h1>What the options change</h1>"
            + "".join(body) + "</body></html>\n")
