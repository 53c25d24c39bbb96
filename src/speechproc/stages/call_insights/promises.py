"""Promised actions found in the speakers' own words: the clauses of the call's turns that promise a step after
the call (`promises_in`, `spoken_promises`). An action item is the clause as said, trimmed of its opening
"okay", "so" or "and", with who said it and its turn; no model paraphrases it.

A clause is a sentence of a turn, cut again at "but", "however", "though", and at ", and they ..." after a
step taken "now". It promises a step after the call when:
- for the agent, or a speaker of unknown role: it speaks of later with a future ("will", "'ll", "going to",
  "is coming", "should reach / arrive / be back", "expect a call"), or offers a step for a day ("I can book
  a reader for Tuesday"), or arranges one for a later day ("I've booked the nurse check for tomorrow", "a note
  for my team leader to give you a ring on Thursday"); or it asks the caller to send, bring, sign, text or
  keep something ("could you e-mail us a photo of the label", "if you could snap a photo of the meter");
- for the caller: "I'll" (or "I'm going to", "I can") send, bring, post, scan, ring back, pop in or come in,
  or get someone to send or ring ("I'll ring the surgery and get them to send you the fit note"), or "I'll"
  anything for a day ("I'll clear the cupboard on Thursday", "over the weekend", "after work"; not "I'll do that
  tonight", which agrees to the agent's request), a step given to someone of the caller's ("I'll get Darren to
  have a look", "I'll let Ana know", "i'll ring my gran and tell her"), or something left ready for a visit or a
  collection ("I'll leave the side gate open", "I'll leave them on the desk");
and it is none of: a question, an offer put as one ("would you like me to send it out?"), an acknowledgement ("will
do"), fewer than five words, a lead-in ("so here's what I'll do"), a thought told of the past ("thinking I'll get used
to them", "I'll tell you that for nothing"), a refusal ("there's no way we can ..."), an offer on a condition ("if it
happens again ..."; "if you could ..." is a request), a step taken while the caller waits or a detail asked for now
("may I have the PNR number"), a thing already done or its consequence ("I've switched it off, so nothing will be
charged"), what someone will need or be able to do ("I'll need to verify you"), how things will be or look ("that'll
be everything", "it'll show as pending", "it'll show in five working days"), a future denied ("the bank will never ask
for your PIN", "restarting isn't going to help"), how things work or recur ("that will tell us more", "you'll find it
in the app", "a text every three months"), a step narrated as it is taken ("I'll walk you through it", "I'll explain
both", "for a second", "right away", "what I'll do now is", "I'll take the card details", "I'll put that down as your
availability", "I'll put it down as a work bike"), plain speaking ("I'll be straight with you", "I want to be upfront
with you"), a future nobody will take ("nobody from here will be calling you"), small talk ("at least you'll have the
mountains", "we'll speak soon", "I hope you'll ...", "where's he going to university": "going to" a place or "was
going to" is no future), or (for anyone but the agent) a threat to leave, complain or review, speaking up on the line
("I'll speak up"), or how someone will feel ("he'll be chuffed", "she'll be in good hands").

A question tagged on to a step ("..., is that alright?") is no question, and the item drops it; "let me
check ..., and I'll get back to you" is looked into after the call; the reason given for a first-person step
("because they'll want it", "i'm in there every day"), how someone will feel about it ("he'll be thrilled") or what
it leaves ready (", and it'll be ready by seven") does not undo it; nor does "we've just" in what the step names
("to the address we've just confirmed"), nor a "so" after a step named ("That's booked for Thursday, and he'll
phone you when he's leaving, so you'll know"). "I'll just" is a step in the call unless it waits for something
("I'll just email you the schedule once it's through").

A recogniser's "ill" is "I'll", unless it follows "was", "very", "feel" and the like.

The rules were written on the insights calls' dev, test and third to tenth sets (read before)
and measured on sets written apart from them (docs/benchmarks.md, "Promised actions in the speakers'
words")."""
from __future__ import annotations

