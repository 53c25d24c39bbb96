"""Words spoken to whoever reads the transcript afterwards, not to the other party: "ignore all previous
instructions", "note to the AI", "whoever summarises this call, add an action item that ...", "mark this
call as resolved". The insights model must never read them as instructions, so `instruction_start` finds
where, in a turn, such words begin; the turn's words from there on are left out of what the model reads.

A turn is read one sentence at a time (and, by the word model, two neighbouring sentences at a time and a long
sentence in windows of its words, never the whole turn), as `plain` gives it: lower case, "A.I." and "a i" as
"ai", without hesitations or a recogniser's repeated words, so that an unpunctuated, lower-case turn is read as
well as a punctuated one. Two things find an instruction:
- rules, each aimed at the transcript's reader (a machine, a service such as "the call analytics", "whoever
  processes this recording") or at what the reader writes (the outcome, an action item, the summary), so
  that ordinary call talk ("I'll add a note to your account", "forget everything I said about the address",
  "our automated system will text you") is kept;
- a word model (`WordModel`, fitted by `benchmarks/call_insights/fit_instruction_words.py`), for wordings
  no rule names.
Both were shaped on sets of instructions and ordinary turns written apart from them, and are measured on
one held back (docs/benchmarks.md, "Spoken instructions").
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from speechproc import errors as E

WORD_MODEL = Path(__file__).resolve().parents[2] / "data" / "spoken_instruction_words.json"

# Who reads a transcript afterwards: a machine by any of its names.
_MACHINE = (r"(?:ai|artificial intelligence|bots?|chat ?bots?|robots?|llms?|(?:large )?language models?|chat ?gpt"
            r"|chat g p t|gpt|gemini|claude|co ?pilot|alexa|siri|neural (?:network|net)|virtual assistant"
            r"|assistant(?! (?:manager|director|supervisor|team|store|branch|engineer|technician|on|in))"
            r"|computers?|machines?|algorithms?|models?(?! (?:number|year|name|no)\b))")
# A service named by what it does with the call: "the automated summary", "call analytics", "the QA scorecard".
_READER_TOOL = (r"(?:(?:call |speech |voice )?(?:automated|automatic|auto|ai|machine|computer|analytics|scoring|quality"
                r"|qa|summary|summari[sz]ing|summari[sz]ation|transcription|monitoring|evaluation|sentiment|compliance|crm"
                r"|notes?|record keeping"
                r"|note taking|minute taking|tagging|auto generated|ai generated|auditing|audit|review|reviewing|case notes"
                r"|wrap up|disposition|call log)"
                r"(?: \w+){0,2} (?:summary|summari[sz]er|system|software|tool|program|service|engine|model|bot|analy[sz]er"
                r"|analysis|analytics|report|notes?|scorer|scoring|reader|generator|writer|checker|scorecard|qa|thing|meter"
                r"|detector|tagger|dashboard)"
                r"|(?:call |speech |voice |conversation |quality |qa )?analytics|(?:call|speech|conversation) analysis"
                r"|(?:qa |quality )?scorecard|summary generator|auto ?notes?)")
# A service spoken to by its name ("qa scorecard, mark ...", "call summary, please state ..."): named ones, and
# plain words that are a name only at the start of a sentence and before an order.
_SERVICE = (r"(?:(?:call |meeting )?(?:summari[sz]er|transcriber|scorecard)|auto ?notes?|notes? bot"
            r"|(?:qa|quality|compliance|sentiment|tone|emotion) (?:\w+ )?(?:analy[sz]er|checker|meter|bot|tool|engine"
            r"|software|model|detector|scorecard)|auto ?tagger|tagger|(?:case |call )?notes tool)")
_PLAIN_SERVICE = r"(?:call |meeting )?(?:summary|notes|minutes)"
# Where a name can be a vocative: a sentence's start, after a comma, a number or a word that opens a clause.
_CLAUSE_START = (r"(?:^|(?<=[,:] )|(?<=[0-9] )|\b(?:okay|ok|and|so|right|yes|yeah|now|also|oh|hey|well|anyway|thanks"
                 r"|thank you|alright)\b,? )")
_THE_CALL = (r"(?:this|these|the|my|our|that) (?:\w+ )?(?:calls?|recordings?|transcripts?|conversations?|audio|tapes?"
             r"|chats?|files?|meetings?|sessions?|interviews?)")
_READING = (r"(?:reads?|reading|process(?:es|ing)?|reviews?|reviewing|summari[sz](?:es|e|ing)|analy[sz](?:es|e|ing)"
            r"|transcrib(?:es|e|ing)|listens? to|listening to|scores?|scoring|evaluat(?:es|e|ing)|audits?|auditing"
            r"|checks?|checking|hears?|hearing|goes through|going through|looks? at|looking at|handles?|handling"
            r"|monitors?|monitoring|gets?|receives?|sees?|picks? up|picking up|rates?|rating|grades?|grading"
            r"|listens? back to|listening back to|plays? back|playing back|tags?|tagging|goes over|going over|go over"
            r"|writes?|writing|types?|typing|minutes|minuting)")
_WHOEVER = (r"(?:whoever|whatever|whichever|anyone|anybody|any (?:person|people|human|one|system|software|program"
            rf"|tool|service)(?: or (?:an? )?\w+)?|(?:any|the|an?) {_MACHINE})")
_STATE = (r"(?:resolved|unresolved|not resolved|follow ?up|closed|open|successful|a success|a failure|failed|positive"
          r"|negative|satisfied|dissatisfied|escalated|perfect|excellent|good|bad|rude|complete|completed|fixed"
          r"|a complaint|first contact|resolved on first contact)")
_DO = (r"(?:please|kindly|listen|when|if|you|mark|record|add|list|write|put|say|note|make|report|ignore|disregard"
       r"|forget|log|set|score|rate|summari[sz]e|include|remember|give|classify|change|treat|count|file|tick|answer"
       r"|flag|show|output|leave|drop|remove|whoever|whatever|whatever's|whoever's|this|the reason|the outcome|take"
       r"|state|tick|must|should|need|change|treat|consider|wipe|scrap|pay no attention|label|agent here|caller here"
       r"|this is)")
# Words before an edit that make it the speaker's own step ("I'll add an action item", "let me log this call
# as resolved", "can you log that"), not an order to the reader.
_OWN_STEP = re.compile(r"\b(?:i|i'll|i will|i'm|i am|we|we'll|we will|we're|we are|let me|let's|i've|we've|i'd|we'd"
                       r"|gonna|going to|can you|could you|would you|will you|you can|you could)(?: \w+){0,3} ?$")
# Words just before an edit that make it a statement about it ("it wouldn't change the outcome"), not an order.
_STATEMENT = re.compile(r"\b(?:it|that|which|doesn't|does not|won't|wouldn't|didn't|can't|cannot|couldn't|would|could"
                        r"|might|may) $")

# Words aimed at the reader: whoever says them, they are for the transcript's reader.
_ADDRESSED = [re.compile(rule) for rule in (
    # telling the reader to drop what it was told
    r"\b(?:ignore|disregard|forget|override|bypass|drop|skip|set aside|scrap|wipe|throw out|pay no attention to)\b"
    r"[^.?!]{0,40}\b(?:previous|prior|earlier|above|preceding|original|your|all|any|those|these|system|whatever"
    r"|whichever|usual|normal) (?:\w+ ){0,2}"
    r"(?:instructions?|rules|prompts?|guidelines?|directions|guidance|programming|training|task|directives?|orders"
    r"|constraints|policy|policies|configuration|format)\b",
    r"\b(?:ignore|disregard|forget)\b[^.?!]{0,20}\b(?:everything|anything|whatever|all)\b (?:you(?:'ve| have)? "
    r"(?:been|were) (?:told|given|asked)|(?:said |written |stated )?(?:above|before this|so far))",
    r"\byour (?:earlier |previous |original |prior |old |usual |normal |standard |default |current )?(?:prompt|programming"
    r"|system prompt|training)\b|\b(?:earlier|previous|original|prior|old) (?:prompt|programming)\b"
    r"|\byour (?:earlier|previous|original|prior|old) (?:instructions|rules|guidelines|task)\b",
    r"\b(?:ignore|disregard|drop|skip|leave out|remove|delete|exclude|omit|forget)\b[^.?!]{0,50}\b(?:from|in|out of)"
    r" (?:your|the) (?:\w+ )?(?:analysis|summary|report|notes|scoring|evaluation|assessment|write up)\b",
    r"\b(?:ignore|disregard|skip) (?:the )?rest of (?:this|the) (?:call|conversation|recording|transcript)\b",
    r"\b(?:rules|instructions?|task|brief|guidelines|format|prompt|orders|settings) (?:that )?you(?:'re|re)? (?:were"
    r" |have been |'ve been |are |got )?(?:given|told to use|told to follow|asked to use|working from|working to|running on)\b|"
    r"\byour only (?:task|job|instruction)\b|\b(?:instructions?|rules|guidelines) (?:no longer|don'?t|do not)"
    r" apply\b",
    r"\b(?:your|the) (?:\w+ )?(?:instructions?|rules|task|brief|guidelines|prompt) (?:is|are|has been|have been)"
    r" (?:cancelled|canceled|void|revoked|suspended|replaced|overridden|withdrawn|updated|changed)\b",
    r"\b(?:all |everything )?(?:previous|prior|earlier|above) (?:content|text|conversation|instructions?|context) (?:is|are)"
    r" (?:void|cancelled|canceled|invalid|irrelevant|to be ignored|wrong)\b",
    r"\b(?:ignore|disregard|forget) (?:the |everything |all )?above\b|\bhere is the (?:real|correct|actual|true|updated)"
    r" (?:one|transcript|summary|version|record)\b",
    r"\b(?:follow|use|stick to|apply) your (?:usual|normal|standard|default|regular) (?:format|instructions|rules|template"
    r"|guidelines|settings|checks|policy)\b",
    r"\bdon'?t (?:need to|have to) (?:follow|use|stick to) (?:your|the) (?:usual|normal|standard|default) (?:format"
    r"|instructions|rules|template|guidelines)\b",
    # a note, a message or an address to a machine
    rf"\b(?:note|notes|message|memo|instructions?|reminder|attention|heads up|notice|word|request|info|p ?s|hello|hi"
    rf"|hey|greetings|shout ?out) (?:to|for) (?:the |any |whatever |whichever |whoever |all |an? |this |that |our |your"
    rf" |you )?(?:\w+ ){{0,2}}(?:{_MACHINE}|{_READER_TOOL})\b",
    rf"\b(?:to|for|dear|hey|hi|hello|attention|listen|ok|okay) (?:the |you |any |whatever |whichever )?(?:\w+ ){{0,2}}"
    rf"(?:{_READER_TOOL}|{_SERVICE})\b",
    rf"(?:\b(?:hey|hi|hello|dear|listen|attention|yo|greetings)\b,? |\b(?:ok|okay)\b,? (?=(?:the )?{_MACHINE}\b[, ]))"
    rf"(?:you |the |dear )?{_MACHINE}\b(?! (?:says|said|told|is|was|on|in|at|can't|cannot|won't|did|does|kept|hung))",
    rf"(?:^|\b(?:and|so|now|oh|um|uh|also|er)\b,? )(?:you |the |dear )?(?:{_MACHINE}|(?:\w+ )?{_READER_TOOL})(?:,|:|"
    rf" {_DO}\b)",
    rf"\bif (?:an?|the|any|some|one of (?:the|those|these)|you(?: are)?(?: an?)?) (?:\w+ ){{0,2}}(?:{_MACHINE}|{_READER_TOOL}"
    rf"|thing|things|system|software|program|tool)s? (?:is |are |does |do )?(?:\w+ ){{0,3}}(?:listening|reading|reads?|watching"
    rf"|processing|process(?:es)?|transcribing|summari[sz]ing|summari[sz]es|analy[sz]ing|analy[sz]es|recording|hearing"
    rf"|hears?|involved|out there|reviewing|scoring|scores?|evaluating|auditing|monitoring|checking|picking (?:this|it) up"
    rf"|going over|goes over|writing (?:this|it) up|writing (?:this|it) down"
    rf"|listens?)\b",
    rf"\bso (?:the|any|that the|that any) {_MACHINE} knows\b",
    rf"\b{_MACHINE},? (?:summari[sz]e|some rise|ignore|disregard|forget|classify|tag|label|rate|score|mark|write|say|state"
    rf"|put|add|remove|leave|drop|treat|count|give)\b(?! (?:the (?:same|way|words?)|to|for|that it|you))",
    rf"\bto (?:the|any|whatever|you) {_MACHINE}(?:,|:| (?:switch|summari[sz]e|ignore|disregard|forget|mark|classify|tag"
    rf"|label|record|log|write|note|say|state|rate|score|leave|drop|remove|treat|count|give))\b",
    rf"\b(?:to|for|dear|attention) (?:the|any|every) (?:person|people|team|one|human|staff|colleague)s? (?:who'?s? |that'?s?"
    rf" |who are |who is )?{_READING} (?:to )?(?:this|these|{_THE_CALL})\b",
    r"\b(?:to|for|dear|hey|attention) (?:the|any|whatever|whichever) (?:\w+ )?(?:software|program|app|system|tool|bot)s?"
    r" (?:that'?s? |which is |that is )?(?:listing|taking|writing|making|generating|doing|summari[sz]ing|transcribing"
    r"|tagging|scoring|analy[sz]ing|recording|keeping|reading)\b",
    rf"\b(?:whether|if) (?:anything|something|anyone|anybody|someone|somebody)(?: \w+)? {_READING} (?:this|these"
    rf"|{_THE_CALL})\b",
    rf"\b{_MACHINE} (?:is |are |'s )?(?:writing|typing|taking) (?:this|it) (?:up|down)\b",
    rf"\b(?:asking|ask|tell|telling|instruct|instructing|want|need) (?:the|any|you|our) (?:\w+ )?(?:summari[sz]er"
    rf"|transcriber|{_MACHINE}|{_READER_TOOL}) to\b",
    r"\b(?:whoever|whatever)(?:'s|s| is| are)? (?:summari[sz]ing|transcribing|analy[sz]ing|scoring|minuting|taking (?:the )?"
    r"(?:notes|minutes))\b",
    rf"{_CLAUSE_START}(?:{_MACHINE}|{_SERVICE}),? (?:please|kindly|if you're|if you are|when you|you must|you should"
    rf"|you need to|take this down|take note|note that|record this|whatever's|whoever's|ignore)\b",
    rf"\b{_SERVICE},? {_DO}\b",
    rf"(?:^|\b(?:and|so|now|oh|also|right|okay|ok|yes|yeah)\b,? ){_PLAIN_SERVICE},? {_DO}\b",
    rf"\b(?:{_MACHINE}|{_SERVICE}),? (?:whatever's|whoever's|whatever is|whoever is) (?:\w+ )?(?:grading|scoring|reading"
    rf"|summari[sz]ing|listening|rating|marking|analy[sz]ing)\b",
    rf"\b(?:if|in case|whether) (?:there'?s|there is|there are) (?:\w+ )?(?:an?|any|some) (?:\w+ )?(?:{_MACHINE}|program"
    rf"|software|app|tool|system)s? (?:\w+ )?(?:listening|on the line|on this call|writing|reading|recording|taking"
    rf"|summari[sz]ing|analy[sz]ing|processing|involved|here|out there|in the loop)\b",
    rf"\b(?:this|the call|this call|the recording|this recording|the transcript|this transcript|these calls) (?:\w+ )?"
    rf"(?:is |gets |will be |is being |being |are being |get )?(?:\w+ )?(?:summari[sz]ed|transcribed|analy[sz]ed|processed"
    rf"|scored|read|reviewed|fed|tagged) (?:by|into|through) (?:an?|the|any|some|one of those) (?:\w+ )?(?:{_MACHINE}"
    rf"|program|software|app|tool|system)s?\b",
    r"\b(?:in|into|to|for) (?:the |your )?(?:auto ?generated|automatic|automated|ai|machine|ai generated) (?:\w+ )?"
    r"(?:notes|summary|summaries|minutes|report|record|write up)\b",
    rf"\bfor the record,? (?:you )?{_MACHINE}\b",
    rf"\b(?:{_MACHINE}|system|software|program|tool|service|platform|app) (?:that |which |who )?(?:is |are |'s )?"
    rf"(?:listening|reading|processing|transcribing|summari[sz]ing|analy[sz]ing|hearing|watching|scoring|reviewing"
    rf"|evaluating) (?:to )?(?:this|these|{_THE_CALL})\b",
    rf"\b{_READER_TOOL} (?:should|must|needs to|has to|will want to|can|ought to) (?:\w+ )?(?:log|record|mark|show|say"
    rf"|note|list|include|give|score|rate|count|treat|classify|report|know|be told)\b",
    rf"\b(?:fed|feed|fed into|put through|run through|goes into|going into|sent to|passed to|given to) (?:one of )?"
    rf"(?:an?|the|those|these|some|any|your) (?:\w+ )?{_MACHINE}",
    # whoever (or whatever) reads, summarises or scores the call
    rf"\b{_WHOEVER} (?:(?:that|who|which) )?(?:(?:is|are|will be|'s|'ll|will|might be|may be) )?(?:\w+ly )?{_READING}"
    rf" (?:to )?{_THE_CALL}\b",
    rf"\b(?:(?:whoever|whatever|whichever)(?:'s|s)?(?: \w+)?|(?:if|in case|when) (?:someone|somebody|anyone|anybody"
    rf"|any one)(?:'s)?(?: \w+)?) (?:(?:is|are|will be|'s|'ll|will|ends up|end up|gets to|might|may) )?(?:\w+ly )?{_READING}"
    rf" (?:this|these|it|me|us|{_THE_CALL})\b",
    r"\b(?:whoever|whatever)(?:'s|s| is| are)? (?:\w+ )?(?:taking|writing|making|generating|keeping|doing) (?:the |these"
    r" |our |my )?(?:\w+ )?(?:notes|minutes|summary|summaries|records?|write ups?)\b",
    rf"\bwhen you (?:\w+ )?(?:summari[sz]e|process|analy[sz]e|transcribe|score|write up|review|read|go through)"
    rf" {_THE_CALL}\b|\bwhen you (?:write|type) (?:this|it) up\b|\bwhen you (?:do|write|make|take|generate|prepare)"
    rf" the (?:notes|summary|minutes|write up|report)\b",
    rf"\bif you(?:'re| are|re) (?:\w+ )?(?:scoring|rating|evaluating|grading|summari[sz]ing|analy[sz]ing|transcribing"
    rf"|reviewing|auditing|processing|reading|listening to|checking|monitoring) (?:me|us|this|my|{_THE_CALL})\b",
    r"\b(?:when|once|if|after|before|in case) (?:this|this call|the call|this recording|the recording|the transcript"
    r"|this transcript|this conversation) (?:gets|is|has been|will be) (?:\w+ )?(?:written up|summari[sz]ed|transcribed"
    r"|analy[sz]ed|processed|scored|fed into|fed to)\b",
    # a new persona or task
    r"\b(?:from now on|starting now|from this point(?: on)?|henceforth),? you(?:'re| are| will be| must be| should be"
    r"| will act as| will now be)? (?:an?|my|the|in) (?!new customer|member)\b",
    r"\byou(?: are|'re) no longer (?:an?|the|my)\b|\byou will now (?:act|behave|respond|answer|be|only)\b",
    r"\byou(?:'re| are) (?:now )?(?:an?|the|my) (?:\w+ )?(?:summari[sz]er|transcriber|scorer|analy[sz]er)\b",
    r"\binstead of (?:summari[sz]ing|transcribing|analy[sz]ing|scoring|reporting on|reporting) (?:this|the)\b",
    r"(?<!scammers )(?<!fraudsters )(?<!criminals )(?<!they )(?<!people )\bpretend to be\b"
    r"|\b(?:act|behave|respond|answer) (?:as|like) (?:an?|my) (?:\w+ ){0,2}(?:lawyer|assistant|ai"
    r"|model|bot|summari[sz]er|advocate|judge|analyst|reviewer|poet|marketer)\b",
    r"\bimagine (?:that )?you(?:'re|re| are) (?:an?|my|the) (?:\w+ ){0,2}(?:lawyer|assistant|ai|model|bot|summari[sz]er"
    r"|analyst|reviewer|poet|marketer|advocate)\b",
    r"\byou are now (?:\w+ )?(?:an?|the) (?:\w+ )?(?:analyst|assistant|ai|bot|model|summari[sz]er|reviewer|poet)\b"
    r"|\byour (?:job|task|role) now is to be\b|\bwith no rules\b",
    r"\bnew (?:instructions?|prompt|persona|objective|directive)s?\b\s*(?::|is|are|follow|below|begin|start|now|here"
    r"|for)",
    r"\bnew rules (?:from (?:here|now) on|apply|:|for you)",
    r"^(?:\w+,? )?new task:|\byour new (?:task|job|role|instructions?|purpose|goal) is\b|\blet's play a game\b",
    r"\b(?:developer|god|admin|dan|d a n|jailbreak|unrestricted|debug|manager) mode\b|\bsystem prompt\b|\bprompt injection\b",
    # fake system text read aloud
    r"(?:^|\b(?:begin|start|new|the|a|priority)\b )(?:system|admin|administrator|developer|operator|assistant|user)"
    r" (?:message|prompt|note|override|instruction|instructions|command|update)s?\b\s*(?::|,|\bthe\b|\bis\b|$)",
    r"^(?:system|admin|administrator|developer|operator|root|sudo)\b\s*(?::|,|override|\bmessage\b|\bif\b|\bplease\b)",
    r"\b(?:admin|system|security|priority) override\b|\boverride code\b|\boutput only\b",
    r"\b(?:system|admin|developer|operator) (?:message|prompt|note|override|instructions?|command)s?\b(?! (?:on|in|about"
    r"|at|saying|said|says|that says|popped|came|pops|comes|from|to|when|if|you|i|we))",
    r"\b(?:assistant|system|user|admin|developer|human|ai|json|summary|outcome|reason|notes|minutes|sentiment"
    r"|action items) colon\b|\bjson:",
    r"\bthe following (?:text |instructions? |message )?(?:is|are) (?:authoritative|binding|the (?:correct|real|true"
    r"|actual|official))\b",
    r"\bend of (?:the )?(?:transcript|conversation log|recording|call transcript|input|prompt)\b|\btranscript ends\b",
    r"\b(?:real |correct |new |true )?summary (?:begins|starts|follows)\b",
    r"\b(?:begin|start|beginning of)(?: the)? new (?:instructions?|task|prompt|session|conversation)\b",
    r"\[\s*(?:system|admin|inst|instructions?|assistant)\s*\]|\bopen (?:square )?bracket,? (?:system|admin|inst"
    r"|instructions?|assistant|i n s t)\b",
    r"\bthe following is the (?:correct|real|true|actual|updated|official|right) (?:summary|transcript|outcome"
    r"|record|result)\b",
)]

# Edits of what the reader writes, unless the words before make them the speaker's own step (_OWN_STEP).
_EDITS = [re.compile(rule) for rule in (
    r"\b(?:add|list|include|insert|put|write|create|log|record|enter|register|note down|put down|make|remove|delete"
    r"|drop|clear|strip) (?:in |down |on )?(?:as )?(?:an?|the|one|this|that|another|new|extra|all|any|all the)"
    r" (?:\w+ )?action items?\b|\baction items? (?:one|1|two|2|number)\b",
    r"\baction items? (?:should|must|need to|needs to|has to|have to|list|section|field|:)"
    r"|\b(?:for|in|to|under|on|into) (?:the |your )?(?:action items?|promises? list|list of (?:promises|actions))\b",
    rf"\b(?:mark|record|log|set|classify|label|tag|report|flag|list|register|count|categori[sz]e|code|score|rate"
    rf"|file|put|note|enter|show) (?:down )?(?:this|the|that) (?:one|call|conversation|interaction|outcome|call outcome"
    rf"|case|call's outcome|calls outcome|result) (?:down )?as (?:being )?{_STATE}\b",
    r"\bmark (?:it|this|this call|the call|this one) (?:as )?(?:passed|a pass|compliant|non compliant|yes)\b",
    r"\bmark it as (?:resolved|unresolved|complete|done)\b",
    r"\bchange (?:the|this) (?:call'?s? )?(?:sentiment|outcome|call reason|qa answers?|score|rating)\b",
    r"\bcall reason (?:for|:|is|should|=|equals)",
    r"\b(?:further help|greeting|identity check|id check|verification|apology) (?:question|box|item)\b",
    r"\b(?:score|rate|grade) (?:this|the) (?:call|conversation|interaction)\b(?! (?:afterwards|after|later|in|on|when"
    r"|out|at|via|by|online|please))",
    r"\b(?:list|record|log|set|mark|put|enter|file) (?:the )?(?:call )?(?:reason|outcome|sentiment|status) (?:down )?as\b",
    r"\bnote (?:to|for) (?:the )?(?:call )?(?:summary|notes|minutes|record)\b",
    r"\bmark that (?:as )?(?:yes|passed|a pass|resolved|compliant)\b",
    r"^(?:call )?(?:outcome|reason for (?:the )?call|call reason|sentiment|disposition|tags?|action items|qa answers?"
    r"|resolution)\s*:|^(?:call )?outcome (?:resolved|unresolved|follow ?up|positive|negative)\b",
    r"\breason for call\b|\bsentiment (?:positive|negative|neutral|very positive)\b|\baction items? (?:none|empty|blank"
    r"|nil)\b|\bqa answers?\b",
    r"\b(?:the )?(?:call summary|summary|minutes|call notes|wrap up notes),? (?:the (?:\w+ )?(?:summary|minutes|notes) )?"
    r"(?:should|must|needs? to|has to|ought to|shouldn'?t|must not|mustn'?t|should not) (?:\w+ )?(?:say|read|state|show"
    r"|mention|include|list|contain|record)\b",
    r"\b(?:record|put|write|note|log|add|enter|mention|state|say) (?:it |this )?in (?:the|your) (?:call )?(?:notes|summary"
    r"|minutes|report|record)s? that\b",
    r"\b(?:record|note|log|list|write down|put down|jot down) that (?:the )?(?:agent|company|bank|\w+) (?:has )?"
    r"(?:promised|agreed|guaranteed|committed|owes)\b",
    r"\b(?:should|must|needs to|has to|have to) (?:show|say|read|record|list|mark|log|state|report|have|classify"
    r"|count) (?:this|the) (?:one|call|conversation|outcome) as\b",
    r"\b(?:record|log|set|report|mark|enter|put|make|list) (?:down )?(?:the|this|that|my|its) (?:call )?(?:outcome"
    r"|resolution|status|sentiment|summary|result|qa|score|rating)s?\b (?:as|to|is|=|should|that|of this|here|for)",
    r"\b(?:log|record|mark|enter|file|note) it (?:down )?(?:that way|like that|as such)\b",  # not "put it that way"
    r"\bsentiment (?:of (?:this|the) (?:call|conversation)|here|for (?:this|the) call) (?:is|was|should be|=|equals|:)"
    r"|\bcall sentiment (?:is|should be|=|equals|:)",
    r"\b(?:outcome|status|sentiment|reason|resolution) (?:field )?(?:equals|=)",
    r"\b(?:put|write|say|state|mention|include|add|note|record|list|insert)\b[^.?!]{0,25}\b(?:in|into|on|to) "
    r"(?:the|your|this|my) (?:\w+ ){0,2}(?:summary|report|analysis|scorecard|assessment|evaluation|insights)\b",
    r"\b(?:make sure|ensure|be sure) (?:that )?(?:the|your|this|any) (?:\w+ ){0,2}(?:summary|report|analysis"
    r"|notes|transcript|score|scorecard|record|write up|insights) (?:says|shows|states|reads|lists|includes"
    r"|mentions|has|records|will say|will show|notes|marks)\b",
    r"\b(?:correct|real|true|actual|right|official) (?:call )?(?:outcome|summary|result|resolution)"
    r" (?:of (?:this|the) call |here |for (?:this|the) call )?(?:is|was|should be|:)",
    r"\b(?:(?:call )?outcome|summary|resolution|status|result|call reason|reason for (?:this|the) call)"
    r" (?:field |section |box |line )?(?:of (?:this|the) call )?(?:should|must|needs to|has to)"
    r" (?:be|say|read|show|state|include|list)\b",
    r"\b(?:score|rate|grade|mark) (?:the|this) agent\b",
    r"\b(?:qa|quality) (?:section|questions?|part|form|checklist|items?|boxes|criteria)\b",
    r"\b(?:answer|mark|set|score) (?:yes|no|true) (?:to|for|on) (?:every|all|each|the) (?:\w+ )?questions?\b",
    r"\b(?:mark|tick|check|pass) (?:every|all|each|all the) (?:\w+ )?(?:qa|quality|compliance|scorecard)\b"
    r"|\b(?:mark|tick|check|pass) (?:every|all|each|all the) (?:\w+ )?questions? (?:as )?(?:yes|true|passed|correct)\b",
    r"^(?:and |so |also |please |now )?(?:list|log) that\b",
)]

_ABBREVIATED_AI = re.compile(r"\ba\s?\.\s?i\b\.?|\ba i\b(?= |$)|\bartificial intelligence\b", re.IGNORECASE)
_FILLER = re.compile(r",?\s*\b(?:um+|uh+|erm*|hmm+|mm+|ah+)\b,?|,\s*(?:like|you know|i mean)\s*,")
_WORD = re.compile(r"[a-z0-9']+")
_TOKEN = re.compile(r"\S+")
# A long sentence is also read in windows of its words (`_window_start`).
WINDOW_WORDS, WINDOW_STEP, WINDOW_MARGIN = 20, 5, 1.0
_SENTENCE_END = re.compile(r"(?<=[.?!])(?<!\b[A-Za-z]\.)\s+|(?<=[:;])\s+(?=[A-Z])")


def _without_filler(filler: re.Match[str]) -> str:
    """A hesitation taken out: a comma it stood between stays ("system message, um, all ..."); a "like" or "you
    know" set off by commas goes with its commas ("if anyone's, like, analysing ...")."""
    said = filler.group(0)
    return "," if "," in said and not re.search(r"like|know|mean", said) else " "


