"""crucible: a client of the Crucible API, standard library only."""

from .client import Client
from .errors import CrucibleAPIError, CrucibleNetworkError

__all__ = ["Client", "CrucibleAPIError", "CrucibleNetworkError"]
__version__ = "0.1.0"
