"""The trigger stage: which completed root tool turns get a review.

It owns eligible-turn detection (:mod:`.eligibility`), the one probability
roll for the ``default`` definition, decay, stagnation cooldowns and reserved
effort escalations (installed by the coordination stage and taken by the run
stage through :mod:`.throttles`), the
per-root character budget (:mod:`.budget`) and the FIFO queue of turns that
wait while a reviewer runs (:mod:`.trigger_stage`). Its per-root state is
:class:`.trigger_state.TriggerState`.
"""
