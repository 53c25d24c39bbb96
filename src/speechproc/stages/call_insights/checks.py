"""The four common quality checks of a contact centre, answered from the speaker's own words.

A greeting, an identity check, an apology and an offer of further help are each said in a few known forms,
and where in the call they are said is known too (a greeting opens the call, further help is offered as it
closes). A small language model judging them confuses a company name with a greeting, a look-up of an order
with an identity check and "Anything else wrong with it?" with an offer of help; these rules do not, and
they answer the same on every machine and every model:

- **greeting**: the speaker's first turn holds a greeting ("hello", "good morning", "thanks for calling",
  "welcome to"), not only a company's name or "go ahead";
- **verification**: the speaker asks for a security detail (a date of birth, a PIN or passcode, a memorable
  word, the last digits of a card, a one-time code), sends a code to read back, asks for the postcode or
  address held on the account (or asks for it to find the caller's own record: "so I know I'm talking to the
  right person", "let me find you"), or says it checks who is calling ("I need to verify you first") and
  asks something; asking for an order, booking or account number alone is not one, nor is an address taken
  for a booking, a delivery or a quote;
- **apology**: a sentence of the speaker says sorry or apologises, other than "sorry?" asking to hear again;
- **furtherHelp**: one of the speaker's last FURTHER_HELP_TURNS turns (ten: small talk, advice or a caller's
  afterthought may follow the offer) asks whether there is anything else to help with ("Anything else
  today?", "Is there something more I can do for you?", "Will that be all?", "Does that cover everything you
  needed?", "Was there anything else you were after while I've got you?", "Are you right for everything
  else?", "Can I assist with any other matter?", "Is there more I can look into for you?").

`check_of` says which check a question asks for: the one its `check` names, or, when `auto`, the one its
wording asks for (a question naming no known check, or more than one, or only sharing a word with one, or
asking whether something was not done, is judged by the model). Whose turns a check reads is
`quality.subject`'s: the agent's, unless the question asks what another speaker did.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from speechproc.stages.call_insights.grounding import Line
from speechproc.stages.options import QUALITY_CHECKS, InsightQuestion

FURTHER_HELP_TURNS = 10  # further help is offered in one of the speaker's last turns (small talk may follow it)
SHORT_OFFER_WORDS = 4  # "Anything else?", "Anything further today?": an offer that needs no word of help
AUTO = "auto"  # the question's wording says which check answers it, if any


def sentences(text: str) -> list[str]:
    """A turn's sentences (a turn without punctuation is one)."""
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


_FILLER = re.compile(r"^(?:(?:okay|ok|right|alright|so|and|now|well|great|lovely|perfect|brilliant|then)\b\W*)+", re.I)
_ASKS = re.compile(r"^(?:is|are|was|were|do|does|did|can|could|may|might|will|would|shall|should|have|has|anything|"
                   r"something|any|what|how|who|where|when)\b", re.I)


def is_question(sentence: str) -> bool:
    """Whether a sentence asks: it ends with "?" or (unpunctuated) opens, after a filler word, as a question."""
    return sentence.rstrip().endswith("?") or bool(_ASKS.match(_FILLER.sub("", sentence.strip())))


# --------------------------------------------------------------------------------------- greeting

_GREETING = re.compile(r"\b(?:hello|hi|hiya|hey|howdy|howya|g'day|greetings|good (?:morning|afternoon|evening|day)|welcome to|"
                       r"thanks?(?: you)? (?:so much |very much )?for (?:calling|ringing|phoning|holding|contacting|"
                       r"getting in touch|your call|waiting))\b|(?:^|[.!?,]\s*)(?:morning|afternoon|evening)\b", re.I)


def greeting(turns: list[Line]) -> Line | None:
    """The speaker's first turn, when it greets."""
    return turns[0] if turns and _GREETING.search(turns[0].text) else None


# --------------------------------------------------------------------------------------- verification

