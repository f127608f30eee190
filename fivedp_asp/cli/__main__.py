"""``python -m fivedp_asp.cli``: the ``fivedp`` command."""

import sys

from .commands import main

sys.exit(main())
