"""Parse a paper PDF into a `ParsedPaper`: front matter, sections, tables, figures, links.

Public surface:
    parse_pdf(path, images_dir=None, *, max_pages=400, deadline_s=None, max_image_mb=512)
        -> ParsedPaper
    parse_pdf_isolated(path, images_dir=None, *, max_pages, timeout_s, max_memory_mb)
        -> ParsedPaper: the same in a child process with hard time and memory limits.
    PaperLoadError  (a ValueError) for files that cannot be opened as a PDF at all.

Problems inside a readable PDF (a page that fails, a table whose cells cannot be read, no
text layer) never raise: they are recorded on the result with `add_error`, which makes its
status `partial`. Crops of tables and figures are written as PNG into `images_dir`, and
each record's `image` is the path relative to `images_dir.parent` (e.g.
"images/figure-2-p3.png"), so a paper folder holding both stays relocatable.

Limits: past `deadline_s` the parser stops between pages and keeps what it has (error
`time_limit`); a crop that would decode more than `max_image_mb` of pixels is not rendered
(error `image_too_large`). Both leave the status `partial`.
"""

from extractors.paper.errors import PaperLoadError
from extractors.paper.isolate import parse_pdf_isolated
from extractors.paper.parse import parse_pdf

__all__ = ["PaperLoadError", "parse_pdf", "parse_pdf_isolated"]