import re
from collections.abc import Sequence

from speechproc.conversation import PromisedAction
from speechproc.stages.call_insights.grounding import Line

# A recogniser's "ill" (I'll), but not after "was", "very" or "feel": someone who is unwell.
_ILL = ("(?<!was )(?<!is )(?<!been )(?<!be )(?<!feel )(?<!felt )(?<!fell )(?<!very )(?<!really )(?<!quite )"
        "(?<!got )(?<!are )(?<!were )(?<!am )(?<!'s )(?<!'m )(?<!'re )ill")
# "Going to" a step: not "was going to", nor "going to the shop" or "to university".
_GOING_TO = (r"(?<!was )(?<!were )(?:going to|gonna)(?! (?:the|a|an|my|your|his|her|our|their|this|that|university"
             r"|school|college|work|hospital|bed|church)\b)")
# A hedge on "should" ("the courier should hopefully be with you").
_HEDGE = r"(hopefully |probably |definitely |certainly )?"
# What a promise for later says: a future ("will", "going to", "'ll", "once it arrives", "by tomorrow").
PROMISE = re.compile(r"\b(will|shall|" + _GOING_TO + r"|promise|\w+'ll|" + _ILL + r"|youll|theyll|itll"
                     r"|should " + _HEDGE + r"(get|receive|be with you"
                     r"|arrive|hear|reach|be back|show|land|come|go through|clear|be (credited|refunded|sent|posted"
                     r"|delivered|with you))|expect (a|an|the|our|your|it|them)|once|as soon as|when it (arrives|comes)|"
                     r"(by|on|until|within|next) (tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
                     r"next|the|a|two|three|four|five|ten|\d+))\b", re.IGNORECASE)
# A future that is a step, not just "once" or a day named.
_FUTURE = re.compile(r"\b(will|shall|" + _GOING_TO + r"|\w+'ll|" + _ILL + r"|youll|theyll|itll"
                     r"|should " + _HEDGE + r"(get|receive|be with you|arrive|hear|reach|be back"
                     r"|show|land|come|go through|clear"
                     r"|be (credited|refunded|sent|posted|delivered|with you))|expect (a|an|the|our|your|it|them)\b"
                     r"|(is|are|'s|'re) (coming|visiting|arriving|collecting|picking))\b", re.IGNORECASE)
# A step offered for a day ("I can book a reader to come back on Tuesday").
_OFFER = re.compile(r"\b(i|we|they|he|she) (can|could)\b(?! ?not\b|n't)", re.IGNORECASE)
_DAY = re.compile(r"\b(today|tonight|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|next week"
                  r"|this (week|weekend|afternoon|evening|morning)|(at|over) the weekend|in the morning|first thing|later today"
                  r"|within|by (the )?(end|morning|afternoon)|(at|by) the end of (the|this|next) (week|month)|next month"
                  r"|home time|lunchtime|after (this|the call|work|school|my \w+))\b", re.IGNORECASE)
# The caller asked to send, bring or keep something after the call.
_REQUEST = re.compile(r"(^\W*(just |please |then )*|\b(please|could you|can you|if you could|would you)\b[^.?!]{0,20}?)"
                      r"\b(send|e-?mail|post|bring|upload|forward|keep|leave|drop|return|fill|sign|pop)\b"
                      r"(?! (it|them|that) now)"
                      r"|\b(please|could you|can you|if you could|would you)\b[^.?!]{0,20}?\b(text|snap|scan)\b",
                      re.IGNORECASE)
# The caller's own step for the request: something sent, brought or rung about (a verb: not "the post", "my email").
_CALLERS_STEP = re.compile(r"\b(i'?ll|i will|i'm going to|i am going to|i'm gonna|i can)\b[^.?!]{0,45}?"
                           r"(?<!\bthe )(?<!\ba )(?<!\bmy )(?<!\byour )(?<!\bour )\b(send|e-?mail(ed)?"
                           r"|post|bring|upload|forward|drop|return|fill|sign|ring (you|back)|call (you|back)|pop in(to)?"
                           r"|come in|scan(ned)?|(get|have) (them|him|her|it) to (send|e-?mail|post|ring|call|phone))\b",
                           re.IGNORECASE)
