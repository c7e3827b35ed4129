"""The README is the front door and the repository stands alone (issue 15 item 10).

Checked on the committed files: README.md is at most 200 lines, names the two commands and marks
its first flow (tests/e2e/test_first_flow.py runs it); every relative link in README.md and
docs/*.md reaches a file of the repository, and a section of a page (`page.md#anchor`, or `#anchor`
on the same page) one of that page's headings; no tracked Markdown or Python file points at a
document outside it. Each check is also run on a temporary copy with a planted defect, to show
it fails.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
README_MAX_LINES = 200
COMMANDS = ("make run", "make test")
FIRST_FLOW_MARKERS = ("<!-- first-flow:start -->", "<!-- first-flow:end -->")
# Pages written on the `dpop` and `par` branches (sender-constrained tokens); the README links
# them ahead of the merge. Remove an entry once its page is in the tree.
PENDING_PAGES = frozenset({"docs/dpop.md", "docs/fapi2.md"})
# Documents that live outside this repository, spelled in pieces so this file does not name them.
OUTSIDE_DOCUMENTS = ("PRODUCT" + ".md", "STYLE" + ".md", ".." + "/shared")

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
_EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//|#)", re.IGNORECASE)
_SAME_PAGE = re.compile(r"\]\((#[^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.*?)[ \t#]*$", re.MULTILINE)
_HEADING_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def readme_defects(readme: Path) -> list[str]:
    """What keeps README.md from being the front door: length, the two commands, the first flow."""
    text = readme.read_text("utf-8")
    defects = []
    lines = len(text.splitlines())
    if lines > README_MAX_LINES:
        defects.append(f"README.md has {lines} lines (at most {README_MAX_LINES})")
    defects += [f"README.md does not mention `{command}`" for command in COMMANDS if command not in text]
    defects += [f"README.md must hold {marker} exactly once" for marker in FIRST_FLOW_MARKERS
                if text.count(marker) != 1]
    return defects


def _prose(markdown: str) -> str:
    return _CODE_SPAN.sub("", _FENCE.sub("", markdown))


def relative_links(markdown: str) -> list[str]:
    """Link targets outside code, without URLs with a scheme and same-page anchors."""
    prose = _prose(markdown)
    targets = _INLINE_LINK.findall(prose) + _REFERENCE_LINK.findall(prose)
    return [t for t in targets if not _EXTERNAL.match(t)]


def heading_anchors(markdown: str) -> set[str]:
    """The anchors of a page's headings as GitHub makes them: the heading's text (a link's text, not its
    target) in lower case, without punctuation but `-` and `_`, spaces as `-`; a repeated one gets `-1`, `-2`..."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for heading in _HEADING.findall(_FENCE.sub("", markdown)):
        text = _HEADING_LINK.sub(r"\1", heading).replace("`", "")
        anchor = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        anchors.add(anchor if count == 0 else f"{anchor}-{count}")
    return anchors


def broken_links(root: Path, pages: list[Path]) -> list[str]:
    """Relative links of `pages` that do not reach a file or folder inside `root`, or name a section (`#anchor`)
    that a Markdown page of the repository does not have; same-page anchors (`#anchor` alone) included."""
    broken = []
    for page in pages:
        text = page.read_text("utf-8")
        for target in relative_links(text) + [f"{page.name}{a}" for a in _SAME_PAGE.findall(_prose(text))]:
            path, _, anchor = target.split("?", 1)[0].partition("#")
            resolved = (page.parent / path).resolve()
            inside = resolved == root or root in resolved.parents
            if inside and resolved.exists():
                if anchor and resolved.suffix == ".md" and anchor not in heading_anchors(resolved.read_text("utf-8")):
                    broken.append(f"{page.relative_to(root)}: {target}")
                continue
            if inside and resolved.relative_to(root).as_posix() in PENDING_PAGES:
                continue
            broken.append(f"{page.relative_to(root)}: {target}")
    return broken


def outside_references(root: Path, files: list[Path]) -> list[str]:
    """Lines of `files` that name a document outside the repository."""
    found = []
    for path in files:
        for number, line in enumerate(path.read_text("utf-8", errors="replace").splitlines(), 1):
            found += [f"{path.relative_to(root)}:{number}: {name}" for name in OUTSIDE_DOCUMENTS if name in line]
    return found


def front_pages(root: Path) -> list[Path]:
    return [root / "README.md", root / "CONTRIBUTING.md", *sorted((root / "docs").glob("*.md"))]


def tracked_sources(root: Path) -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z", "--", "*.md", "*.py"], cwd=root, check=True,
                            capture_output=True, text=True).stdout.split("\0")
    return [root / name for name in listed if name and (root / name).is_file()]


def test_readme_is_the_front_door():
    assert readme_defects(ROOT / "README.md") == []


def test_every_relative_link_resolves():
    pages = front_pages(ROOT)
    assert len(pages) > 10 and broken_links(ROOT, pages) == []


