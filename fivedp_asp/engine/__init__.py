"""Adjudication: the rule options, a phase's facts, the solver's answer read back, and the step that
turns a multiverse and its orders into the next multiverse (one phase kind at a time, or many
phases together in one program)."""
