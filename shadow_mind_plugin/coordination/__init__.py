"""The coordination stage: bounded review metadata and stagnation detection.

The review window (:mod:`.review_window`) keeps recent accepted envelopes per
definition and detects spinning, oscillation, no drift and diminishing
novelty; the ladder (:mod:`.ladder`) picks the response — one reserved step
up the reasoning-effort ladder, or a cooldown — which :mod:`.coordination_stage` hands to
the trigger stage. Its per-root state is :class:`.coordination_state.CoordinationState`.
"""