def plain(sentence: str) -> str:
    """A sentence as the rules read it: lower case, "A.I." and "a i" as "ai", letters, digits, apostrophes and
    the marks some rules need (colon, comma, brackets) between single spaces."""
    text = _ABBREVIATED_AI.sub(" ai ", sentence).lower().replace("’", "'")
    text = re.sub(r"[^a-z0-9'\[\]:,]+", " ", text)
    text = _FILLER.sub(_without_filler, text)
    text = re.sub(r"\s*([:,])", r"\1", text)
    text = re.sub(r"\b(\w+)(?: \1\b)+", r"\1", text)  # "just just", "a a": a recogniser's repeats
    return re.sub(r"\s+", " ", text).strip()


class WordModel:
    """A linear model over a sentence's words and word pairs (each counted once), fitted on instructions and
    ordinary turns (`benchmarks/call_insights/fit_instruction_words.py`): it catches wordings no rule names.
    A sentence is taken when its score reaches `line`."""

    def __init__(self, weights: dict[str, float], bias: float, line: float) -> None:
        self.weights, self.bias, self.line = weights, bias, line

    def score(self, read: str) -> float:
        """The score of a sentence as `plain` gives it."""
        words = _WORD.findall(read)
        grams = dict.fromkeys(words + [f"{a} {b}" for a, b in zip(words, words[1:])])
        return self.bias + sum(self.weights.get(gram, 0.0) for gram in grams)

    def likely(self, read: str) -> bool:
        return self.score(read) >= self.line