# How someone will feel, and reassurance: no step ("he'll be chuffed", "she'll be in good hands").
_FEELING = r"(so |really |very )?(chuffed|pleased|delighted|thrilled|relieved|over the moon|gutted|upset|annoyed|in good hands)"
# What will be needed, possible or so, rather than done; an offer on a condition; how things stand or will look;
# the consequence of a step taken now.
_NOT_A_STEP = re.compile(r"\b(\w+'ll|will|going to|gonna) (need|have to|want|be (responsible|able|happy|glad|fine|perfect"
                         r"|it|me|right|careful|honest|straight|frank|upfront|blunt|quick|brief))\b"
                         r"|\b(will|'ll|shall) (not|never)\b|\bwon't\b"
                         r"|^\W*((and|so|but|well|no)\W+)?(i|we) (can't|cannot|can not|couldn't|don't|won't)\b"
                         r"|\b(that|it|this)('ll| will) (make|tell|give|do|work|cost|take)\b"
                         r"|\b(?<!\bi)(?<!\bwe)(will|'ll) (still |also )?(work|apply)\b|\b(will|'ll) (still |also )?find\b"
                         r"|^\W*at least\b|\benjoy (the rest of )?your\b"
                         r"|\bkeep (warm|safe|well)\b|\b(isn't|aren't|not) (going to|gonna)\b"
                         r"|\b(every|each) (\w+ )?(day|week|month|months|year|years|time)\b"
                         r"|\b(will|'ll) have (been|had|got|done|gone|worn|\w+ed)\b|\b(that|it|this|there)('ll| will) be\b"
                         r"|^\W*((and|but|so|then|or)\W+)?(if(?! you (could|would|don't mind)\b)|unless|when you|once you)\b"
                         r"|^\W*(nothing|no more|no one|none|neither)\b|\bno way\b|\b(you'd|you would|it would|that would)\b"
                         # plain speaking, and a future nobody will take: "I'll be straight with you", "nobody's going to"
                         r"|\bto be (honest|straight|frank|upfront|blunt) with you\b"
                         r"|\b(nobody|no one|no-one)('s (going to|gonna)|\b[^.?!]{0,40}?\b(will|'ll|going to|gonna))\b"
                         r"|\bi can (see|hear|tell|understand|confirm|only)\b"
                         r"|\b(will|'ll) (still |just )?(show (up )?as|stay|remain|look like|say|see you)\b"
                         r"|'ll have (had|been|got|received|seen)\b|\bsee what (i|we) can do\b|\bnow,? so\b"
                         # how a payment will look, and small talk: "it'll show in five working days", "speak soon"
                         r"|\b(it|that|this|they)('ll| will| should) (show|land|appear|reflect)\b"
                         r"|\bi hope you('ll| will)\b|\b(speak|talk) (to you )?soon\b"
                         r"|\b(\w+'ll|will) be " + _FEELING + r"\b"
                         # a lead-in with nothing of the step in it, and a thought told of the past: "here's what I'll do",
                         # "I've been trying all week thinking I'll get used to them", "I'll tell you that for nothing"
                         r"|^\W*((so|okay|ok|right|and|well|now)\W+)*here's what (i|we)('ll| will|'re going to) do\W*$"
                         r"|\b(thinking|thought) i('ll| will)\b"
                         r"|\bi('ll| will) tell you (that|this) (for nothing|much)\b", re.IGNORECASE)
# The consequence of a step taken now ("I've switched it off, so nothing will be charged"), unless a step for later is
# named before it ("That's booked for Thursday, and he'll phone you when he's leaving, so you'll know").
_CONSEQUENCE = re.compile(r"^\W*((ok|okay|right|so)\W+)?(i've|i have|we've|we have|that's|it's)\b[^.?!]*?,\s*so\b",
                          re.IGNORECASE)
