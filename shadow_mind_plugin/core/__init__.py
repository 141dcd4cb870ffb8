"""What the five runtime paths share: the per-root :class:`~.owner.OwnerState`
(a lifecycle core plus one state object per path), the run records
(:mod:`.records`), the :class:`~.context.RuntimeContext` of host services and
the small typed interfaces the paths call each other through (:mod:`.ports`).
Nothing here imports a path's logic or the wiring."""
