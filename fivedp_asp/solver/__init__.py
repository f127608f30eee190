"""Running clingo: the driver (one program per adjudication, backup rules by assumptions, time limits)
and the one mapping between Python values and ASP terms.

Nothing here knows the game's rules; those are the logic programs in ``asp/``."""
