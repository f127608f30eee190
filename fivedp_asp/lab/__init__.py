"""The lab: tools that study the engine rather than play games with it.

``check`` (scenarios run in batches and worker processes), ``explore`` (option sweeps and studies over
random and bot games), ``compare`` (the comparison with reference adjudicators), ``bench`` (the
benchmarks) and ``bots`` (players for studies and ``fivedp selfplay``). They sit on top of the core
(``solver``, ``model``, ``engine``, ``game``, ``files``, ``report``, ``api``, ``serve``), which never
imports them: ``tests/project/test_layers.py`` holds both.
"""
