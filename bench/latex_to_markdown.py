"""Turn an arXiv LaTeX source (a .tar.gz) into Markdown for `manage.py ingest` (offline test-data tool).

    python bench/latex_to_markdown.py SOURCE.tar.gz MAIN.tex OUT.md

Resolves \\input, expands argument-free \\newcommand macros, keeps section headings as Markdown headings, the text
of emphasis commands, and table rows (cells joined by " | "); drops comments, citations, labels and figures.
"""

from __future__ import annotations

import re
import sys
import tarfile
from pathlib import Path


def read_tex(members: dict[str, str], name: str, depth: int = 0) -> str:
    text = members.get(name) or members.get(name + ".tex") or ""
    text = re.sub(r"(?<!\\)%.*", "", text)
    if depth > 5:
        return text
    return re.sub(r"\\input\{([^}]+)\}", lambda m: read_tex(members, m.group(1).strip(), depth + 1), text)


def convert(tex: str) -> str:
    macros = dict(re.findall(r"\\newcommand\{?\\(\w+)\}?\s*\{((?:[^{}]|\{[^{}]*\})*)\}", tex))
    macros.update(re.findall(r"\\def\\(\w+)\s*\{((?:[^{}]|\{[^{}]*\})*)\}", tex))
    body = tex.split(r"\begin{document}", 1)[-1].split(r"\end{document}", 1)[0]
    title = re.search(r"\\title\{([^}]*)\}", tex)
    for _ in range(3):
        body = re.sub(
            r"\\(\w+)\b(?:\{\})?",
            lambda m: macros[m.group(1)] if m.group(1) in macros and "#" not in macros[m.group(1)] else m.group(0),
            body,
        )
    body = re.sub(r"\\begin\{figure\*?\}.*?\\end\{figure\*?\}", "", body, flags=re.S)
    body = re.sub(r"\\caption\{((?:[^{}]|\{[^{}]*\})*)\}", r"\n\nCaption: \1\n\n", body)
    body = re.sub(r"\\(?:sub)*section\*?\{((?:[^{}]|\{[^{}]*\})*)\}", lambda m: "\n\n# " + m.group(1) + "\n\n", body)
    body = re.sub(r"\\paragraph\{((?:[^{}]|\{[^{}]*\})*)\}", r"\n\n\1 ", body)
    dropped = r"\\(?:cite\w*|label|ref|eqref|autoref|cref|Cref|url|footnotemark)\*?(?:\[[^\]]*\])*\{[^}]*\}"
    body = re.sub(dropped, "", body)
    body = re.sub(r"\\(?:textbf|textit|emph|texttt|textsc|mathrm|mathbf|text|footnote|small|bf|it)\{", "{", body)
    body = body.replace("&", " | ").replace("\\\\", "\n").replace("~", " ")
    layout = r"\\(?:hline|toprule|midrule|bottomrule|centering|noindent|item|maketitle|small|footnotesize)\b"
    body = re.sub(layout, "\n", body)
    body = re.sub(r"\\(?:begin|end)\{[^}]*\}(?:\{[^}]*\})*(?:\[[^\]]*\])?", "\n", body)
    body = re.sub(r"\\[a-zA-Z]+\*?(?:\[[^\]]*\])?", "", body)
    body = body.replace("{", "").replace("}", "").replace("$", "").replace("\\%", "%").replace("\\", "")
    body = re.sub(r"[ \t]+", " ", body)
    body = re.sub(r"\n\s*\n+", "\n\n", body)
    head = f"# {convert_title(title.group(1), macros)}\n\n" if title else ""
    return head + body.strip() + "\n"


def convert_title(title: str, macros: dict[str, str]) -> str:
    title = re.sub(r"\\(\w+)", lambda m: macros.get(m.group(1), ""), title)
    return re.sub(r"[{}\\]", "", title).strip()


def main() -> None:
    source, main_tex, out = sys.argv[1:4]
    with tarfile.open(source) as archive:
        members = {
            m.name.removeprefix("./"): archive.extractfile(m).read().decode("utf-8", "replace")  # type: ignore[union-attr]
            for m in archive.getmembers()
            if m.isfile() and m.name.endswith(".tex")
        }
    Path(out).write_text(convert(read_tex(members, main_tex)), encoding="utf-8")


if __name__ == "__main__":
    main()