_SECURITY_DETAIL = re.compile(
    r"\b(?:date of birth|birth ?date|(?:your|his|her|their) birthday|dob|d o b|(?<!-)pin|passcode|pass code|passwords?|"
    r"passphrase|"
    r"pass phrase|security (?:questions?|words?|answers?|code|number|details?|check|phrase)|through security|"
    r"memorable (?:word|phrase|answer|date|information|name)|maiden name|"
    r"(?:last|final) (?:four|4|three|3|two|2|five|5|six|6)(?: digits| numbers| (?:of|on) (?:the|your) card)|"
    r"(?:last|final) digits|"
    r"one[- ]time (?:code|passcode|pin|password)|verification code|security code|"
    r"(?:four|five|six|4|5|6)[- ]digit code|social security|national insurance)\b", re.I)
_CODE_SENT = re.compile(r"\b(?:sent|send|sending|texted|text|texting|emailed|email|emailing)\b[^.?!]{0,40}"
                        r"\b(?:code|one[- ]time password|otp)\b", re.I)
_ACCOUNT_DETAIL = re.compile(r"\b(?:post ?code|zip ?code|zip|eircode|first line of (?:your|the) address)\b", re.I)
_ON_THE_ACCOUNT = re.compile(r"\b(?:on (?:the|your) (?:account|file|policy|record|booking|job|order|agreement|system)|"
                             r"held on|(?:we|i) (?:hold|have) (?:for you|on file)|(?:we|i)(?:'ve| have)? got on file|"
                             r"registered|security|verif\w+|identity)\b", re.I)
# Why an account detail is asked for, said anywhere in the turn: to find the caller's record and know it is theirs
# ("let me find you", "so I know I'm talking to the right person"), not to book, deliver or quote.
_WHOSE_RECORD = re.compile(r"\b(?:(?:talking|speaking) to the right person|(?:i've|i have|i've got|i've got the|got) the right "
                           r"(?:one|person|account|record|customer|\w+(?=\W*(?:\?|$)))|(?:check|make sure|confirm) "
                           r"(?:that )?(?:it's|its|it is) (?:really )?you|let me find you|"
                           r"(?:pull|pulling|bring|bringing|get|getting) (?:up )?your (?:account|record|details|file)(?: up)?|"
                           r"before (?:i|we) go (?:any further|into (?:it|the account|your account|the details)))", re.I)
# The turn says it checks who is calling, and asks for something: "I'm gonna need to verify you first. What's the email
# address on the account?"
_CHECKS_THE_CALLER = re.compile(r"\b(?:verify (?:you|yourself|your identity|the account|your account|who)|"
                                r"for verification|security (?:check|purposes))\b", re.I)
_YOURS = re.compile(r"\byour\b", re.I)
_DIGITS_CODE = re.compile(r"\bdigit code\b", re.I)
_READ_BACK = re.compile(r"\bread (?:it|that|them|the code|me the code|me)\b|\b(?:tell|give) me (?:the|that) code\b|"
                        r"\bwhat(?:'s| is) the code\b|\bconfirm (?:the|that) code\b", re.I)
# A detail spoken of, not asked for: changing or keeping a PIN safe is no check of who is calling.
_ABOUT_THE_DETAIL = re.compile(r"\b(?:change|reset|update|share|forgot|forget|forgotten|set up|new|choose|create)\b"
                               r"[^.?!]{0,15}\b(?:pin|password|passcode|passphrase)\b", re.I)
_REQUEST = re.compile(r"\?|\b(?:can|could|may) (?:i|you|we)\b|\bplease\b|\b(?:what's|what is|tell me|give me|read|"
                      r"confirm|verify|need)\b|^\W*(?:and|also|plus|then) (?:the|your)\b", re.I)


def verification(turns: list[Line]) -> Line | None:
    """The speaker's first turn that asks for a security detail, sends a code to read back, asks for the
    postcode or address held on the account or to find the caller's record, or says it checks the caller and
    asks something."""
    for turn in turns:
        # a code sent to be read back (asked anywhere in the turn), not one to show at a counter
        if _CODE_SENT.search(turn.text) and (_READ_BACK.search(turn.text) or _ON_THE_ACCOUNT.search(turn.text)
                                              or _DIGITS_CODE.search(turn.text)):
            return turn
        whose_record = bool(_WHOSE_RECORD.search(turn.text))
        for sentence in sentences(turn.text):
            if _REQUEST.search(sentence) and (
                    _SECURITY_DETAIL.search(sentence) and not _ABOUT_THE_DETAIL.search(sentence)
                    or _ACCOUNT_DETAIL.search(sentence) and (_ON_THE_ACCOUNT.search(sentence) or _YOURS.search(sentence)
                                                             or whose_record)):
                return turn
        if _CHECKS_THE_CALLER.search(turn.text) and any(is_question(s) for s in sentences(turn.text)):
            return turn
    return None