_DONE_NOW = re.compile(r"\b(i've|i have|we've|we have) (already|just)\b|\bto (verify|confirm) (you|it's you|your identity)\b",
                       re.IGNORECASE)
_CONDITIONAL = re.compile(r"^\s*(if|unless|should)\b[^.?!]*\b(again|happens|persists|cancel+ed|delayed|breaks|stops|fails"
                          r"|still|doesn't|does not|hasn't|haven't|comes back|you'd like|you want|you decide)\b"
                          r"|\b(if|unless)\b[^.?!]*\b(again|happens|persists|cancel+ed|delayed|breaks|stops|fails|detects?)\b"
                          r"|\b(ring|call|phone|contact) us (back )?(and|if|when|before|once)\b|\bgive us a (call|ring)\b"
                          r"|\byou (could|can|may) (claim|apply|ask|request)\b|\bcan be (claimed|requested|applied)\b",
                          re.IGNORECASE)
_REFUSAL = re.compile(r"\b(not able to|unable to|can't|cannot|can not|won't be able to|will not be able to|not in a position"
                      r" to|not going to( be able to)?|won't)\b[^.?!]{0,20}\b(promise|guarantee|offer|give|refund|do|help|change"
                      r"|repair|get|send|pay|book)\b", re.IGNORECASE)
# Done while the caller waits, not after the call.
_IN_THE_CALL = re.compile(r"\b(let me|i'?ll just|just a (moment|second|sec)|one (moment|second|sec)|bear with me|(?<!a )hold on"
                          r"|right now|now so (that )?i can|so i can (verify|check|confirm)|while you('re)? (on the line|wait)"
                          r"|i'?ll (take|have) a (quick )?look|i'?ll check (that|this)( for you)?( now)?$|put you on hold"
                          r"|transfer you|(put|pass) you (through|over|across|to)\b"
                          r"|(one[- ]time|verification|security) (code|passcode|pin)|security questions|hang on"
                          r"|give me a (second|sec|moment|minute)|pull(ing)? up|now\W*$|now,? and you|grab|first,? if that's"
                          r"|for a (second|sec|moment|minute)|walk you through|as we go|explain|take down|read (that|it|them)"
                          r" back|note (all )?(of )?that|as (it|they) (is|are)|where it is|as is|stop keeping you|help you with"
                          r" (that|this)|on this call|right away"
                          # narrated as it is done: "what I'll do now is ...", "I'll take the card details"
                          r"|(i'?ll|i will|i'm going to) do now|now for you|while i'?m here|come (back )?to that in a"
                          r"|speak up|(talk|speak) (a bit |a little )?(louder|slower|more slowly|more clearly|closer)"
                          r"|closer to the (mic|microphone|phone)"
                          r"|while we'?re on the (phone|line)|i'?ll (just )?(take|process) (the |your |a )?(card|payment"
                          r"|details|deposit)|i'?ll (just )?put (it|you|that|this) down as (a|an)\b"
                          r"|i'?ll (just )?put (that|it|this|after|down)\b[^.?!]{0,30}\b(on|in|as) (the|your)"
                          r" (note|notes|account|record|system|file|availability)"
                          # asking for a detail now ("may I have the PNR number please")
                          r"|may i (have|know|take|get)|c(an|ould) i (take|have|get)|c(an|ould) you (give|tell) me (your|the)"
                          r")\b", re.IGNORECASE)
