"""Running clingo: the driver (one program per adjudication, backup rules by assumptions, time limits),
the declared table of the predicates that cross between Python and ``asp/`` (``predicates.py``)
and the spelling of ASP terms (``terms.py``).

Nothing here knows the game's rules; those are the logic programs in ``asp/``."""
