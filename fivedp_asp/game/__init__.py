"""A game played turn by turn, apart from any file: its state (``state``: the multiverse, the orders
waiting, the history) and the rules of play (``play``: orders given power by power, what each power
must do next, adjudicating, undoing). Reading and writing game files is ``files.games``' job."""
