"""The tests, one folder for each part of the package (tests/engine/ for fivedp_asp/engine/, ...).

A package, so that a test module and the shared helpers are imported by their full names
(``tests.files.test_game``, ``tests.schema_check``) from whichever folder needs them."""
