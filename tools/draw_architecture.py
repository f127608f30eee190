"""Draw docs/architecture.svg: the rooms of fivedp_asp, one floor per layer, with asp/ beside the
engine and the solver, and what a command does on the right.

The modules on each floor are read from the package as it is, so the picture never names a module
that is gone: run ``python tools/draw_architecture.py`` after adding or moving one
(``tests/project/test_docs.py`` fails while the picture differs from what this script draws).
"""

from __future__ import annotations

import sys
import textwrap
from html import escape
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "fivedp_asp"
OUT = ROOT / "docs" / "architecture.svg"

FLOORS = (  # layer, the folders or modules it holds, what they hold
    ("9", ("cli",), "the commands: arguments in, text out"),
    ("8", ("lab",), "tools that study the engine; the core never imports them"),
    ("7", ("api.py", "serve"), "the library's face; the game server"),
    ("6", ("report",), "what a user reads: text, JSON, pictures"),
    ("5", ("files",), "what is kept on disk: scenarios, game files"),
    ("4", ("game",), "a game in play; random games"),
    ("3", ("engine",), "one step of adjudication, phase by phase"),
    ("2", ("model",), "the game's values"),
    ("1", ("solver",), "clingo: programs grounded and solved"),
    ("0", ("errors.py", "limits.py", "inputs.py", "yaml_lines.py", "shapes.py"), "errors, limits, every file read"),
)
FLOW = ("text", "model", "facts", "asp/ + clingo", "answer", "new boards", "game, files", "reports")
ASP_NOTE = ("asp/: the rules, in ASP", "movement/ · retreat/", "adjustment/ · sustain/", "victory/ · legality.lp",
            "options/: a file per value", "show/: what is read back", "the engine writes facts,",
            "the solver grounds these")
WIDTH, X0, Y0, GAP, LINE = 1180, 20, 56, 6, 15
FLOOR_W, ASP_X, ASP_W = 770, 803, 192
CHARS = 118  # module names per line of a floor, at 11.5 px


def contents(name: str) -> str:
    """A floor's modules: those of a subpackage (a sub-subpackage as ``name/``), or a module itself."""
    path = PACKAGE / name
    if name.endswith(".py"):
        return name[:-3]
    parts = []
    for child in sorted(path.iterdir()):
        if child.is_dir() and (child / "__init__.py").exists():
            parts.append(child.name + "/")
        elif child.suffix == ".py" and child.stem not in ("__init__", "__main__"):
            parts.append(child.stem)
    return " · ".join(parts)


def floor_text(names: tuple[str, ...]) -> list[str]:
    """The modules of a floor in lines of at most ``CHARS`` characters; on a floor of several
    folders, each folder's modules after its name."""
    if len(names) == 1 or all(n.endswith(".py") for n in names):
        text = " · ".join(contents(n) for n in names)
    else:
        text = "   ".join(n if n.endswith(".py") else f"{n}/: {contents(n)}" for n in names)
    return textwrap.wrap(text, CHARS)


