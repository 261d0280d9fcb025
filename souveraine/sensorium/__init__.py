"""The sensorium (constitution Art. III): one being, seen through viewports of different bandwidth.

``bandwidth.py`` says what each class shows (the seed's table, as code); ``telemetry.py``
reads what is happening now — presence, the unit and its chain of phases, the forks, the
last N+1 pass, recent commits, what needs attention. ``wake``, ``status`` and ``surface``
all ask the same two modules, so a viewport shows the same things whichever command draws it.
"""
