"""What the five runtime stages share: the per-root :class:`~.owner.OwnerState`
(a lifecycle core plus one state object per stage), the run records
(:mod:`.records`), the :class:`~.context.RuntimeContext` of host services and
the small typed interfaces the stages call each other through (:mod:`.ports`).
Nothing here imports a stage's logic or the wiring."""
