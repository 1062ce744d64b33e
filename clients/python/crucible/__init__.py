"""crucible: a client of the Crucible API, standard library only."""

from .client import Client
from .errors import CrucibleAPIError, CrucibleNetworkError
from .types_gen import ENDED_STATUSES, JOB_FAILURE_CODES

__all__ = ["Client", "CrucibleAPIError", "CrucibleNetworkError", "ENDED_STATUSES", "JOB_FAILURE_CODES"]
__version__ = "0.1.0"