# A plan against the company, or giving up: nothing the company or the caller will do for the request.
_THREAT = re.compile(r"\b(elsewhere|somewhere else|another (pharmacy|provider|bank|company|supplier|airline|gym"
                     r"|insurer|shop|store|network)|social media|twitter|facebook|review sites?"
                     r"|(leave|write|post|put)\b[^.?!]{0,20}\breviews?"
                     r"|(bad|terrible|awful|negative|one[- ]star|1[- ]star) reviews?|post about (it|this|you)|ombudsman"
                     r"|regulator|solicitor|lawyer|trading standards|complain|live with it|lose it|never (use|call"
                     r"|buy|come)|report (you|this)|i'?ll wait|cancel( then| it all| everything| the contract)?\W*$"
                     r"|(one|1)[- ]star|my mp|chargeback|dispute|stop paying|chief executive"
                     r"|clos(e|ing) (all )?my (accounts?|policy|policies)"
                     r"|sort it (out )?myself|manage without|put up with|do without|don't worry about it|never mind"
                     r"|just leave it)\b", re.IGNORECASE)
_ALREADY_DONE = re.compile(r"^\s*((ok|okay|right|so|now|great|lovely|there we go|all right|alright|sure|done)\W+)?"
                           r"(i've|i have|we've|we have|that's been|it's been|it has been|this has been|i just|i've just"
                           r"|i already|we already|done|all done|that's done|i've now)\b", re.IGNORECASE)
# An offer put as a question ("Would you like me to send the missing food out?"): the caller has not been asked to do anything.
_OFFERED = re.compile(r"\b(would|do) you (like|prefer|want|mind)\b|\bshall (i|we)\b", re.IGNORECASE)
_QUESTION = re.compile(r"^\s*(are you|shall i|shall we|do i|do you|will you|can you|could you|would you|should i|is it|is"
                       r" there|did you|have you)\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r"(?<=[.?!;])\s+|,?\s+\b(?:but|however|although|though)\b,?\s+"
                         r"|\s+[\u2014\u2013]\s+(?=(?:is|are|do|does|can|could|would|shall|should)\b)"
                         r"|(?<=\bnow),\s+and\s+(?=(?:they|we|i|you|he|she|our|the|someone|somebody)\b)", re.IGNORECASE)
# What opens a clause without saying anything of the step: dropped from the item's text.
_OPENING = re.compile(r"^(?:(?:ok|okay|right|so|and|now|great|lovely|perfect|alright|all right|sure|well|um|uh|then)\W+)+",
                      re.IGNORECASE)
# A step arranged in the call for a later day: a booking, or someone asked to ring the caller.
_ARRANGED = re.compile(r"\b(i've|i have|we've|we have|i'm|i am|we're|we are)\s+(also\s+)?(booked|booking|arranged|arranging"
                       r"|scheduled|scheduling|put you down|pencilled)\b|\bto (give you a (ring|call|bell)|ring you|call you"
                       r"|phone you|contact you|get back to you)\b", re.IGNORECASE)
# An attempt made, or why someone rings now: not a step arranged for later.
_NOT_ARRANGED = re.compile(r"\b(tried|trying|try|wanted|asked|long|already|just)\b", re.IGNORECASE)
# The caller's own step for a day ("I'll clear the cupboard on Thursday").
# ("I'll do that tonight" agrees to what the agent asked: that request is the item.)
_CALLERS_FUTURE = re.compile(r"\b(i'll|i will|" + _ILL + r")\b(?! (do|sort|manage) (that|it|so|this)\b)(?! (be|keep)\b)",
                             re.IGNORECASE)
# A question tagged on to a step, asking only whether it suits: "I'll drop it in on Saturday, is that alright?"
# (from the first of a run of commas and spaces only: tried from each, a long run costs its length squared)
_TAG_QUESTION = re.compile(r"(?<![,\s])[,\s]+(is that|would that be|does that sound|if that's)\s+(alright|all right|okay|ok|fine"
                           r"|good|ok with you|okay with you)\s*\?\s*$", re.IGNORECASE)
