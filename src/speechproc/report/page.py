"""The reports' HTML page: one self-contained file, its style and script inline, that asks for nothing.

A Content-Security-Policy allows no request but the recording the call report plays (a relative path),
so a report opened offline, mailed, or served from a share behaves the same. The layout is one column
that narrows to a phone's width; tables scroll sideways on their own instead of the page.
"""
from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from speechproc.results.reading import is_number

# nothing may be fetched but the call's recording: no font, image, style sheet, script or connection
POLICY = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
          "media-src 'self' file: blob:; base-uri 'none'; form-action 'none'")

STYLE = """
:root{--ink:#1b1b1b;--muted:#555;--rule:#d8d8d8;--band:#f4f4f4;--mark:#fff1c2;--link:#0b5cad}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
color:var(--ink);background:#fff}
header,main{max-width:1100px;margin:0 auto;padding:0 16px}
header{padding-top:16px;border-bottom:1px solid var(--rule)}
h1{font-size:1.45em;margin:.2em 0;overflow-wrap:anywhere}
h2{font-size:1.2em;margin:1.6em 0 .5em;padding-bottom:.2em;border-bottom:1px solid var(--rule)}
h3{font-size:1.02em;margin:1.1em 0 .4em}
nav{display:flex;flex-wrap:wrap;gap:.3em 1em;padding:.5em 0;font-size:.92em}
a{color:var(--link)}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:.4em 1.2em;margin:.6em 0}
.facts div{min-width:0;overflow-wrap:anywhere}.facts b{display:block;font-size:.8em;color:var(--muted);font-weight:600}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.3em 0 1em;font-size:.93em}
th,td{text-align:left;padding:.25em .7em .25em 0;border-bottom:1px solid var(--rule);vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
svg.chart{width:100%;height:auto;display:block;max-width:1000px;min-width:560px}
.groups{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:0 2em}
.note{color:var(--muted);font-size:.9em}
.chips a,.chips span{display:inline-block;margin:0 .5em .2em 0}
audio{width:100%;max-width:640px;margin:.4em 0}
#transcript p{margin:.2em 0 .7em;padding-left:.7em;border-left:4px solid var(--rule)}
#transcript .who{font-weight:600;margin-right:.4em}
#transcript time{color:var(--muted);font-size:.85em;margin-right:.4em;font-variant-numeric:tabular-nums}
[data-s]{cursor:pointer}
.det{text-decoration:underline wavy #D55E00;text-underline-offset:3px}
:target,.now{background:var(--mark);outline:2px solid #E69F00}
.yes{font-weight:600}
@media (max-width:600px){body{font-size:14px}header,main{padding:0 10px}th,td{padding-right:.45em}}
"""

# a click on anything with data-s (a word, a match) plays the recording from that moment; the word
# being played is marked as it goes
SCRIPT = """
(function(){
var player=document.getElementById('player');if(!player)return;
var words=Array.prototype.slice.call(document.querySelectorAll('#transcript [data-s]'));
words.sort(function(a,b){return Number(a.getAttribute('data-s'))-Number(b.getAttribute('data-s'));});
var starts=words.map(function(w){return Number(w.getAttribute('data-s'));});var shown=null;
document.addEventListener('click',function(ev){var t=ev.target.closest('[data-s]');if(!t)return;
player.currentTime=Number(t.getAttribute('data-s'))/1000;var p=player.play();if(p&&p.catch){p.catch(function(){});}});
player.addEventListener('timeupdate',function(){var ms=player.currentTime*1000,lo=0,hi=starts.length-1,at=-1;
while(lo<=hi){var mid=(lo+hi)>>1;if(starts[mid]<=ms){at=mid;lo=mid+1;}else{hi=mid-1;}}
var w=at>=0?words[at]:null;if(w===shown)return;if(shown)shown.classList.remove('now');if(w)w.classList.add('now');shown=w;});
})();
"""


@dataclass(frozen=True)
class Section:
    """One part of a report: its anchor id, heading and HTML body."""

    id: str
    title: str
    body: str


Moment = tuple[float | None, str | None]  # a time in ms (None: none) and its label, or None


class Linker(Protocol):
    """What links moments of the call to the transcript (the call report's anchors)."""

    def link(self, s: float | None, text: str | None = None, speaker: str | None = None) -> str:
        """A link to the word said at `s` ms (labelled `text`, then the time; or the time alone)."""
        ...

    def links(self, moments: Sequence[Moment], speaker: str | None = None) -> str:
        """Links to the first moments, and how many more there are."""
        ...


def esc(value: Any) -> str:
    """Text for HTML content or a quoted attribute (text that is not valid UTF-8 is shown, not dropped)."""
    text = str(value)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return html.escape(text, quote=True)


def clock(ms: float | int | None) -> str:
    """Milliseconds as m:ss (h:mm:ss from an hour)."""
    if ms is None or not is_number(ms):
        return ""
    seconds = int(max(ms, 0) // 1000)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def number(value: Any) -> str:
    """A metric's value as people read it: integers as they are, others to four significant digits."""
    if not is_number(value):
        return esc(value)
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.4g}"


def table(head: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[int] = ()) -> str:
    """A table whose cells are HTML already; the columns in `numeric` are right-aligned."""
    def cells(tag: str, values: Sequence[str]) -> str:
        return "".join(f'<{tag} class="n">{v}</{tag}>' if i in numeric else f"<{tag}>{v}</{tag}>"
                       for i, v in enumerate(values))

    body = "".join(f"<tr>{cells('td', r)}</tr>" for r in rows)
    return f'<div class="scroll"><table><thead><tr>{cells("th", head)}</tr></thead><tbody>{body}</tbody></table></div>'


def plural(count: int, noun: str, many: str | None = None) -> str:
    """"1 silence", "3 silences"."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


def chart(svg: str) -> str:
    """A chart that scrolls sideways on a narrow screen instead of shrinking past reading."""
    return f'<div class="scroll">{svg}</div>'


def facts(pairs: Iterable[tuple[str, str]]) -> str:
    """Labelled values in a grid that wraps to the width (values are HTML already)."""
    return '<div class="facts">' + "".join(f"<div><b>{esc(k)}</b>{v}</div>" for k, v in pairs) + "</div>"


def page(title: str, subtitle: str, sections: Sequence[Section], script: bool = False) -> str:
    """The whole HTML document: a heading, a list of the sections, the sections."""
    nav = "".join(f'<a href="#{s.id}">{esc(s.title)}</a>' for s in sections)
    body = "".join(f'<section id="{s.id}"><h2>{esc(s.title)}</h2>{s.body}</section>' for s in sections)
    code = f"<script>{SCRIPT}</script>" if script else ""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            '<meta name="referrer" content="no-referrer">'
            f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>"
            f'<header><h1>{esc(title)}</h1><div class="note">{subtitle}</div><nav aria-label="sections">{nav}</nav>'
            f"</header><main>{body}</main>{code}</body></html>\n")
