"""Mining a paper's code repository: pin it, index it, and search it read-only.

Public surface: `resolve_repo` pins a local folder, local git repo or URL to one commit;
`mine_repo` builds the `RepoIndex` record; `RepoSearch` holds the confined read-only tools the
setup agent works through.
"""

from .mine import mine_repo
from .resolve import RepoLoadError, resolve_repo
from .search import RepoPathError, RepoSearch, path_tokens, stem, terms, tokens

__all__ = [
    "RepoLoadError",
    "RepoPathError",
    "RepoSearch",
    "mine_repo",
    "path_tokens",
    "resolve_repo",
    "stem",
    "terms",
    "tokens",
]