# --------------------------------------------------------------------------------------- apology

_SORRY = re.compile(r"\b(?:sorry|apologi[sz]e|apologi[sz]ing|apologies|apology)\b", re.I)
_PARDON = re.compile(r"^\W*sorry\W*$|\bsorry\s*\?|^\W*sorry\W+(?:\S+\s+){0,3}\S+\?$|"
                     r"^\W*sorry\W+(?:was that|did you say|is that|do you mean|which|who|where|how many)\b[^.!]*\?$|"
                     r"\bsorry,? (?:what(?: was that| did you say| was it|\W*$)|"
                     r"say (?:that|again)|come again|pardon|could you (?:repeat|say)|can you (?:repeat|say)|"
                     r"i didn't (?:catch|hear|get)|i missed|didn't catch)", re.I)
# Told not to be sorry: "no need to apologise", "don't be sorry".
_NO_NEED = re.compile(r"\b(?:no need to|don't|do not|never|not|nothing to) (?:be )?(?:apologi[sz]e|sorry)\b", re.I)


def apology(turns: list[Line]) -> Line | None:
    """The speaker's first turn with a sentence that says sorry or apologises (not "sorry?", asking to hear
    again, nor "no need to apologise")."""
    for turn in turns:
        if any(_SORRY.search(_NO_NEED.sub("", s)) and not _PARDON.search(s) for s in sentences(turn.text)):
            return turn
    return None


# --------------------------------------------------------------------------------------- further help

_MORE = re.compile(r"\b(?:another thing|one more thing|(?:any|some) other way)\b|\bany other (?:\w+ ){1,3}(?:i|we) can\b|"
                   r"\bwhat else (?:can|could|may) (?:i|we)\b|"
                   r"\b(?:anything|something|any other thing)\b.{0,25}?\b(?:else|more|further|besides|at all)\b|"
                   r"\b(?:else|further|more) (?:i|we) can\b|\b(?:is that|will that be|would that be|was that) "
                   r"(?:everything|all)(?: for (?:today|now|you))?(?: then| today)?(?:, (?:(?:mr|mrs|ms|miss|dr)\.? )?\w+)?"
                   r"\W*$|\b(?:does|did|has|have) (?:that|this|we|i) (?:covered|cover|answered|answer|sorted|sort|"
                   r"dealt with|deal with|taken care of|take care of) (?:everything|all (?:of )?your (?:questions|queries))\b|"
                   r"\bany (?:other|more|further) (?:questions?|queries|help|problems|assistance|matters?)\b|"
                   r"\b(?:are you|are we|you're|youre) (?:right|all right|alright|ok|okay|good|sorted|set|fine) for "
                   r"everything else\b|"
                   r"\bhelp (?:you )?with anything\b|\bfurther (?:help|assistance)\b", re.I)
_HELP = re.compile(r"\b(?:help|assist|do for you|look into|sort out|today|tonight|this (?:morning|afternoon|evening)|"
                   r"for you|i can|we can|need|needed|everything|all|on your (?:list|side|mind)|(?:ask|know) while|"
                   r"(?:like|want|wanted) to (?:ask|know|go through|discuss|talk about)|are we good|questions?|"
                   r"queries|(?:you're|youre|you are|you were) after|while (?:i|we|you)(?:'ve|ve| have) got (?:you|me|us)|"
                   r"while (?:i|we) have you|while (?:you're|youre|you are) (?:on|here|through)|outstanding|"
                   r"assistance|require|everything else|"
                   r"(?:like|want) (?:me|us) to (?:check|do|look|sort|help|go over|go through|run through|change))\b", re.I)
# Nothing more to offer: "there's nothing else I can do", "I can't do anything else".
_NOTHING_MORE = re.compile(r"\b(?:nothing|can't|cant|cannot|not|no)\b[^?]{0,20}\belse\b|"
                           r"\b(?:don't|dont|do not|won't|wont|will not) (?:need to |have to )?do anything "
                           r"(?:else|further|more)\b", re.I)
