"""The frames of the B2 stages: pandas in one place, imported when a frame is built.

The stages' jobs start without pandas (docs/performance.md, "Job start-up"); the functions
that return frames build them here, so pandas is imported on their first call.
:data:`Frame` names the frame's type in annotations without importing it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Frame", "concat", "frame"]

#: ``pandas.DataFrame``, for annotations (a forward reference: nothing is imported)
Frame: TypeAlias = "pd.DataFrame"


def frame(rows: Sequence[Mapping]) -> Frame:
    """The tidy rows of a stage as one frame (``pandas.DataFrame(rows)``)."""
    import pandas as pd

    return pd.DataFrame(rows)


def concat(frames: Iterable[Frame]) -> Frame:
    """Frames one under the other, renumbered (``pandas.concat(frames, ignore_index=True)``)."""
    import pandas as pd

    return pd.concat(frames, ignore_index=True)
