"""Whether an action item the model lists is a promise of a step after the call (`promised`), judged on the
clause of its turn that the item's words come from, not on the whole turn: a small model also lists what
was done during the call, steps taken while the caller waits, offers on a condition, refusals, a caller's
threats to leave, and acknowledgements. The rules were written on the insights calls' dev, test and third
sets and are measured on a set of action items and a set of calls written apart from them
(docs/benchmarks.md, "Promised actions" and "The fourth set, held out")."""
from __future__ import annotations

import re

# What a promise for later says: a future ("will", "going to", "'ll", "once it arrives", "by tomorrow").
PROMISE = re.compile(r"\b(will|shall|going to|gonna|promise|\w+'ll|ill|youll|theyll|itll|should (get|receive|be with you"
                     r"|arrive|hear)|once|as soon as|when it (arrives|comes)|"
                     r"(by|on|until|within|next) (tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
                     r"next|the|a|two|three|four|five|ten|\d+))\b", re.IGNORECASE)
_FUTURE_VERB = re.compile(r"\b(will|shall|going to|gonna|\w+'ll|ill|youll|theyll|itll|to be (sent|posted|issued|called"
                          r"|booked)|once|as soon as|when it (arrives|comes)|should (get|receive|be with you|arrive|hear)"
                          r"|(is|are|'s|'re) (coming|visiting|arriving|collecting|picking))\b", re.IGNORECASE)

# A step offered for a day ("I can book a reader to come back on Tuesday").
_OFFER = re.compile(r"\b(i|we|they|he|she) (can|could)\b(?! ?not\b|n't)", re.IGNORECASE)
# An offer that waits on something going wrong again, or on the caller ringing back.
_CONDITIONAL = re.compile(r"^\s*(if|unless|should)\b[^.?!]*\b(again|happens|persists|cancel+ed|delayed|breaks|stops|fails"
                          r"|still|doesn't|does not|hasn't|haven't|comes back|you'd like|you want|you decide)\b"
                          r"|\b(ring|call|phone|contact) us (back )?(and|if|when|before)\b|\bgive us a (call|ring)\b"
                          r"|\byou (could|can|may) (claim|apply|ask|request)\b|\bcan be (claimed|requested|applied)\b",
                          re.IGNORECASE)
_REFUSAL = re.compile(r"\b(not able to|unable to|can't|cannot|can not|won't be able to|will not be able to|not in a position"
                      r" to|not going to( be able to)?|won't)\b[^.?!]{0,20}\b(promise|guarantee|offer|give|refund|do|help|change"
                      r"|repair|get|send|pay|book)\b", re.IGNORECASE)
# Done while the caller waits, not after the call.
_IN_THE_CALL = re.compile(r"\b(let me|i'?ll just|just a (moment|second|sec)|one (moment|second|sec)|bear with me|hold on"
                          r"|right now|now so (that )?i can|so i can (verify|check|confirm)|while you('re)? (on the line|wait)"
                          r"|i'?ll (take|have) a (quick )?look|i'?ll check (that|this)( for you)?( now)?$|put you on hold"
                          r"|transfer you|(one[- ]time|verification|security) (code|passcode|pin)|security questions|hang on"
                          r"|give me a (second|sec|moment|minute)|pull(ing)? up|now\W*$|now,? and you|grab|first,? if that's"
                          r")\b", re.IGNORECASE)
# A caller's plan against the company, or giving up: nothing the company or the caller will do for the request.
_CALLERS_THREAT = re.compile(r"\b(elsewhere|somewhere else|another (pharmacy|provider|bank|company|supplier|airline|gym"
                             r"|insurer|shop|store|network)|social media|twitter|facebook|(bad|a) review|ombudsman"
                             r"|regulator|solicitor|lawyer|trading standards|complain|live with it|lose it|never (use|call"
                             r"|buy|come)|report (you|this)|i'?ll wait|cancel( then| it all| everything| the contract)?\W*$"
                             r"|(one|1)[- ]star|my mp|chargeback|stop paying|chief executive"
                             r"|clos(e|ing) (all )?my (accounts?|policy|policies)"
                             r"|sort it (out )?myself|manage without|put up with|do without|don't worry about it|never mind"
                             r"|just leave it)\b", re.IGNORECASE)
_ALREADY_DONE = re.compile(r"^\s*((ok|okay|right|so|now|great|lovely|there we go|all right|alright|sure|done)\W+)?"
                           r"(i've|i have|we've|we have|that's been|it's been|it has been|this has been|i just|i've just"
                           r"|i already|we already|done|all done|that's done|i've now)\b", re.IGNORECASE)
_ACKNOWLEDGED = re.compile(r"^\s*(ok|okay|sure|right|yes|yeah|fine|great|perfect|alright|lovely|brilliant|thanks|thank you)"
                           r"\W*(will do|i will|i'll do that|no problem|will try)?\W*$", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9']+")


_CLAUSE_END = re.compile(r"(?<=[.?!;])\s+|,?\s+\b(?:but|however|although|though)\b,?\s+", re.IGNORECASE)
CLAUSE_SHARE = 0.6  # the share of a clause's words an item must hold to come from it too (beside the one it shares most with)


def quoted_clauses(text: str, turn: str) -> list[str]:
    """The clauses of `turn` (its sentences, cut again at "but", "however", "though") that the action item
    `text` comes from: the one holding most of its words, and any other whose words it mostly holds."""
    words = set(_WORD.findall(text.lower()))
    clauses = [part for part in _CLAUSE_END.split(turn.strip()) if part.strip()] or [turn]
    clause_words = [set(_WORD.findall(clause.lower())) for clause in clauses]
    shared = [len(words & own) for own in clause_words]
    best = max(range(len(clauses)), key=lambda k: shared[k])
    return [clause for k, clause in enumerate(clauses)
            if k == best or shared[k] >= CLAUSE_SHARE * max(1, len(clause_words[k]))]


def promised(text: str, turn: str, speaker: str) -> bool:
    """Whether the action item `text`, which `speaker` said in `turn`, is a promise of a step after the call:
    a clause it comes from speaks of later, and is no question, acknowledgement, refusal, offer on a
    condition, step taken during the call, thing already done or (for the caller) threat to leave or giving
    up."""
    if _ACKNOWLEDGED.match(text) or len(_WORD.findall(text.lower())) < 2:
        return False
    return any(_promises(clause, speaker) for clause in quoted_clauses(text, turn))


_QUESTION = re.compile(r"^\s*(are you|shall i|shall we|do i|do you|will you|can you|could you|would you|should i|is it|is"
                       r" there|did you|have you)\b", re.IGNORECASE)


def _promises(sentence: str, speaker: str) -> bool:
    if not PROMISE.search(sentence) or sentence.rstrip().endswith("?") or _QUESTION.match(sentence):
        return False
    if _ACKNOWLEDGED.match(sentence):
        return False
    if not _FUTURE_VERB.search(sentence) and not _OFFER.search(sentence):
        return False  # a day or a date alone: what someone did on it, or how things stand now
    if _CONDITIONAL.search(sentence) or _REFUSAL.search(sentence) or _IN_THE_CALL.search(sentence):
        return False
    if _ALREADY_DONE.match(sentence) and not _FUTURE_VERB.search(sentence):
        return False
    return not (speaker.lower() == "caller" and _CALLERS_THREAT.search(sentence))