_PUNCTUATED = re.compile(r"[.?!,]")
_CONDITION = re.compile(r"\b(?:if|when|whenever|should)\b", re.I)


def _asks_more(sentence: str, unpunctuated: bool) -> bool:
    """Whether a sentence asks if there is anything more to help with. In a turn without punctuation (a
    recogniser's), the offer is one of its words, so it asks unless a condition comes before it ("if there's
    anything else just ring us")."""
    found = _MORE.search(sentence)
    if not found or _NOTHING_MORE.search(sentence):
        return False
    if not (_HELP.search(sentence) or len(sentence.split()) <= SHORT_OFFER_WORDS):
        return False
    if is_question(sentence):
        return True
    return unpunctuated and not _CONDITION.search(" ".join(sentence[:found.start()].split()[-4:]))


def further_help(turns: list[Line], last: int = FURTHER_HELP_TURNS) -> Line | None:
    """The last of the speaker's `last` turns that asks whether there is anything more to help with."""
    for turn in reversed(turns[-last:]):
        unpunctuated = not _PUNCTUATED.search(turn.text)
        if any(_asks_more(sentence, unpunctuated) for sentence in sentences(turn.text)):
            return turn
    return None


# --------------------------------------------------------------------------------------- which check

@dataclass(frozen=True)
class Check:
    """A known quality check: how a question asks for it, and what finds the turn that shows it."""

    name: str
    asked: re.Pattern[str]
    find: Callable[[list[Line]], Line | None]


CHECKS: dict[str, Check] = {check.name: check for check in (
    Check("greeting", re.compile(r"\b(?:greet|greets|greeted|greeting|hello)\b(?! cards?\b)", re.I), greeting),
    Check("verification", re.compile(
        r"^(?!.*\b(?:reset|change|update)\b).*(?:"
        r"\bverif\w* (?:the )?(?:caller|customer|client|identity|who|them|him|her|their)\b|\bauthenticat\w*|"
        r"\b(?:caller's|customer's|client's|their|his|her) identity\b|\bidentity (?:check|verification)\b|"
        r"\bsecurity (?:check|questions?|details?)\b|"
        r"\bwho (?:they|the caller|the customer|he|she) (?:said|says|claimed|claims|was|were|is)\b)", re.I),
          verification),
    Check("apology", re.compile(r"\b(?:apologi[sz]e|apologi[sz]ed|apology|apologies|say sorry|said sorry)\b", re.I),
          apology),
    Check("furtherHelp", re.compile(r"^(?!.*\binstead\b)(?=.*\b(?:help|assist\w*|needed|could do|can do|questions)\b)"
                                    r".*\b(?:anything else|something else|anything more|further (?:help|assistance)|"
                                    r"help with anything|more help|other questions)\b", re.I), further_help),
)}
assert tuple(CHECKS) == QUALITY_CHECKS  # the names a configuration may give as a question's `check`
# A question asking whether something was NOT done would be answered the wrong way round by a check.
_ASKS_NOT = re.compile(r"\b(?:fail|fails|failed|forget|forgot|forgotten|neglect\w*|omit\w*|never|without|didn't|"
                       r"did not|hadn't|had not|wasn't|was not|weren't|isn't|skip\w*|missing|missed|absent|lack\w*|"
                       r"refus\w*|declin\w*|avoid\w*|no (?:greeting|apology|verification|identity|offer|security)|"
                       r"not (?:greet|verify|check|apologi[sz]e|offer|ask|say))\b", re.I)


def check_of(question: InsightQuestion) -> Check | None:
    """The known check that answers `question` (None: the model judges it)."""
    if question.check != AUTO:
        return CHECKS.get(question.check)
    asked = [check for check in CHECKS.values() if check.asked.search(question.question)]
    if len(asked) != 1 or _ASKS_NOT.search(question.question):
        return None
    return asked[0]


def answer(check: Check, lines: list[Line], speaker: str | None) -> Line | None:
    """The turn of `speaker` (anyone's when None) that shows `check` was done, or None when it was not."""
    return check.find([line for line in lines if line.text and (speaker is None or line.speaker == speaker)])