def draw() -> str:
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="HEIGHT" viewBox="0 0 {WIDTH} HEIGHT" '
           'font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
           '<rect width="100%" height="100%" fill="#ffffff"/>',
           f'<text x="{X0}" y="30" font-size="20" font-weight="bold" fill="#222">fivedp_asp: one floor per layer; '
           'a module imports only from its own floor or lower ones</text>']
    y = Y0
    tops = {}
    for layer, names, holds in FLOORS:
        lines = floor_text(names)
        height = 34 + LINE * len(lines)
        tops[layer] = (y, height)
        fill = "#fdf1dc" if layer == "8" else "#eeeeee" if layer == "9" else "#e8f0fb"
        title = "base" if layer == "0" else "   ".join(n if n.endswith(".py") else n + "/" for n in names)
        out.append(f'<rect x="{X0}" y="{y}" width="{FLOOR_W}" height="{height}" rx="6" fill="{fill}" stroke="#6b7c93"/>')
        out.append(f'<text x="{X0 + 10}" y="{y + 20}" font-size="15" font-weight="bold" fill="#1b2a41">'
                   f'{layer}  {escape(title)}</text>')
        out.append(f'<text x="{X0 + 200}" y="{y + 20}" font-size="13" fill="#333">{escape(holds)}</text>')
        for k, line in enumerate(lines):
            out.append(f'<text x="{X0 + 10}" y="{y + 38 + k * LINE}" font-size="11.5" fill="#555">{escape(line)}</text>')
        y += height + GAP
    bottom = y
    # asp/ beside the engine and the solver
    top_a, _ = tops["3"]
    top_s, h_s = tops["1"]
    out.append(f'<rect x="{ASP_X}" y="{top_a}" width="{ASP_W}" height="{top_s + h_s - top_a}" rx="6" '
               'fill="#e6f4e6" stroke="#4f8a4f"/>')
    for layer in ("3", "1"):
        mid = tops[layer][0] + tops[layer][1] // 2
        out.append(f'<line x1="{X0 + FLOOR_W}" y1="{mid}" x2="{ASP_X}" y2="{mid}" stroke="#4f8a4f" stroke-width="2"/>')
    for k, line in enumerate(ASP_NOTE):
        weight = 'font-weight="bold" ' if k == 0 else ""
        out.append(f'<text x="{ASP_X + 5}" y="{top_a + 22 + k * 18}" font-size="{14 if k == 0 else 12}" '
                   f'{weight}fill="#234d23">{escape(line)}</text>')
    # what a command does
    fx = ASP_X + ASP_W + 15
    out.append(f'<text x="{fx}" y="{Y0 + 14}" font-size="13" font-weight="bold" fill="#7a3b00">what a command does</text>')
    for k, word in enumerate(FLOW):
        fy = Y0 + 40 + k * 52
        out.append(f'<rect x="{fx}" y="{fy - 16}" width="160" height="24" rx="12" fill="#fff7ec" stroke="#c07a2c"/>')
        out.append(f'<text x="{fx + 80}" y="{fy + 1}" font-size="12.5" text-anchor="middle" fill="#7a3b00">'
                   f'{escape(word)}</text>')
        if k < len(FLOW) - 1:
            out.append(f'<line x1="{fx + 80}" y1="{fy + 9}" x2="{fx + 80}" y2="{fy + 33}" stroke="#c07a2c" stroke-width="2"/>')
            out.append(f'<polygon points="{fx + 75},{fy + 29} {fx + 85},{fy + 29} {fx + 80},{fy + 35}" fill="#c07a2c"/>')
    legend = bottom + 14
    out.append(f'<rect x="{X0}" y="{legend}" width="16" height="12" fill="#e8f0fb" stroke="#6b7c93"/>'
               f'<text x="{X0 + 22}" y="{legend + 11}" font-size="12" fill="#333">the core: adjudicates and plays games</text>')
    out.append(f'<rect x="{X0 + 300}" y="{legend}" width="16" height="12" fill="#fdf1dc" stroke="#6b7c93"/>'
               f'<text x="{X0 + 322}" y="{legend + 11}" font-size="12" fill="#333">the lab: checks, sweeps, studies, '
               'comparisons, benchmarks, bots</text>')
    out.append(f'<text x="{X0}" y="{legend + 34}" font-size="12" fill="#333">tests/ mirrors these folders '
               '(tests/engine/ tests fivedp_asp/engine/); cases/ holds the scenarios; docs/ the documents</text>')
    out.append("</svg>")
    height = legend + 50
    return "\n".join(out).replace("HEIGHT", str(height)) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] not in ([], ["--check"]):
        sys.exit("usage: python tools/draw_architecture.py [--check]")
    drawn = draw()
    if sys.argv[1:] == ["--check"]:
        sys.exit(0 if OUT.read_text(encoding="utf-8") == drawn else "docs/architecture.svg differs: draw it again")
    OUT.write_text(drawn, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
