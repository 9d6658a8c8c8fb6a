"""clawrec as Inspect AI building blocks (the optional extra: pip install 'clawrec[inspect]'; docs/howto/inspect.md).

    inspect eval clawrec/demo --model anthropic/claude-sonnet-4-5

`clawrec_dataset` (samples from specs or a bench plan), `browser_tools` (navigate, click, type, … on the run's
instrumented browser), `clawrec_solver` (one sample = one clawrec run), `clawrec_scorer` (clawrec's judge),
`clawrec_task` (the three together); `export` writes a `clawrec bench` folder as an Inspect log.
"""

from clawrec.inspect.dataset import clawrec_dataset
from clawrec.inspect.scorer import clawrec_scorer
from clawrec.inspect.solver import clawrec_solver, default_agent
from clawrec.inspect.tasks import clawrec_task
from clawrec.inspect.tools import browser_tools

__all__ = ["browser_tools", "clawrec_dataset", "clawrec_scorer", "clawrec_solver", "clawrec_task", "default_agent"]