# The caller's step given to someone of theirs ("I'll get Darren to have a look", "I'll ask the vet to scan him",
# "I'll have our finance director read it", "I'll let Ana know"), or a thing left ready for the visit ("I'll leave the
# side gate open", "I'll make sure the side gate's unlocked").
_CALLERS_OWN = re.compile(r"\b(i'll|i will|i shall|i'm going to)\s+(also\s+)?(get|ask|tell)\s+(?!(you|it|them|this|that"
                          r"|round|back|there|on|in|out|off|up|straight)\b)((my|our|the|his|her|their)\s+)?([\w']+\s+){0,2}?"
                          r"[\w']+\s+to\s+(?!(do|sort|manage) (that|it|so|this)\b)(?!(have to|be|know)\b)[\w']+"
                          r"|\b(i'll|i will|i shall)\s+(also\s+)?have\s+(my|our)\s+([\w']+\s+)?[\w']+\s+(read|check|ring|call"
                          r"|phone|e-?mail|send|sign|fill|look|measure|drop|bring|collect|pick|post|fix|text|contact|write)\b"
                          r"|\b(i'll|i will|i shall)\s+leave\s+(the|a|my)\s+([\w']+\s+){0,2}?(open|unlocked|out|with|under"
                          r"|at|by)\b|\b(i'll|i will|i shall)\s+make sure\s+(the|my)\s+[\w' ]{1,30}?(unlocked|open|clear|free)\b"
                          r"|\b(i'll|i will|i shall)\s+(also\s+)?let\s+(?!(you|me|it|them|him|her|us)\b)((my|our|the)\s+)?"
                          r"[\w']+\s+know\b"
                          r"|\b(i'll|i will|i shall|i'm going to)\s+(also\s+)?(ring|call|phone|text|message|e-?mail|ask|speak to"
                          r"|have a word with)\s+(my|our)\s+[\w']+"
                          r"|\b(i'll|i will|i shall)\s+leave\s+(them|it)\s+(on|in|at|by|with|outside|behind)\b", re.IGNORECASE)
# An answer brought back after the call ("..., and I'll get back to you"), not in a moment.
_GETS_BACK = re.compile(r"\b(get|come|ring|call|phone) (back to you|you back)\b(?! (in a|shortly|now|straight|right))",
                        re.IGNORECASE)
_LET_ME = re.compile(r"\blet me\b", re.IGNORECASE)
# A step for when something is ready ("I'll just email you the schedule once it's through"): "just" is no step in the call.
_ONCE_READY = re.compile(r"\b(once|as soon as|when) (it|they|that|this|he|she)('s| is| are|'re| has| have) ", re.IGNORECASE)
_JUST = re.compile(r"\b(i'll|ill|i will) just\b", re.IGNORECASE)
# The reason given for a step ("..., because they'll want it filled in either way"): what it says of the future does
# not undo the step.
_REASON_GIVEN = re.compile(r",?\s+\b(because|since|'cause|cos)\b.*$|,\s+and (it|that|they)('ll| will) be\b.*$"
                           r"|,\s+(i'm|it's|he's|she's|they're|there's)\b.*$"
                           r"|[,\u2014\u2013]?\s+(he|she|they|you)('ll| will) be " + _FEELING + r"\b.*$", re.IGNORECASE)
_FIRST_PERSON_FUTURE = re.compile(r"\b(i'll|i will|i shall|we'll|we will|i'm going to|we're going to)\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9']+")
MIN_WORDS = 5


def clauses(turn: str) -> list[str]:
    """The clauses of a turn: its sentences, cut again at "but", "however", "though", and at ", and they ..."
    after a step taken "now"."""
    return [part.strip() for part in _CLAUSE_END.split(turn.strip()) if part and part.strip()]


def promises_in(turn: str, speaker: str) -> list[str]:
    """The clauses of `turn`, said by `speaker`, that promise a step after the call, each trimmed of its
    opening words ("okay", "so", "and")."""
    return [_trimmed(clause) for clause in clauses(turn) if is_promise(clause, speaker)]


