"""``fivedp check``: scenario files run in lockstep batches, in this process or in workers."""
