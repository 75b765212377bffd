"""``python -m server``: the ``gambit`` command without its script (e.g. from a checkout)."""

from .cli import main

raise SystemExit(main())
