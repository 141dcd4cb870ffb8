"""The coordination path: bounded review metadata and stagnation detection.

The review window (:mod:`.review_window`) keeps recent accepted envelopes per
definition and detects spinning, oscillation, no drift and diminishing
novelty; the ladder (:mod:`.ladder`) picks the response — one reserved step
up the reasoning-effort ladder, or a cooldown — which :mod:`.path` hands to
the trigger path. Its per-root state is :class:`.state.CoordinationState`.
"""
