"""``fivedp bench``: how long adjudication takes, against a reference, and the material it runs on."""
