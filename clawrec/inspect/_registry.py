"""What the `inspect_ai` entry point of the clawrec package registers (Inspect's extension convention): the tasks
clawrec/demo, clawrec/clawbench and clawrec/apps, the solver, the scorer and the browser tools."""

from clawrec.inspect.scorer import clawrec_scorer  # noqa: F401
from clawrec.inspect.solver import clawrec_solver  # noqa: F401
from clawrec.inspect.tasks import apps, clawbench, demo  # noqa: F401
from clawrec.inspect.tools import (back, click, key, navigate, screenshot, scroll, select, snapshot,  # noqa: F401
                                   tabs, type_text, upload, wait)
