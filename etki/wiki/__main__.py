"""``python -m etki.wiki``: see :mod:`etki.commands.wiki` (also ``etki wiki``)."""

import sys

from etki.commands.wiki import main

sys.exit(main())
