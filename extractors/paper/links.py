"""Links: URIs of link annotations and URLs printed in the text, in reading order.

Printed URLs are often broken over two lines by LaTeX's url package (after "/" or "-")
and end in sentence punctuation; both are repaired here. A printed URL that is only the
truncated start of an annotated one on the same page gives way to the annotated one.
"""

from __future__ import annotations

import re

import pymupdf

_CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "huggingface.co")
_URL = re.compile(
    r"(?:https?://|www\.|(?<![\w.@/])(?:github\.com|gitlab\.com|bitbucket\.org|huggingface\.co)/)"
    r"[^\s<>\"'{}|\\^`]+",
    re.I,
)
_BREAK_AFTER = ("/", "-", "_", "#", "=", "?", "&")
_TRAIL = ".,;:!?'\"”’»>"


def page_links(page: pymupdf.Page, text_lines: list[str], annotated: bool) -> list[str]:
    """URLs of one page: annotations first (they are exact), then printed ones."""
    out: list[str] = []
    if annotated:
        # Walking the link chain reads only URIs; get_links() also resolves every
        # internal (citation) link to its target page, which is several times slower.
        link = page.first_link
        while link:
            uri = link.uri or "" if link.is_external else ""
            if uri.lower().startswith(("http://", "https://")):
                out.append(clean_url(uri))
            link = link.next
    exact = [u for u in out if u]
    for url in text_urls(text_lines):
        if any(_key(e).startswith(_key(url)) and _key(e) != _key(url) for e in exact):
            continue
        out.append(url)
    return [u for u in out if u]


def text_urls(lines: list[str]) -> list[str]:
    urls: list[str] = []
    for k, line in enumerate(lines):
        for m in _URL.finditer(line):
            url = m.group(0)
            if m.end() >= len(line.rstrip()) and url.endswith(_BREAK_AFTER) and k + 1 < len(lines):
                nxt = re.match(r"[^\s<>\"'{}|\\^`]+", lines[k + 1].lstrip())
                if nxt:
                    url += nxt.group(0)
            url = clean_url(url)
            if url:
                urls.append(url)
    return urls


def clean_url(url: str) -> str:
    """Trailing punctuation off, unbalanced brackets off, a scheme on bare code hosts."""
    url = url.strip()
    while url and url[-1] in _TRAIL:
        url = url[:-1]
    for opener, closer in (("(", ")"), ("[", "]")):
        while url.endswith(closer) and url.count(closer) > url.count(opener):
            url = url[:-1].rstrip(_TRAIL)
    low = url.lower()
    if low.startswith("www.") or low.startswith(_CODE_HOSTS):
        url = "https://" + url
    low = url.lower()
    for host in _CODE_HOSTS:
        marker = f"://{host}/"
        if marker in low or f"://www.{host}/" in low:
            # repository names never contain brackets: "repo(Apache-2.0)" -> "repo"
            url = re.split(r"[()\[\]]", url, maxsplit=1)[0].rstrip(_TRAIL)
    if not re.match(r"https?://[^/\s]+\.[^/\s]+", url, re.I):
        return ""
    return url


def _key(url: str) -> str:
    k = re.sub(r"^https?://(www\.)?", "", url.lower())
    k = k.rstrip("/")
    return k[:-4] if k.endswith(".git") else k


def dedupe(urls: list[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for u in urls:
        k = _key(u)
        if k and k not in seen:
            seen.add(k)
            out.append(u)
    return out