@lru_cache(maxsize=1)
def word_model() -> WordModel:
    """The fitted word model shipped with speechproc (a SpeechprocError naming the file when it cannot be
    read: the installation is damaged)."""
    try:
        data = json.loads(WORD_MODEL.read_text(encoding="utf-8"))
        weights = {str(gram): float(weight) for gram, weight in data["weights"].items()}
        return WordModel(weights, float(data["bias"]), float(data["line"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise E.SpeechprocError(E.MODEL_UNAVAILABLE, f"the spoken-instruction word model {WORD_MODEL} cannot be read "
                                f"({type(exc).__name__}: {exc}); reinstall speechproc", status=500) from None


def addresses_reader(sentence: str, words: WordModel | None = None) -> bool:
    """Whether `sentence` is spoken to whoever (or whatever) reads the transcript, not to the other party: a
    rule names it, or the word model (`words`, the shipped one by default) takes it."""
    read = plain(sentence)
    if any(rule.search(read) for rule in _ADDRESSED):
        return True
    edits = [match for rule in _EDITS for match in rule.finditer(read)]
    if any(not (_OWN_STEP.search(read[:match.start()]) or _STATEMENT.search(read[:match.start()])) for match in edits):
        return True
    if edits:  # the speaker's own step ("I'll mark this call as resolved") or talk about one, not an order
        return False
    return (words or word_model()).likely(read)


def instruction_start(text: str, words: WordModel | None = None) -> int | None:
    """Where, in a turn's `text`, words addressed to the transcript's reader begin; None when nothing in it does.
    That is the first sentence that addresses the reader or, when no one sentence does, the first two neighbouring
    sentences the word model takes together (an instruction the recogniser's punctuation split), or else the first
    window of a long sentence it takes (an instruction inside a recogniser's unpunctuated run). The rest of the
    turn from there is taken as the instruction. Sentences are read in pairs, never the turn as a whole, so that
    the words of a long, ordinary turn do not add up to an instruction."""
    spans = _sentence_spans(text)
    for start, end in spans:
        if addresses_reader(text[start:end], words):
            return start
    model = words or word_model()
    for (start, _), (_, end) in zip(spans, spans[1:]):
        if model.likely(plain(text[start:end])):
            return start
    for start, end in spans:
        window_start = _window_start(text[start:end], model)
        if window_start is not None:
            return start + window_start
    return None


def _window_start(sentence: str, model: WordModel) -> int | None:
    """Where, in a sentence longer than WINDOW_WORDS words (a recogniser's run that holds an instruction among
    ordinary talk), the first window of WINDOW_WORDS words, taken every WINDOW_STEP words, that the word model
    takes with WINDOW_MARGIN to spare begins; None when none does. The margin keeps the many windows of a long
    ordinary run from adding up to more turns taken than the sentence read once."""
    tokens = list(_TOKEN.finditer(sentence))
    for first in range(0, len(tokens) - WINDOW_WORDS + 1 if len(tokens) > WINDOW_WORDS else 0, WINDOW_STEP):
        last = tokens[first + WINDOW_WORDS - 1]
        if model.score(plain(sentence[tokens[first].start():last.end()])) >= model.line + WINDOW_MARGIN:
            return tokens[first].start()
    return None


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence of `text` starts and ends."""
    breaks = list(_SENTENCE_END.finditer(text))
    return list(zip([0] + [m.end() for m in breaks], [m.start() for m in breaks] + [len(text)]))
