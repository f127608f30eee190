"""``fivedp compare``: this engine against a reference adjudicator, on scenarios or random games."""
