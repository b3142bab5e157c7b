"""`python -m glm_dspy.cli`: the `glm-dspy` command."""

import sys

from glm_dspy.cli.main import main

sys.exit(main())
