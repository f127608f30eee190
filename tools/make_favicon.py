"""Draws fivedp_asp/serve/static/favicon.ico from favicon.svg beside it: the SVG rendered by
rsvg-convert at 16, 32 and 48 pixels, each PNG an image of the icon file (the ICO format holds PNG
images as they are). Run it again after changing the SVG: python tools/make_favicon.py"""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "fivedp_asp" / "serve" / "static"
SIZES = (16, 32, 48)


def main() -> None:
    svg = STATIC / "favicon.svg"
    images = [subprocess.run(["rsvg-convert", "-w", str(n), "-h", str(n), str(svg)], check=True,
                             capture_output=True).stdout for n in SIZES]
    header = struct.pack("<HHH", 0, 1, len(images))
    offset = len(header) + 16 * len(images)
    entries = b""
    for n, png in zip(SIZES, images):
        entries += struct.pack("<BBBBHHII", n % 256, n % 256, 0, 0, 1, 32, len(png), offset)
        offset += len(png)
    (STATIC / "favicon.ico").write_bytes(header + entries + b"".join(images))


if __name__ == "__main__":
    main()
