"""``fivedp explore``: what rule options change, on scenarios and on random games."""
