"""The output stage: from a child's structured result to a relayed report.

It owns the outcome decision after disposal (:mod:`.outcome`: contract
re-validation, holdout replacement, report bounds), the batching window
(:mod:`.batcher`), severity ordering and the durable relay with provenance
(:mod:`.relay`), and delivery with its epoch checks (:mod:`.output_stage`). Its
per-root state is :class:`.output_state.OutputState`.
"""