def test_no_tracked_file_names_a_document_outside_the_repository():
    files = tracked_sources(ROOT)
    assert ROOT / "README.md" in files and Path(__file__) in files
    assert outside_references(ROOT, files) == []


def test_links_inside_code_and_urls_are_not_checked():
    text = ("[a](docs/a.md) [b](https://example.com/x.md) [c](#local) ![i](img/x.png)\n"
            "`[d](not/a/link.md)`\n```\n[e](nor/this.md)\n```\n[ref]: docs/ref.md \"title\"\n")
    assert relative_links(text) == ["docs/a.md", "img/x.png", "docs/ref.md"]


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """README.md and docs/ as committed, in a temporary tree whose other files are empty stand-ins."""
    for page in front_pages(ROOT):
        target = tmp_path / page.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(page, target)
    for page in front_pages(ROOT):
        for link in relative_links(page.read_text("utf-8")):
            resolved = (page.parent / link.split("#", 1)[0]).resolve()
            if resolved.exists() and ROOT in resolved.parents:
                stand_in = tmp_path / resolved.relative_to(ROOT)
                if not stand_in.exists():
                    stand_in.parent.mkdir(parents=True, exist_ok=True)
                    if resolved.is_dir():
                        stand_in.mkdir()
                    else:
                        stand_in.touch()
    assert readme_defects(tmp_path / "README.md") == [] and broken_links(tmp_path, front_pages(tmp_path)) == []
    return tmp_path


@pytest.mark.parametrize(("plant", "defect"), [
    (lambda t: t + "line\n" * 200, "lines (at most 200)"),
    (lambda t: t.replace("make run", "make serve"), "`make run`"),
    (lambda t: t.replace("make test", "make check"), "`make test`"),
    (lambda t: t.replace("<!-- first-flow:end -->", ""), "first-flow:end"),
    (lambda t: t + "<!-- first-flow:start -->\n", "first-flow:start"),
], ids=["too-long", "no-make-run", "no-make-test", "no-end-marker", "second-start-marker"])
def test_readme_check_fails_on_a_planted_defect(copy: Path, plant, defect):
    readme = copy / "README.md"
    readme.write_text(plant(readme.read_text("utf-8")), "utf-8")
    assert any(defect in d for d in readme_defects(readme)), readme_defects(readme)


@pytest.mark.parametrize(("page", "link"), [
    ("README.md", "docs/no-such-page.md"),
    ("README.md", "docs/no-such-page.md#anchor"),
    ("docs/oauth.md", "limits.mdx"),
    ("docs/oauth.md", "../../outside.md"),
    ("docs/oauth.md", "dpop.md/../../README.md/x"),
    ("docs/charges.md", "docs/fapi2.md"),  # pending pages are allowed by repository path, not by name
    ("README.md", "docs/federation.md#no-such-section"),
    ("docs/oauth.md", "federation.md#sign-out-through-the-identity-provider-1"),
])
def test_link_check_fails_on_a_planted_broken_link(copy: Path, page: str, link: str):
    target = copy / page
    target.write_text(target.read_text("utf-8") + f"\nSee [this]({link}).\n", "utf-8")
    assert broken_links(copy, front_pages(copy)) == [f"{page}: {link}"]


def test_a_link_to_a_section_of_a_page_names_one_of_its_headings(copy: Path):
    page = copy / "docs" / "oauth.md"
    page.write_text(page.read_text("utf-8") + "\n[a](federation.md#sign-out-through-the-identity-provider) "
                    "[b](#not-here) [c](../README.md#two-commands)\n", "utf-8")
    assert broken_links(copy, front_pages(copy)) == ["docs/oauth.md: oauth.md#not-here"]


def test_heading_anchors_are_githubs():
    text = ("# Sign-in with `authgate`\n## Reading an error ([contract](contract.md) 7.4)\n## Notes\n"
            "```\n# not a heading\n```\n### Notes ###\n## What the IdP's administrator registers\n")
    assert heading_anchors(text) == {"sign-in-with-authgate", "reading-an-error-contract-74", "notes", "notes-1",
                                     "what-the-idps-administrator-registers"}


def test_link_check_allows_exactly_the_pending_pages(copy: Path):
    readme = copy / "README.md"
    readme.write_text(readme.read_text("utf-8") + "\n[x](docs/fapi2.md) [y](docs/dpop.md) [z](docs/par.md)\n", "utf-8")
    assert broken_links(copy, front_pages(copy)) == ["README.md: docs/par.md"]


@pytest.mark.parametrize("name", OUTSIDE_DOCUMENTS)
@pytest.mark.parametrize("suffix", ["md", "py"])
def test_outside_reference_check_fails_on_a_planted_mention(tmp_path: Path, name: str, suffix: str):
    clean = tmp_path / f"clean.{suffix}"
    clean.write_text("# the error contract is docs/contract.md\n", "utf-8")
    planted = tmp_path / f"planted.{suffix}"
    planted.write_text(f"x = 1\n# as {name} says\n", "utf-8")
    assert outside_references(tmp_path, [clean, planted]) == [f"planted.{suffix}:2: {name}"]
