"""python -m errorcount.config: the settings' own tool (docs, the conf file, the type, one value)."""

import sys

from errorcount.config.load import main

sys.exit(main())