def spoken_promises(lines: Sequence[Line]) -> list[PromisedAction]:
    """Every promise of a step after the call in the call's lines (the words as the model would read them: a
    spoken instruction's are not there), in the order said, each with its speaker and its turn's times; a
    clause said again word for word is listed once."""
    items: list[PromisedAction] = []
    seen: set[tuple[str, str]] = set()
    for line in lines:
        for text in promises_in(line.text, line.speaker):
            key = (line.speaker, " ".join(_WORD.findall(text.lower())))
            if key not in seen:
                seen.add(key)
                items.append(PromisedAction(text, line.speaker, line.s, line.e))
    return items


def is_promise(clause: str, speaker: str) -> bool:
    """Whether one clause said by `speaker` ("Agent", "Caller" or a speaker of unknown role) promises a step
    after the call (see the module's rules)."""
    role = speaker.strip().lower()
    clause = _TAG_QUESTION.sub("", clause)
    if (len(_WORD.findall(clause.lower())) < MIN_WORDS or _NOT_A_STEP.search(_without_reason(clause))
            or _done_now(clause) or _consequence(clause)):
        return False
    if role == "caller":
        if _THREAT.search(clause):
            return False
        if ((_CALLERS_OWN.search(clause) or (_CALLERS_FUTURE.search(clause) and _DAY.search(clause)))
                and not _asks_or_holds_back(clause)):
            return True
        return bool(_CALLERS_STEP.search(clause)) and _speaks_of_later(clause)
    if _REQUEST.search(clause) and not _IN_THE_CALL.search(clause) and not _OFFERED.search(clause):
        return True
    if (_ARRANGED.search(clause) and _DAY.search(clause) and not _NOT_ARRANGED.search(clause)
            and not _asks_or_holds_back(clause)):
        return True
    if not (_FUTURE.search(clause) or (_OFFER.search(clause) and _DAY.search(clause))):
        return False
    return _speaks_of_later(clause) and (role == "agent" or not _THREAT.search(clause))


def _without_reason(clause: str) -> str:
    """A first-person step without the reason given for it; any other clause whole."""
    step = _REASON_GIVEN.sub("", clause)
    return step if _FIRST_PERSON_FUTURE.search(step) else clause


def _asks_or_holds_back(clause: str) -> bool:
    """A question, or a step on a condition, refused, or taken while the caller waits."""
    return (clause.rstrip().endswith("?") or bool(_QUESTION.match(clause)) or bool(_CONDITIONAL.search(clause))
            or bool(_REFUSAL.search(clause)) or _in_the_call(clause))


def _consequence(clause: str) -> bool:
    """What follows from a thing done now, with no step for later named before the "so"."""
    found = _CONSEQUENCE.match(clause)
    return found is not None and not _FUTURE.search(found.group(0))


def _done_now(clause: str) -> bool:
    """A thing just done or a check of who the caller is; not "we've just" in what a step after the call names
    ("I'll send it to the address we've just confirmed")."""
    done = _DONE_NOW.search(clause)
    if done is None:
        return False
    future = _FIRST_PERSON_FUTURE.search(clause)
    return future is None or future.start() > done.start() or done.group(0).lower().startswith("to ")


def _in_the_call(clause: str) -> bool:
    """A step taken while the caller waits; not "let me check with the office and I'll get back to you", which
    looks into it after the call."""
    if _GETS_BACK.search(clause):
        clause = _LET_ME.sub("", clause)
    if _ONCE_READY.search(clause):
        clause = _JUST.sub(r"\1", clause)
    return bool(_IN_THE_CALL.search(clause))


def _speaks_of_later(clause: str) -> bool:
    """A future and no question, acknowledgement, condition, refusal, step in the call or thing already done."""
    if not PROMISE.search(clause) or _asks_or_holds_back(clause):
        return False
    return not (_ALREADY_DONE.match(clause) and not _FUTURE.search(clause))


def _trimmed(clause: str) -> str:
    text = _OPENING.sub("", _TAG_QUESTION.sub(".", clause)).strip()
    return text[:1].upper() + text[1:] if text else clause
