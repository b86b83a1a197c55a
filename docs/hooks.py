"""MkDocs hook: the curated results (figures, the findings page) on the site, at the links a code host reads.

A page under docs/ links to a repository file the way a code host resolves it
(``../results/readme/x.png`` from ``docs/index.md``). This hook adds the files
of :data:`SHARED` to the site under their repository paths and rewrites such
links to them, so that one link works on the code host and on the site. A link
that leaves docs/ to any other file is left alone, and ``mkdocs build
--strict`` fails on it.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
#: Repository folders whose files the site carries (their Markdown pages rendered, the rest copied).
SHARED = ("results/readme", "results/findings", "notebooks")
_LINK = re.compile(r"(\]\()([^)\s]+)(\))")


def on_files(files, config):
    """Add the shared folders' files to the site."""
    for folder in SHARED:
        for path in sorted((ROOT / folder).iterdir()):
            if path.is_file() and not path.name.startswith("."):
                files.append(File(path.relative_to(ROOT).as_posix(), str(ROOT), config["site_dir"],
                                  config["use_directory_urls"]))
    return files


def on_page_markdown(markdown, page, config, files):
    """Rewrite links that climb out of docs/ into a shared folder to the shared file on the site."""
    here = posixpath.dirname(page.file.src_uri)
    if not page.file.abs_src_path.startswith(str(Path(config["docs_dir"]).resolve())):
        return markdown  # a shared page links as it sits in the repository

    def rewrite(match):
        link = match.group(2)
        if "://" in link or link.startswith("#"):
            return match.group(0)
        target = posixpath.normpath(posixpath.join("docs", here, link))
        if target.startswith("docs/") or not target.startswith(SHARED):
            return match.group(0)
        return match.group(1) + posixpath.relpath(target, here or ".") + match.group(3)

    return _LINK.sub(rewrite, markdown)
