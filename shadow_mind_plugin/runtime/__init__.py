"""The Shadow Mind runtime: trigger, run, output, coordination and governance stages."""
