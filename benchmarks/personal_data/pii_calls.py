#!/usr/bin/env python3
"""The calls of the personal-data benchmark (`benchmarks/personal_data/pii.py`), each a script of turns whose words carry the
kind of personal data they are, whoever says them.

Twelve conversation flows, three calls of each per half:

- `asked`: the agent asks for each item, the caller answers;
- `volunteered`: the caller says items unprompted, in the middle of other talk ("oh and my new number is ...");
- `read back`: asked, answered, then read back by the agent ("So that's ..., is that correct?");
- `corrected`: a number or date given, then corrected ("no, sorry, it's four one two, not four two one"), by
  the caller or after the agent reads it back wrong;
- `spelled`: names and e-mail spelled letter by letter by the caller;
- `spelled back`: the agent spells back what the caller said ("So that's M A R G A R E T?");
- `split`: an item spread over turns, the other speaker's "okay" or a question between its parts;
- `address any order`: an address as a whole, city, state or region, ZIP or postcode, unit and country in any
  order ("in Portland, Oregon, nine seven two one one, at ...");
- `banking`: routing and bank account numbers and a PIN;
- `documents`: driver's licence and passport numbers;
- `third party`: the names of other people (a colleague, a husband, a manager);
- `none`: a call with no personal data, its numbers amounts, durations and times.

Every call then goes on with talk holding no personal data (a company name, amounts, weekdays, a plan name)
for the share of other talk kept. The dev half draws names, streets and cities from one set of lists, the test
half from another, so that no value of the held-back half was seen while the rules were set. The `fresh` half,
added after the test half had been scored once, draws from a third set of lists and words many of the questions
and cues in other ways ("May I ask who's calling?", "we're now at"): it is held back from the rules that were
then set on the dev and test halves together. The `last` half, added after the fresh half had been scored once
and before any rule was set on it, draws from a fourth set of lists in a third wording.

The `fifth` half, added after the last half had been scored and before any rule was set on it, draws from a fifth
set of lists (names that are also words, as Will Hunter or Penny Field, a hyphenated and a two-part surname, a
suite, a PO box and a numbered road, places, postcodes and countries of no earlier list, e-mail with underscores
and digits, numbers, dates and postcodes said in words: "the twenty-first of June, two thousand one", "double five
eight oh two"), asks and answers in a fourth wording, is spoken by espeak-ng voices of its own (British, Scottish,
Caribbean, New York, Lancaster, West Midlands, received pronunciation), and adds seven flows to the twelve: `asked
indirectly` ("And you are?", "Whose name is on the card?"), `spelled as words` ("R as in red, O as in orange"),
`postcode as words`, `short answers` ("Surname?" "Hunter."), `look-alike answers` (no personal data, short answers
that look like it: counts, plan names, amounts, order and case numbers), `mid-sentence` (data dropped into the
caller's talk, no question asked) and `another person` (a son's or daughter's name and birthday, a spouse's).

The `sixth` half, added after the fifth half had been scored and before any rule was set on it, draws from a sixth
set of lists (names that are also words, as Faith Gardner or Jack Mills, a two-part surname and apostrophe names, as
Vaughan Williams and O'Sullivan, spelled with "space" and "apostrophe", apartments, units and lots, a rural route
and a numbered highway, places of the United States, England, Canada, Ireland and Australia and their postcodes, of
no earlier list, other e-mail domains, companies and plans), says numbers with "double" and "triple", in groups
("four five six, seven eight nine") and in pairs ("forty-one twenty-two"), dates as "the third of the ninth,
eighty-eight", "March third, nineteen eighty-eight" or "three nine eighty-eight", postcodes in words, e-mail with
"at", "dot" and a part spelled after it, and a British driving licence built on the surname. It asks and answers in
a fifth wording, several ways of saying one thing drawn per call ("Who's this calling, please?", "And the name on
the account is?", "Could you give me the long number on the card?"), is spoken by espeak-ng voices of its own
(Lancaster, Scottish, Caribbean, New York, West Midlands, received pronunciation and British and American English in
variants no earlier half uses, two of them on espeak-ng's Klatt synthesiser), and has three calls of each of the
fifth half's nineteen flows, its seven own flows in its own words: `asked indirectly` ("Who's the lucky person I'm
speaking with?"), `spelled as words` ("F for Freddie, A for alpha"), `postcode as words` ("Which ZIP code goes with
that?"), `short answers` ("Date of birth?" "Ninth of March, eighty-eight."), `look-alike answers` (household counts,
a plan, order and case references, a bill, a speed), `mid-sentence` (the caller's data dropped into a complaint,
then the agent reading back name, birthday and address with no question before it) and `another person` (a parent's
name and birthday, a partner's, their phone).

The `seventh` half, added after the sixth half had been scored and before any rule was set on it, and written apart
from the detector, draws from a seventh set of lists (names that are also words, as Crystal Swift or Bill Price;
names of South Asian, West African, East Asian, Eastern European, Hispanic and Irish origin, as Anjali Iyer, Chidi
Achebe, Ji-woo Takahashi, Katarzyna Wisniewski, Joaquin Echeverria or Niamh Fitzgerald; double-barrelled and two-part
surnames, as Bright-Owusu, Carrington-Smythe and Ruiz Delgado; flats and units, streets, towns, states, counties,
provinces and postcodes of the United States, England, Canada, Australia, New Zealand and Ireland, of no earlier
list; other e-mail providers and shapes, with a dash, an underscore or the surname as the domain; companies and
plans). It says house numbers in words ("five hundred and thirteen Sycamore Parade"), numbers in groups with "oh",
"zero" or "nought", "double" and "triple", in pairs and in hundreds ("seventy-four thirty-seven, nineteen hundred"),
dates in eight explicit forms ("the fourteenth of February, seventy-nine", "two fourteen seventy-nine", "nineteen
seventy-nine, February the fourteenth", "fourteen, oh two, nineteen seventy-nine"), postcodes in words and in two
halves, the bank's code as the caller's country names it (routing number, sort code, transit number, BSB, bank and
branch) and driving licences and passports in each country's shape. It asks and answers in a sixth wording, several
ways of saying each thing drawn per call by a generator of its own: names asked indirectly ("Who am I chatting to
this afternoon?", "And whose account is this?", "Can I take a name for the booking?"), given inside a sentence
("It's under my wife's name, Ji-woo Price"), spelled in plain letters with "dash", "hyphen" and "space", or with "as
in" and "for" (now and then only the unclear letters), read back wrong and corrected by the caller (a letter of the
surname, an e-mail domain, a year of birth, an old account number), and an address whose flat is remembered after
it. It is spoken by espeak-ng voices of its own (received pronunciation, New York, Caribbean, Scottish, West
Midlands, Lancaster and British and American English in variants no earlier half uses: Andrea, Michael, Linda,
Edward, Annie, Travis, Victor, Auntie, and Klatt 4 and 6), and has three calls of each of the nineteen flows of the
fifth and sixth halves, all in its own words.

The `eighth` half, added after the seventh half had been scored and before any rule was set on it, and written
apart from the detector, draws from an eighth set of lists (names that are also words, as Robin Fisher, Summer Frost
or Miles Lamb; names of Southern African, Maori, Dutch and Afrikaans, Middle Eastern, Vietnamese, Russian and Irish
origin, as Lindiwe Mokoena, Wiremu Ngata, Pieter van Wyk, Rania Hosseini, Linh Tran, Dmitri Volkov or Tadhg
MacAllister; hyphenated and two-part surnames, as Al-Sayed, Whitcombe-Hale, du Plessis and Te Rangi; flats and units,
streets, towns, states, counties, provinces, territories and regions and their codes of the United States, England,
Scotland, Canada, Australia, New Zealand, Ireland and South Africa, of no earlier list; other e-mail providers and
shapes, all one word, with a plus and a word, a full stop, digits said "double", or the family's own domain, spelled
with "at sign"; companies, plans and add-ons). It says house numbers in figures and in words two ways ("twenty-one
fifty-six", "nine thousand five hundred and twenty-five"), numbers in groups with "oh", "zero" or "nought", "double"
and "triple", in pairs and in hundreds ("six thirty-three"), dates in eight explicit forms, month first in North
America and day first elsewhere ("twenty-eighth February, nineteen eighty-one", "June the ninth, oh two", "five slash
fourteen slash eighty", "the fourth day of December, nineteen fifty-five", "one seven, nought four, one nine seven
eight", "nineteen sixty-nine, the eighth of April") and without the year, postcodes in words and in two halves, the
bank's code as the caller's country names it (a branch code in South Africa, transit and institution numbers in
Canada) and driving licences and passports in each country's shape. It asks and answers in a seventh wording, several
ways of saying each thing drawn per call by a generator of its own: names asked indirectly ("Who's the bill addressed
to?", "What name shall I put the appointment under?") and given inside a sentence with a title or an initial,
spelled in plain letters with "double", "hyphen", "new word" and "small" or "capital", or with "as in", "for" and
"like" (now and then only the unclear letters), an agent's read-back the caller corrects (a misheard digit of the
phone, a dropped letter of the surname, a day and month swapped or a day out, "forty" heard for "fourteen", an old
account), the agent reading back the account holder's name, address and birthday, and ordinary talk of varied length
around it (waits, opening hours, amounts, add-ons, an engineer's appointment day, a delivery day, order and case
references, meter readings). It is spoken by espeak-ng voices of its own (received pronunciation, New York,
Caribbean, Scottish, West Midlands, Lancaster and British and American English in variants no earlier half uses:
grandpa, Alicia, paul, steph2, anika, robert, grandma, Mike, quincy, shelby and max), and has three calls of each of
the nineteen flows of the fifth, sixth and seventh halves, all in its own words.

`python benchmarks/personal_data/pii_calls.py` writes benchmarks/personal_data/pii_calls.json; that file is committed before
any tuning, and the benchmark reads it, not this generator.
"""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

OUT = Path(__file__).resolve().parent / "pii_calls.json"
FLOWS = ("asked", "volunteered", "read back", "corrected", "spelled", "spelled back", "split", "address any order",
         "banking", "documents", "third party", "none")
CALLS_PER_FLOW = 3
SEEDS = {"dev": 4100, "test": 8300, "fresh": 9700, "last": 5300}
POOLS = {  # first names, last names, streets, (city, state or region, postcode, country)
    "dev": (["Dana", "Maria", "James", "Priya", "Oliver", "Fatima", "Lucas", "Mei", "Kwame", "Sofia"],
            ["Reyes", "Johnson", "Kowalski", "Nguyen", "Okafor", "Schmidt", "Patel", "Brennan", "Moreau", "Tanaka"],
            ["Maple Street", "Oak Avenue", "Cedar Lane", "Lake Road", "Hill Drive", "Park Boulevard"],
            [("Portland", "Oregon", "97211", "USA"), ("Springfield", "Illinois", "62704", "USA"),
             ("Austin", "Texas", "73301", "USA"), ("Leeds", "West Yorkshire", "LS6 2AB", "United Kingdom"),
             ("Toronto", "Ontario", "M5V 2T6", "Canada")]),
    "test": (["Grace", "Ahmed", "Elena", "Samuel", "Aisha", "Daniel", "Hana", "Victor", "Chloe", "Ravi"],
             ["Lindqvist", "Haddad", "Fischer", "Mensah", "Alvarez", "Kim", "O'Connor", "Rossi", "Dubois", "Singh"],
             ["Birch Court", "Elm Way", "River Road", "Sunset Drive", "Willow Lane", "Mill Street"],
             [("Denver", "Colorado", "80203", "USA"), ("Columbus", "Ohio", "43215", "USA"),
              ("Tampa", "Florida", "33602", "USA"), ("Bristol", "Avon", "BS1 4DJ", "United Kingdom"),
              ("Vancouver", "British Columbia", "V6B 3K9", "Canada")]),
    "fresh": (["Nadia", "Tomasz", "Leila", "Marcus", "Yuki", "Ines", "Kofi", "Astrid", "Diego", "Amara"],
              ["Petrov", "Yamamoto", "Gallagher", "Osei", "Novak", "Castillo", "Whitfield", "Banerjee", "Larsen",
               "Mbeki"],
              ["Chestnut Avenue", "Harbor Road", "Pine Street", "Meadow Lane", "Ridge Drive", "Kings Way"],
              [("Phoenix", "Arizona", "85004", "USA"), ("Nashville", "Tennessee", "37203", "USA"),
               ("Seattle", "Washington", "98101", "USA"), ("Cardiff", "Wales", "CF10 1EP", "United Kingdom"),
               ("Calgary", "Alberta", "T2P 1J9", "Canada")]),
    "last": (["Olga", "Jamal", "Beatriz", "Henrik", "Zainab", "Pavel", "Noor", "Callum", "Rosa", "Tariq"],
             ["Ivanova", "Bakr", "Santos", "Eriksen", "Adeyemi", "Horvat", "Rahman", "McLeod", "Ferreira", "Aziz"],
             ["Orchard Road", "Spring Street", "Valley View Drive", "Beacon Lane", "Granite Avenue", "Fox Court"],
             [("Boise", "Idaho", "83702", "USA"), ("Richmond", "Virginia", "23219", "USA"),
              ("Albany", "New York", "12207", "USA"), ("Glasgow", "Scotland", "G2 1DY", "United Kingdom"),
              ("Halifax", "Nova Scotia", "B3J 1S9", "Canada")]),
}
REWORDED = {  # the fresh half asks and answers in other words than the two halves the rules were set on
    "Can I have your full name please?": "Could I get your first and last name?",
    "And your date of birth?": "And what's your birthday, including the year?",
    "What is the address on the account?": "Where do you live, the full address please?",
    "And the best phone number to reach you?": "What's a good callback number for you?",
    "Oh, and before I forget, my new number is": "By the way, I changed my number, it's now",
    "Also, I moved recently, the new place is": "Oh, and we moved last month, we're now at",
    "And you can email the receipt to": "Could you send the confirmation to",
    "Can I get your account number?": "Could you read me your account number?",
    "What's the best number to call you back on?": "Which number should I call if we get cut off?",
    "Can I have your last name please?": "And how do you spell your surname?",
    "Who am I speaking with today?": "May I ask who's calling?",
    "What's a good phone number for you?": "What's your cell phone number?",
    "And your street address?": "And the street?",
    "Where should we send the new router?": "Where do you want the replacement shipped?",
    "Okay, my routing number is": "Sure, the routing number on my checks is",
    "My PIN is": "It's",
    "Yes, the license number is": "Yes, it's",
    "I spoke with your colleague": "Last time I talked to someone called",
}
REWORDED_LAST = {  # the last half, in words of neither the rules' halves nor the fresh one
    "Can I have your full name please?": "Who do I have on the line today?",
    "And your date of birth?": "For security, when were you born?",
    "What is the address on the account?": "What address do we have for you?",
    "And the best phone number to reach you?": "And a contact number?",
    "Oh, and before I forget, my new number is": "Just so you know, you can now reach me on",
    "Also, I moved recently, the new place is": "And my address changed, it's",
    "And you can email the receipt to": "Please forward the invoice to",
    "Can I get your account number?": "What's the account number you're calling about?",
    "What's the best number to call you back on?": "Is there a number I can ring you back on?",
    "Can I have your last name please?": "What's your family name?",
    "Who am I speaking with today?": "Whom do I have the pleasure of speaking to?",
    "What's a good phone number for you?": "What number can we text you at?",
    "And your street address?": "What's the house number and street?",
    "Where should we send the new router?": "What's the delivery address?",
    "Okay, my routing number is": "Right, the sort code, well routing number, is",
    "My PIN is": "The code is",
    "Yes, the license number is": "Sure, my licence reads",
    "I spoke with your colleague": "Your supervisor, a guy named",
}
REWORDED_FIFTH = {  # the fifth half, in words of none of the four halves before it
    "Can I have your full name please?": "And who's the account holder?",
    "Yes, it's": "That would be",
    "And your date of birth?": "Then I'll need the day, month and year you came into the world.",
    "Sure, it's": "Of course,",
    "What is the address on the account?": "Where's the account registered to?",
    "It's": "That'll be",
    "And the best phone number to reach you?": "Which number would you like us to use?",
    "Oh, and before I forget, my new number is": "While I think of it, you'll want to change the phone on file to",
    "so please update that.": "if that's alright.",
    "Okay, I can do that.": "No trouble at all.",
    "Also, I moved recently, the new place is": "Plus the post should go to",
    "Thank you.": "Lovely.",
    "And you can email the receipt to": "Stick the receipt in an email to",
    "when it's done.": "once it's gone through.",
    "Can I get your account number?": "Which account is this regarding?",
    "Yes, it is": "The number's",
    "So that's": "Just to confirm,",
    "is that correct?": "have I got that?",
    "Yes, that's right.": "Spot on.",
    "And your email address?": "Is there an email we can use?",
    "Let me read that back.": "I'll repeat that to be sure.",
    "Did I get that right?": "All correct?",
    "Yes.": "Yep, perfect.",
    "What's the best number to call you back on?": "If we get disconnected, where can I reach you?",
    "No, sorry,": "Hang on, I mean",
    "not": "rather than",
    "Got it. And your date of birth?": "Noted. And what's the date on your birth certificate?",
    "Let me read that back,": "And the account I have here is",
    "No, that's my old account. The new one is": "That one's closed, actually. Use",
    "Can I have your last name please?": "And the surname, letter by letter?",
    "And your email?": "What email should the reply go to?",
    "Who am I speaking with today?": "Who am I chatting with?",
    "Yes, and the last name is": "Correct, and then",
    "Thank you,": "Cheers,",
    "What's a good phone number for you?": "Which phone should we put down?",
    "Okay.": "Right.",
    "Uh huh.": "Mm hm, go on.",
    "And your street address?": "And where's the property?",
    "And the city?": "Which town is that in?",
    "And the zip code?": "And the postal code there?",
    "Where should we send the new router?": "Where's the engineer heading?",
    "I'm in": "We're over in",
    "at": "right on",
    "And is that in the": "And the country, is that",
    "Yes. The postcode again is": "Correct. Once more, the code's",
    "For the direct debit I need your bank details.": "To set up the monthly payment I'll need your banking information.",
    "Okay, my routing number is": "Got it here, the bank's transit number is",
    "and the account number is": "and after that the account's",
    "Thank you. And to verify, what's your PIN?": "Thanks. What's the four-digit security code?",
    "My PIN is": "That one's",
    "To open the account I need a photo ID. Do you have a driver's license?":
        "I'll need some identification. Can you read me your driving licence?",
    "Yes, the license number is": "Okay, on the card it says",
    "And a passport number, for the second ID?": "And something else with a number on it, a passport maybe?",
    "Sure, my passport number is": "Yes, here, the passport one is",
    "I spoke with your colleague": "I was told by one of your team, I think it was",
    "last week and she said it was fixed.": "that it had been sorted out.",
    "I'm sorry about that. Is the account in your name?": "That's frustrating, I understand. Whose name is on the account?",
    "No, it's in my husband's name,": "It's under my partner's name,",
    "He asked me to call.": "He's at work so I'm handling it.",
    "Okay. I'll note that": "Right, I'll record that",
    "spoke with you.": "was the last one you dealt with.",
    "Let me look at that for you. It will take about two minutes.": "Bear with me while I pull that up, just a minute or two.",
    "Sure, no problem. I've been a customer for about ten years.":
        "Take your time. We've had this account since about twenty twelve.",
    "Thank you for waiting. I see two payments on the third of the month.":
        "Thanks for holding. There are two payments, both on the fifteenth.",
}
REWORDED_SIXTH = {  # the sixth half, in words of none of the five halves before it; a tuple holds several ways
    "Can I have your full name please?": ("And the name on the account is?", "Could you tell me your whole name?"),
    "Yes, it's": ("Yeah, so", "Mm, that'd be"),
    "And your date of birth?": ("What's your birth date, please?", "And the date you were born?"),
    "Sure, it's": ("No problem,", "Yeah, okay,"),
    "What is the address on the account?": ("What's the best address to send it to?",
                                             "Where does the post go these days?"),
    "It's": ("Right, so", "Okay, that's", "Er,"),
    "And the best phone number to reach you?": ("Where can we get hold of you, phone-wise?",
                                                 "And what do you answer quickest, which number?"),
    "Oh, and before I forget, my new number is": "Quick thing first, my mobile's different now, put down",
    "so please update that.": "rather than the one you've got.",
    "Okay, I can do that.": "Will do, changing it now.",
    "Also, I moved recently, the new place is": "Oh and we're not at the old house any more, we're at",
    "Thank you.": "Brilliant, ta.",
    "And you can email the receipt to": "Any paperwork can come by email, to",
    "when it's done.": "whenever it's ready.",
    "Can I get your account number?": ("Could you give me the long number on the card?",
                                        "What's the number on your statement, top right?"),
    "Yes, it is": ("Yeah, hang on, here it is,", "Got the card here,"),
    "So that's": ("Reading it back,", "Just so I've got it,"),
    "is that correct?": ("does that sound right?", "yes?"),
    "Yes, that's right.": "Yeah, bang on.",
    "And your email address?": "Any email you'd like the updates at?",
    "Let me read that back.": "I'll say it back to you,",
    "Did I get that right?": "Is that it?",
    "Yes.": "Mm hm, that's it.",
    "What's the best number to call you back on?": "Just in case the line drops, which number do I ring?",
    "No, sorry,": "Oh wait, hold on, the end's",
    "not": "instead of",
    "Got it. And your date of birth?": "Lovely stuff. Now, your birthday and year please?",
    "Let me read that back,": "I'm showing your account as",
    "No, that's my old account. The new one is": "Oh, that's the one we shut down. It should be",
    "Can I have your last name please?": "What surname's printed on the statement?",
    "And your email?": "And where do I email you?",
    "Who am I speaking with today?": "Who's this calling, please?",
    "Yes, and the last name is": "Yeah, then the surname goes",
    "Thank you,": "Great, thanks",
    "What's a good phone number for you?": "Which number do we keep on record?",
    "Okay.": "Mhm.",
    "Uh huh.": "Yep, keep going.",
    "And your street address?": "What's the door number and road?",
    "And the city?": "Town or city?",
    "And the zip code?": "Postcode or ZIP, whichever applies?",
    "Where should we send the new router?": "Where do we post the replacement box to?",
    "I'm in": "We live in",
    "at": "and the house is",
    "And is that in the": "Just checking, that's in",
    "Yes. The postcode again is": "Yeah, and to repeat the code,",
    "For the direct debit I need your bank details.":
        "I can set the payments up automatically, I'll just need where they come from.",
    "Okay, my routing number is": "Alright, the bank's ABA number is",
    "and the account number is": "and my checking account is",
    "Thank you. And to verify, what's your PIN?": "Great. For the phone banking side, the passcode you picked?",
    "My PIN is": "I went with",
    "To open the account I need a photo ID. Do you have a driver's license?":
        "Before I can sign you up I've got to check ID. Have you got a licence to drive?",
    "Yes, the license number is": "Yeah, the number on the front's",
    "And a passport number, for the second ID?": "Then one more document, like a travel passport?",
    "Sure, my passport number is": "I have it in my bag, the number's",
    "I spoke with your colleague": "I'd already been through all this with someone called",
    "last week and she said it was fixed.": "and was promised on Tuesday it'd be dealt with.",
    "I'm sorry about that. Is the account in your name?": "Apologies for that. Are you the main holder on this?",
    "No, it's in my husband's name,": "No, my boyfriend holds it, he's",
    "He asked me to call.": "He's stuck on a shift, so I'm ringing.",
    "Okay. I'll note that": "Understood, I'm adding a note that",
    "spoke with you.": "handled it before.",
    "Let me look at that for you. It will take about two minutes.": "Give me a sec to have a look, shouldn't be long.",
    "Sure, no problem. I've been a customer for about ten years.":
        "No rush. We've stuck with you through three house moves, so.",
    "Thank you for waiting. I see two payments on the third of the month.":
        "Appreciate you holding on. I'm seeing a pair of debits, both around the twentieth.",
}
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
DIGIT = "zero one two three four five six seven eight nine".split()
COMPANIES = ["Cobalt Mobile", "Northwind Energy", "Harbor Insurance"]
PLANS = ["Premium Plus", "Family Saver", "Unlimited Gold"]

Part = tuple[str, "str | None"]  # (text, kind of personal data or None)
Turn = tuple[str, list[Part]]


class Person:
    """One caller's personal data, drawn from a half's lists."""

    def __init__(self, rng: random.Random, half: str):
        firsts, lasts, streets, places = POOLS[half]
        self.first, self.last = rng.choice(firsts), rng.choice(lasts)
        self.other = f"{rng.choice([f for f in firsts if f != self.first])} {rng.choice(lasts)}"
        month, day, year = rng.randrange(12), rng.randrange(1, 29), rng.randrange(1950, 2004)
        self.birth = rng.choice([f"{MONTHS[month]} {day}, {year}", f"{month + 1:02d}/{day:02d}/{year}",
                                 f"the {ordinal(day)} of {MONTHS[month]}, {year}"])
        self.house, self.street = str(rng.randrange(10, 9999)), rng.choice(streets)
        self.city, self.region, self.postcode, self.country = rng.choice(places)
        self.unit = rng.choice(["", f"apartment {rng.randrange(1, 40)}{rng.choice('ABC')}", f"unit {rng.randrange(2, 300)}"])
        self.domain = rng.choice(["gmail", "yahoo", "outlook", "hotmail"])
        self.phone = [digits(3, rng), digits(3, rng), digits(4, rng)]
        self.account, self.routing, self.pin = digits(8, rng), digits(9, rng), digits(4, rng)
        self.licence = f"{rng.choice('ABDKMS')} {digits(7, rng)}"
        self.passport = digits(9, rng)
        self.company, self.plan = rng.choice(COMPANIES), rng.choice(PLANS)

    def address(self, rng: random.Random) -> str:
        """The address said as a whole, its parts in one of several orders."""
        zip_said = self.postcode if not self.postcode.isdigit() else rng.choice([self.postcode, spoken(self.postcode)])
        street = f"{self.house} {self.street}" + (f", {self.unit}" if self.unit else "")
        return rng.choice([f"{street}, {self.city}, {self.region}, {zip_said}",
                           f"{street}, {self.city}, {self.region}, {zip_said}, {self.country}",
                           f"{street} in {self.city}, {zip_said}"])

    def email(self, rng: random.Random, spell: bool = False) -> str:
        first, last = self.first.lower(), self.last.lower().replace("'", "")
        if spell:
            return f"{letters(first)} dot {letters(last)} at {self.domain} dot com"
        return rng.choice([f"{first} dot {last} at {self.domain} dot com", f"{first}{last[0]} at {self.domain} dot com"])


def digits(n: int, rng: random.Random) -> str:
    return " ".join(DIGIT[rng.randrange(10)] for _ in range(n))


def spoken(number: str) -> str:
    return " ".join(DIGIT[int(c)] for c in number)


def letters(word: str) -> str:
    return " ".join(c.upper() for c in word if c.isalpha())


def ordinal(day: int) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def agent(*parts: Part) -> Turn:
    return ("Agent", list(parts))


def caller(*parts: Part) -> Turn:
    return ("Caller", list(parts))


HALF = ["dev"]  # the half whose calls are being written


def said(text: str) -> Part:
    """Other talk in the wording of the half being written; the sixth half's has several ways to say one thing,
    drawn by a generator of its own so that no other draw moves."""
    reworded = {"fresh": REWORDED, "last": REWORDED_LAST, "fifth": REWORDED_FIFTH,
                "sixth": REWORDED_SIXTH}.get(HALF[0], {})
    wording = reworded.get(text, text)
    return (wording if isinstance(wording, str) else WORDING_SIXTH[0].choice(wording), None)


def opening(p: Person) -> list[Turn]:
    return [agent(said(f"Thank you for calling {p.company}. How can I help you today?")),
            caller(said("Hi, I have a question about my bill."))]


def closing(p: Person, rng: random.Random) -> list[Turn]:
    """Talk with no personal data: amounts, weekdays, a plan and company name, durations."""
    amount = rng.choice(["forty nine dollars", "twenty five dollars and ninety nine cents", "$120"])
    day = rng.choice(["Monday", "Wednesday", "Friday"])
    return [agent(said(f"I see a charge of {amount} on your {p.plan} plan from last {day}.")),
            caller(said("Yes, that one. I was charged twice this month and I would like a refund please.")),
            agent(said(f"I have issued the refund. It should reach you in three to five business days. Is there "
                       f"anything else {p.company} can do for you today?")),
            caller(said("No, that is all. Thank you very much for your help."))]


def flow_turns(flow: str, p: Person, rng: random.Random) -> list[Turn]:
    """The turns of one flow, after the opening and before the closing."""
    name, email, address = f"{p.first} {p.last}", p.email(rng), p.address(rng)
    phone = ", ".join(p.phone)
    if flow == "asked":
        return [agent(said("Can I have your full name please?")), caller(said("Yes, it's"), (f"{name}.", "name")),
                agent(said("And your date of birth?")), caller(said("Sure, it's"), (f"{p.birth}.", "dateOfBirth")),
                agent(said("What is the address on the account?")), caller(said("It's"), (f"{address}.", "address")),
                agent(said("And the best phone number to reach you?")), caller((f"{phone}.", "phone"))]
    if flow == "volunteered":
        return [caller(said("Oh, and before I forget, my new number is"), (f"{phone},", "phone"),
                       said("so please update that.")),
                agent(said("Okay, I can do that.")),
                caller(said("Also, I moved recently, the new place is"), (f"{address}.", "address")),
                agent(said("Thank you.")),
                caller(said("And you can email the receipt to"), (f"{email}", "email"), said("when it's done."))]
    if flow == "read back":
        return [agent(said("Can I get your account number?")), caller(said("Yes, it is"), (f"{p.account}.", "account")),
                agent(said("So that's"), (f"{p.account},", "account"), said("is that correct?")),
                caller(said("Yes, that's right.")),
                agent(said("And your email address?")), caller(said("It's"), (f"{email}.", "email")),
                agent(said("Let me read that back."), (f"{email}.", "email"), said("Did I get that right?")),
                caller(said("Yes."))]
    if flow == "corrected":
        wrong = p.phone[:2] + [" ".join(reversed(p.phone[2].split()))]
        return [agent(said("What's the best number to call you back on?")),
                caller(said("It's"), (", ".join(wrong) + ".", "phone"), said("No, sorry,"),
                       (f"{p.phone[2]},", "phone"), said("not"), (f"{wrong[2]}.", "phone")),
                agent(said("Got it. And your date of birth?")), caller(said("It's"), (f"{p.birth}.", "dateOfBirth")),
                agent(said("Let me read that back,"), (f"{p.account}.", "account")),
                caller(said("No, that's my old account. The new one is"), (f"{p.account}.", "account"))]
    if flow == "spelled":
        return [agent(said("Can I have your last name please?")),
                caller(said("It's"), (f"{p.last}, {letters(p.last)}.", "name")),
                agent(said("And your email?")),
                caller(said("Sure, it's"), (f"{p.email(rng, spell=True)}.", "email"))]
    if flow == "spelled back":
        return [agent(said("Who am I speaking with today?")), caller((f"{name}.", "name")),
                agent(said("So that's"), (f"{letters(p.first)}?", "name")),
                caller(said("Yes, and the last name is"), (f"{letters(p.last)}.", "name")),
                agent(said("Thank you,"), (f"{p.first}.", "name"))]
    if flow == "split":
        return [agent(said("What's a good phone number for you?")), caller(said("It's"), (f"{p.phone[0]},", "phone")),
                agent(said("Okay.")), caller((f"{p.phone[1]},", "phone")), agent(said("Uh huh.")),
                caller((f"{p.phone[2]}.", "phone")),
                agent(said("And your street address?")), caller((f"{p.house} {p.street}.", "address")),
                agent(said("And the city?")), caller((f"{p.city}, {p.region}.", "address")),
                agent(said("And the zip code?")), caller((f"{p.postcode}.", "address"))]
    if flow == "address any order":
        zip_said = p.postcode if not p.postcode.isdigit() else spoken(p.postcode)
        unit = p.unit or "apartment 2"
        return [agent(said("Where should we send the new router?")),
                caller(said("I'm in"), (f"{p.city}, {p.region}, {zip_said},", "address"), said("at"),
                       (f"{p.house} {p.street}, {unit}.", "address")),
                agent(said("And is that in the"), (f"{p.country}?", "address")),
                caller(said("Yes. The postcode again is"), (f"{zip_said}.", "address"))]
    if flow == "banking":
        return [agent(said("For the direct debit I need your bank details.")),
                caller(said("Okay, my routing number is"), (f"{p.routing},", "bankRouting"),
                       said("and the account number is"), (f"{p.account}.", "account")),
                agent(said("Thank you. And to verify, what's your PIN?")),
                caller(said("My PIN is"), (f"{p.pin}.", "pin"))]
    if flow == "documents":
        return [agent(said("To open the account I need a photo ID. Do you have a driver's license?")),
                caller(said("Yes, the license number is"), (f"{p.licence}.", "driversLicense")),
                agent(said("And a passport number, for the second ID?")),
                caller(said("Sure, my passport number is"), (f"{p.passport}.", "passport"))]
    if flow == "third party":
        partners = {"fifth": OTHERS_FIFTH, "sixth": OTHERS_SIXTH}.get(HALF[0], POOLS_OTHER)
        colleague, partner = p.other, f"{rng.choice(partners)} {p.last}"
        return [caller(said("I spoke with your colleague"), (f"{colleague}", "name"),
                       said("last week and she said it was fixed.")),
                agent(said("I'm sorry about that. Is the account in your name?")),
                caller(said("No, it's in my husband's name,"), (f"{partner}.", "name"),
                       said("He asked me to call.")),
                agent(said("Okay. I'll note that"), (f"{colleague.split()[0]}", "name"), said("spoke with you."))]
    return [agent(said("Let me look at that for you. It will take about two minutes.")),
            caller(said("Sure, no problem. I've been a customer for about ten years.")),
            agent(said("Thank you for waiting. I see two payments on the third of the month."))]


POOLS_OTHER = ["David", "Michael", "Robert", "Thomas", "Joseph", "Kevin"]


# The fifth half: its own lists, value forms, voices and seven flows besides the twelve.
FLOWS_FIFTH = FLOWS + ("asked indirectly", "spelled as words", "postcode as words", "short answers",
                       "look-alike answers", "mid-sentence", "another person")
SEED_FIFTH = 6100
FIRSTS_FIFTH = ["Rose", "Will", "Hope", "Dawn", "Frank", "Ruby", "Siobhan", "Xavier", "Ngozi", "Ximena", "Rustam",
                "Penny"]
LASTS_FIFTH = ["Baker", "Hunter", "Field", "Stone", "Little", "Ashworth-Reid", "de la Cruz", "van der Meer", "Okonkwo",
               "Villanueva", "Przybylski", "Mason"]
STREETS_FIFTH = ["Larkspur Crescent", "Juniper Close", "Route 9", "County Road 12", "Thistle Gardens", "Bramble Row"]
UNITS_FIFTH = ["Suite 210", "Suite 14B", "flat 6", "basement flat", "second floor"]
PLACES_FIFTH = [  # city, state or region, postcode as two callers say it, country
    ("Beverly Hills", "California", ["nine oh two one oh", "nine oh two ten"], "United States"),
    ("San Francisco", "California", ["ninety-four one oh seven", "nine four one oh seven"], "United States"),
    ("Duluth", "Minnesota", ["double five eight oh two", "fifty-five eight oh two"], "United States"),
    ("Burlington", "Vermont", ["oh five four oh one", "zero five four zero one"], "United States"),
    ("Anchorage", "Alaska", ["double nine five oh one", "ninety-nine five oh one"], "United States"),
    ("Norwich", "Norfolk", ["N R two, four T J", "N R two four T J"], "England"),
    ("Galway", "Connacht", ["H nine one, E two K three", "H ninety-one, E two K three"], "Ireland"),
    ("Wollongong", "New South Wales", ["two five double oh", "twenty-five hundred"], "Australia"),
    ("Dunedin", "Otago", ["nine oh one six", "ninety sixteen"], "New Zealand"),
]
DOMAINS_FIFTH = ["fastmail dot net", "proton dot me", "icloud dot com", "aol dot com", "zoho dot eu",
                 "btinternet dot com", "eircom dot net", "bigpond dot com"]
COMPANIES_FIFTH = ["Bluefin Broadband", "Larkhill Power", "Meridian Home Cover"]
PLANS_FIFTH = ["Fibre Max", "Home Essentials", "Talk and Text Plus"]
OTHERS_FIFTH = ["Gareth", "Desmond", "Rory", "Ahmad", "Teodor", "Femi"]  # a partner in `third party`
HIS_FIFTH = ["Will", "Frank", "Xavier", "Rustam", *OTHERS_FIFTH]  # a son or husband in `another person`
HERS_FIFTH = ["Rose", "Hope", "Dawn", "Ruby", "Siobhan", "Ngozi", "Ximena", "Penny", "Bronwen", "Marisol"]
VOICES_FIFTH = [  # espeak-ng's arguments, accents and variants none of pii.py's VOICES uses ("en" is its British
    # English: "en-gb+m4" would drop the variant)
    ("-v", "en+m4", "-p", "40", "-s", "150"), ("-v", "en-gb-scotland+f1", "-p", "65", "-s", "145"),
    ("-v", "en-029+m2", "-p", "45", "-s", "160"), ("-v", "en-us-nyc+f3", "-p", "70", "-s", "165"),
    ("-v", "en-gb-x-rp+f5", "-p", "55", "-s", "140"), ("-v", "en-gb-x-gbclan+m7", "-p", "32", "-s", "155"),
    ("-v", "en-gb-x-gbcwmd+f2", "-p", "60", "-s", "150"), ("-v", "en-gb-scotland+m6", "-p", "38", "-s", "170"),
    ("-v", "en-029+f4", "-p", "75", "-s", "148"),
]
ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen").split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
ORDINALS = ("_ first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
            "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth").split()
AS_IN = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", (
    "apple boy cat dog egg fox golf house ink jam kite lion mother nut orange paper queen red sugar tiger "
    "umbrella van water x-ray yes zoo").split()))


def words(n: int) -> str:
    """0 to 99 in words: "seven", "forty-two"."""
    return ONES[n] if n < 20 else TENS[n // 10] + (f"-{ONES[n % 10]}" if n % 10 else "")


def ordinal_words(n: int) -> str:
    """1 to 31 as an ordinal in words: "fourth", "twenty-first"."""
    if n <= 20:
        return ORDINALS[n]
    return f"{TENS[n // 10]}-{ORDINALS[n % 10]}" if n % 10 else f"{TENS[n // 10][:-1]}ieth"


def pair(n: int) -> str:
    """Two digits as said in a date or a number: "oh four", "eighty-two"."""
    return ("oh " + (ONES[n] if n else "oh")) if n < 10 else words(n)


def year_words(year: int, rng: random.Random) -> str:
    """"nineteen eighty-two", "two thousand one" or "two thousand and one"."""
    if year < 2000:
        return f"nineteen {pair(year - 1900)}"
    return "two thousand" + (f" {rng.choice(['', 'and '])}{ONES[year - 2000]}" if year > 2000 else "")


def house_words(n: int) -> str:
    """A house or box number as said: "fourteen", "one oh five", "twenty-two ten"."""
    return words(n) if n < 100 else f"{ONES[n // 100]} {pair(n % 100)}" if n < 1000 else f"{words(n // 100)} {pair(n % 100)}"


def said_digits(ds: str, zero: str, double: bool) -> str:
    """Digits one by one, zero as `zero` ("oh" or "zero"), a digit twice in a row as "double" when `double`."""
    out, i = [], 0
    while i < len(ds):
        word = zero if ds[i] == "0" else ONES[int(ds[i])]
        twice = double and i + 1 < len(ds) and ds[i + 1] == ds[i]
        out.append(f"double {word}" if twice else word)
        i += 2 if twice else 1
    return " ".join(out)


def spelled(name: str) -> str:
    """Letters alone, a hyphen said, a space as a pause: "A S H W O R T H, hyphen, R E I D"."""
    return ", ".join(" ".join(c.upper() for c in part) if part != "-" else "hyphen"
                     for part in name.replace("-", " - ").split())


def spelled_as(name: str, rng: random.Random) -> str:
    """Each letter with a word: "B as in boy, A as in apple" or "B for boy, A for apple"."""
    link = rng.choice([" as in ", " for "])
    return ", ".join(f"{c}{link}{AS_IN[c]}" for c in name.upper() if c.isalpha())


class FifthPerson(Person):
    """One caller of the fifth half: its own lists, and numbers, dates and postcodes said in words."""

    def __init__(self, rng: random.Random):  # Person's attributes, drawn from other lists and said otherwise
        self.first, self.last = rng.choice(FIRSTS_FIFTH), rng.choice(LASTS_FIFTH)
        self.other = f"{rng.choice([f for f in FIRSTS_FIFTH if f != self.first])} {rng.choice(LASTS_FIFTH)}"
        self.zero, self.double = rng.choice(["oh", "zero"]), rng.random() < 0.5
        self.birth, self.year, self.month_day = self.born(rng)
        number = rng.choice([rng.randrange(2, 99), rng.randrange(100, 999), rng.randrange(1000, 9999)])
        self.house = rng.choice([str(number), house_words(number)])
        self.street, self.unit = rng.choice(STREETS_FIFTH), rng.choice(UNITS_FIFTH)
        self.box = house_words(rng.randrange(100, 9999))
        self.city, self.region, codes, self.country = rng.choice(PLACES_FIFTH)
        self.postcode, self.postcode_again = rng.sample(codes, 2)
        self.us = self.country == "United States"
        self.phone_digits = (digits_raw(10, rng) if self.us else
                             rng.choice(["07", "08", "04"]) + digits_raw(rng.choice([8, 9]), rng))
        head, mid, tail = ((self.phone_digits[:3], self.phone_digits[3:6], self.phone_digits[6:]) if self.us else
                           (self.phone_digits[:-6], self.phone_digits[-6:-3], self.phone_digits[-3:]))
        tail_said = (f"{pair(int(tail[:2]))} {pair(int(tail[2:]))}" if len(tail) == 4 and rng.random() < 0.5
                     else said_digits(tail, self.zero, False))
        self.phone = [said_digits(head, self.zero, self.double), said_digits(mid, self.zero, self.double), tail_said]
        self.account_digits = digits_raw(8, rng)
        self.account = said_digits(self.account_digits, self.zero, self.double)
        self.routing = said_digits(digits_raw(9, rng), self.zero, self.double)
        self.pin_digits = digits_raw(4, rng)
        self.pin = said_digits(self.pin_digits, self.zero, self.double)
        letter = lambda: rng.choice("BCFHJLNRTWX")
        dashed = " dash ".join(said_digits(digits_raw(3, rng), self.zero, False) for _ in range(3))
        self.licence = rng.choice([f"{letter()} {letter()} {said_digits(digits_raw(6, rng), self.zero, self.double)}",
                                   f"{letter()} {dashed}"])
        self.passport = rng.choice([f"P {letter()} {said_digits(digits_raw(7, rng), self.zero, self.double)}",
                                    ", ".join(said_digits(digits_raw(3, rng), self.zero, self.double) for _ in range(3))])
        first, last = self.first.lower(), "".join(c for c in self.last.lower() if c.isalpha())
        domain, year = rng.choice(DOMAINS_FIFTH), pair(self.year % 100)
        self.email_said = rng.choice([f"{first} underscore {last} at {domain}", f"{first[0].upper()} {last} {year} at {domain}",
                                      f"{last} underscore {first[0].upper()} {said_digits(digits_raw(2, rng), 'zero', False)}"
                                      f" at {domain}"])
        self.email_spelled = rng.choice([f"{letters(first)} underscore {letters(last)} at {domain}",
                                         f"{letters(first)} {letters(last)} {said_digits(str(self.year)[2:], 'zero', False)}"
                                         f" at {domain}"])
        self.company, self.plan = rng.choice(COMPANIES_FIFTH), rng.choice(PLANS_FIFTH)

    @staticmethod
    def born(rng: random.Random, years: range = range(1950, 2007)) -> tuple[str, int, str]:
        """A date of birth in one of several spoken forms, its year, and its month and day alone."""
        month, day, year = rng.randrange(12), rng.randrange(1, 29), rng.choice(years)
        said = rng.choice([f"{MONTHS[month]} {ordinal_words(day)}, {year_words(year, rng)}",
                           f"{pair(month + 1)}, {pair(day)}, {pair(year % 100)}",
                           f"the {ordinal_words(day)} of {MONTHS[month]}, {year_words(year, rng)}",
                           f"{day} {MONTHS[month]} {year}"])
        return said, year, f"{MONTHS[month]} {ordinal_words(day)}"

    def address(self, rng: random.Random) -> str:
        """The address said as a whole: with a suite or flat, from the city down, or a PO box."""
        street = f"{self.house} {self.street}"
        return rng.choice([f"{street}, {self.unit}, {self.city}, {self.region}, {self.postcode}",
                           f"{self.unit}, {street}, {self.city} {self.postcode}, {self.country}",
                           f"{self.city}, {self.region}, {street}, {self.postcode}",
                           f"PO Box {self.box}, {self.city}, {self.region} {self.postcode}"])

    def email(self, rng: random.Random, spell: bool = False) -> str:
        return self.email_spelled if spell else self.email_said


def digits_raw(n: int, rng: random.Random) -> str:
    return "".join(str(rng.randrange(10)) for _ in range(n))


def fifth_opening(p: FifthPerson, rng: random.Random) -> list[Turn]:
    return rng.choice([
        [agent(said(f"You're through to {p.company}, billing team. What can I do for you?")),
         caller(said("Hello, I'm ringing about a charge on my account."))],
        [agent(said(f"Good morning, {p.company}, how may I help?")),
         caller(said("Hi there, something's gone wrong with my last bill."))],
        [agent(said(f"{p.company} customer care, go ahead.")),
         caller(said("Yeah, hi, I've got a query about my statement."))]])


def fifth_turns(flow: str, p: FifthPerson, rng: random.Random) -> list[Turn]:
    """The turns of one of the fifth half's own flows, after the opening and before the closing."""
    name = f"{p.first} {p.last}"
    if flow == "asked indirectly":
        ask = rng.choice(["And who's the account holder?", "Who am I chatting with?", "And you are?",
                          "Who should I say is calling?"])
        answer = rng.choice([[(f"{name}.", "name")], [said("Oh, sorry,"), (f"{name}.", "name")],
                             [(f"{p.first},", "name"), said("and it's under"), (f"{name}.", "name")]])
        return [agent(said(ask)), caller(*answer),
                agent(said("Thanks. And whose name is on the card?")),
                caller(said("Mine, but it just says"), (f"{p.first[0]} {p.last}", "name"), said("on the front.")),
                agent(said("And anyone else who can talk to us about the account?")),
                caller(said("Just one other person,"), (f"{p.other}.", "name")),
                agent(said("How should I address you in the letter?")),
                caller(said("Just"), (f"{p.first}", "name"), said("is fine."))]
    if flow == "spelled as words":
        return [agent(said("Could you spell your surname for me?")),
                caller(said("Sure."), (f"{spelled(p.last)}.", "name")),
                agent(said("And the first name, with a word for each letter if you don't mind?")),
                caller((f"{spelled_as(p.first, rng)}.", "name")),
                agent(said("Let me check the surname the same way,"), (f"{spelled_as(p.last, rng)}?", "name")),
                caller(said("Exactly.")),
                agent(said("And the email, letter by letter?")),
                caller((f"{p.email(rng, spell=True)}.", "email"))]
    if flow == "postcode as words":
        code = "ZIP code" if p.us else "postcode"
        return [agent(said(f"What {code} is the property in?")), caller((f"{p.postcode}.", "address")),
                agent(said("Sorry, the line broke up, once more?")),
                caller((f"{p.postcode_again},", "address"), said("same as on the bill.")),
                agent(said("Got it,"), (f"{p.postcode}.", "address"), said("And which street in"), (f"{p.city}?", "address")),
                caller((f"{p.house} {p.street}.", "address"))]
    if flow == "short answers":
        asked = [("Surname?", p.last, "name"), ("First name?", p.first, "name"),
                 ("Year of birth?", words(p.year % 100) if p.year % 100 >= 10 else pair(p.year % 100), "dateOfBirth"),
                 ("And the day and month?", p.month_day, "dateOfBirth"),
                 ("The last three digits of your phone?", said_digits(p.phone_digits[-3:], p.zero, False), "phone"),
                 ("House number?", p.house, "address"), (f"And the {'ZIP' if p.us else 'postcode'}?", p.postcode, "address"),
                 ("Last four of the account?", said_digits(p.account_digits[-4:], p.zero, False), "account"),
                 ("And your PIN?", p.pin, "pin")]
        chosen = sorted(rng.sample(range(len(asked)), 5))
        turns = []
        for n, i in enumerate(chosen):
            question, answer, kind = asked[i]
            turns += [agent(said(question if n == 0 else f"{rng.choice(['Thanks.', 'Okay.', 'Great.'])} {question}")),
                      caller((f"{answer[0].upper()}{answer[1:]}.", kind))]
        return turns
    if flow == "look-alike answers":
        order = said_digits(digits_raw(6, rng), p.zero, False)
        asked = [("How many lines are on the account?", f"{ONES[rng.randrange(2, 6)].capitalize()}."),
                 ("Which plan are you on?", f"{p.plan}."),
                 ("What's the order number?", f"{order[0].upper()}{order[1:]}."),
                 ("Do you have the ticket number from last time?",
                  f"{said_digits(digits_raw(3, rng), p.zero, False).capitalize()}."),
                 ("How much did you pay last month?", f"{words(rng.randrange(21, 99)).capitalize()} fifty."),
                 ("How many devices are connected?", f"{ONES[rng.randrange(3, 9)].capitalize()}."),
                 ("What time suits you for the visit?", rng.choice(["Half past nine.", "Ten fifteen.", "After two."])),
                 ("How long have you been with us?", f"Since twenty {words(rng.randrange(10, 20))}."),
                 ("And the case reference?", f"C {said_digits(digits_raw(3, rng), p.zero, False)}."),
                 ("What speed are you getting?", f"About {words(rng.randrange(20, 90))} megs.")]
        chosen = sorted(rng.sample(range(len(asked)), 6))
        return [turn for i in chosen for turn in (agent(said(asked[i][0])), caller(said(asked[i][1])))]
    if flow == "mid-sentence":
        blocks = [
            [caller(said("So basically the letter went to"), (f"{p.address(rng)},", "address"),
                    said("which we left in the spring, and I'm"), (f"{name},", "name"), said("the one who pays it.")),
             agent(said("Oh dear, I see."))],
            [caller(said("Honestly, I gave"), (", ".join(p.phone), "phone"),
                    said("to the last person and nobody rang, so maybe try"), (p.email(rng), "email"),
                    said("instead.")),
             agent(said("I'm sorry about that."))],
            [caller(said("And I was born"), (p.birth, "dateOfBirth"), said("if you need that for the security bit,"
                                                                            " saves you asking.")),
             agent(said("That's kind, thank you."))]]
        rng.shuffle(blocks)
        return [turn for block in blocks for turn in block]
    if flow == "another person":
        child, pronoun, children = rng.choice([("son", "he", HIS_FIFTH), ("daughter", "she", HERS_FIFTH)])
        spouse, possessive, spouses = rng.choice([("wife", "Her", HERS_FIFTH), ("husband", "His", HIS_FIFTH)])
        child_name = f"{rng.choice([f for f in children if f != p.first])} {p.last}"
        spouse_name = rng.choice([f for f in spouses if f != p.first])
        spouse_name = rng.choice([spouse_name, f"{spouse_name} {p.last}"])
        child_birth = FifthPerson.born(rng, range(1998, 2007))[0]
        spouse_birth = FifthPerson.born(rng, range(1950, 1990))[0]
        other_phone = [said_digits(digits_raw(3, rng), p.zero, p.double) for _ in range(2)] + [
            said_digits(digits_raw(4, rng), p.zero, False)]
        return [caller(said(f"I'm calling for my {child},"), (f"{child_name},", "name"),
                       said(f"{pronoun}'s away at university and can't get to the phone.")),
                agent(said("That's fine if you're on the account. What's the date of birth we'd have?")),
                caller(said(f"For my {child}?"), (f"{child_birth}.", "dateOfBirth")),
                agent(said("Thank you. And is there anyone else on the account?")),
                caller(said(f"My {spouse},"), (f"{spouse_name}.", "name"), said(f"{possessive} birthday's"),
                       (f"{spouse_birth},", "dateOfBirth"), said("if you need it.")),
                agent(said("And a number for them?")),
                caller((", ".join(other_phone), "phone"), said("is the mobile."))]
    raise ValueError(f"no flow {flow!r}")


# The sixth half: its own lists, value forms, wording and voices, and the fifth half's nineteen flows.
SEED_SIXTH = 7300
WORDING_SIXTH = [random.Random(SEED_SIXTH + 1)]  # draws among the sixth half's ways of saying one thing
FIRSTS_SIXTH = ["Faith", "Jack", "Amber", "Grant", "Joy", "Holly", "Mark", "Saoirse", "Thandiwe", "Mateus", "Eamon",
                "Yusuf"]
LASTS_SIXTH = ["Gardner", "Mills", "Cook", "Rivers", "Wells", "Marsh", "O'Sullivan", "D'Souza", "Vaughan Williams",
               "Nakamura", "Abernethy", "Oyelaran"]
STREETS_SIXTH = ["Quarry Hill Road", "Tamarack Trail", "Rural Route 4", "Highway 61", "Saint Brigid's Terrace",
                 "Wattle Grove"]
UNITS_SIXTH = ["apartment 5F", "unit 12", "apartment three B", "unit two oh four", "lot 7", "the back cottage"]
PLACES_SIXTH = [  # city, state or region, postcode as two callers say it, country, what the code is called there
    ("Savannah", "Georgia", ["three one four oh one", "thirty-one four oh one"], "United States", "ZIP code"),
    ("Madison", "Wisconsin", ["five three seven oh three", "fifty-three seven oh three"], "United States", "ZIP code"),
    ("Santa Fe", "New Mexico", ["eight seven five oh one", "eighty-seven five oh one"], "United States", "ZIP code"),
    ("Bozeman", "Montana", ["five nine seven one five", "fifty-nine seven fifteen"], "United States", "ZIP code"),
    ("Brighton", "East Sussex", ["B N one, three X E", "B N one three X E"], "England", "postcode"),
    ("Exeter", "Devon", ["E X four, three S R", "E X four three S R"], "England", "postcode"),
    ("Winnipeg", "Manitoba", ["R three C, four T three", "R three C four T three"], "Canada", "postal code"),
    ("Saskatoon", "Saskatchewan", ["S seven K, one J five", "S seven K one J five"], "Canada", "postal code"),
    ("Cork", "County Cork", ["T twelve, X seven oh A", "T one two, X seven zero A"], "Ireland", "Eircode"),
    ("Hobart", "Tasmania", ["seven thousand", "seven oh oh oh"], "Australia", "postcode"),
    ("Cairns", "Queensland", ["four eight seven oh", "forty-eight seventy"], "Australia", "postcode"),
]
DOMAINS_SIXTH = [("posteo", "dot de"), ("hey", "dot com"), ("shaw", "dot ca"), ("optusnet", "dot com dot au"),
                 ("sky", "dot com"), ("comcast", "dot net"), ("virginmedia", "dot com"), ("gmx", "dot co dot uk")]
COMPANIES_SIXTH = ["Tidewater Telecom", "Kestrel Gas and Electric", "Summit Mutual Insurance"]
PLANS_SIXTH = ["Everyday Basic", "Gigabit Pro", "Silver Shield"]
OTHERS_SIXTH = ["Declan", "Fergus", "Imran", "Lachlan", "Bongani", "Wendell"]  # a partner in `third party`
HIS_SIXTH = ["Jack", "Grant", "Mark", "Mateus", "Eamon", "Yusuf", *OTHERS_SIXTH]  # a father or husband
HERS_SIXTH = ["Faith", "Amber", "Joy", "Holly", "Saoirse", "Thandiwe", "Maeve", "Lucinda", "Ingrid", "Paloma"]
SPELLED_SIXTH = ["Vaughan Williams", "O'Sullivan", None]  # the surnames of `spelled as words`, the last drawn
FOR_SIXTH = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", (  # a word per letter, none of the fifth half's
    "alpha bravo Charlie delta Edward Freddie George Harry India Juliet kilo London Mike Nellie Oscar Peter Quebec "
    "Romeo Sierra Tommy uniform Vincent whiskey xylophone yankee zulu").split()))
VOICES_SIXTH = [  # espeak-ng's arguments: accent and variant pairs none of the earlier halves uses
    ("-v", "en-gb-x-gbclan+f3", "-p", "62", "-s", "146"), ("-v", "en-us+klatt2", "-p", "46", "-s", "152"),
    ("-v", "en-gb-scotland+m5", "-p", "40", "-s", "150"), ("-v", "en-029+f5", "-p", "66", "-s", "142"),
    ("-v", "en-us-nyc+m8", "-p", "34", "-s", "158"), ("-v", "en-gb-x-rp+m1", "-p", "44", "-s", "147"),
    ("-v", "en+belinda", "-p", "58", "-s", "150"), ("-v", "en-gb-x-gbcwmd+klatt3", "-p", "52", "-s", "154"),
    ("-v", "en-us+steph", "-p", "64", "-s", "148"),
]


def digits_sixth(n: int, rng: random.Random) -> str:
    """`n` digits, a digit now and then the same as the one before (so that some are said "double" or "triple")."""
    out = str(rng.randrange(10))
    while len(out) < n:
        out += out[-1] if rng.random() < 0.3 else str(rng.randrange(10))
    return out


def runs_said(ds: str, zero: str) -> str:
    """Digits one by one, a digit said twice or three times in a row as "double" or "triple": "triple five oh"."""
    out, i = [], 0
    while i < len(ds):
        n = 1
        while i + n < len(ds) and ds[i + n] == ds[i] and n < 3:
            n += 1
        word = zero if ds[i] == "0" else ONES[int(ds[i])]
        out.append({1: word, 2: f"double {word}", 3: f"triple {word}"}[n])
        i += n
    return " ".join(out)


def pairs_said(ds: str) -> str:
    """Digits two at a time, a first one alone when their count is odd: "forty-one twenty-two", "oh seven"."""
    head = [ONES[int(ds[0])]] if len(ds) % 2 else []
    return " ".join(head + [pair(int(ds[i:i + 2])) for i in range(len(ds) % 2, len(ds), 2)])


def number_said(ds: str, sizes: tuple[int, ...], style: str, zero: str) -> str:
    """Digits in groups of `sizes`, a comma between groups, each said one by one ("plain"), with doubles and
    triples ("runs") or in pairs ("pairs"): "four five six, seven eight nine"."""
    groups, i = [], 0
    for size in sizes:
        groups.append(ds[i:i + size])
        i += size
    say = {"plain": lambda g: said_digits(g, zero, False), "runs": lambda g: runs_said(g, zero),
           "pairs": pairs_said}[style]
    return ", ".join(say(g) for g in groups)


def spelled_sixth(name: str) -> str:
    """Letters alone, an apostrophe and the space before a second word said: "O, apostrophe, S U L L I V A N"."""
    parts = []
    for word in name.split():
        said_word = " ".join("apostrophe," if c == "'" else f"{c.upper()}{',' if nxt == chr(39) else ''}"
                             for c, nxt in zip(word, word[1:] + " "))
        parts.append(said_word)
    return ", space, ".join(parts)


def spelled_for(name: str, rng: random.Random) -> str:
    """Each letter with a word of the sixth half's: "F for Freddie, A for alpha" or "F like Freddie"."""
    link = rng.choice([" for ", " like ", " for "])
    return ", ".join(f"{c}{link}{FOR_SIXTH[c]}" for c in name.upper() if c.isalpha())


class SixthPerson(Person):
    """One caller of the sixth half: its own lists, and numbers said with doubles, triples, groups and pairs."""

    def __init__(self, rng: random.Random, last: str | None = None):  # Person's attributes, from other lists
        self.first, self.last = rng.choice(FIRSTS_SIXTH), last or rng.choice(LASTS_SIXTH)
        self.other = f"{rng.choice([f for f in FIRSTS_SIXTH if f != self.first])} {rng.choice(LASTS_SIXTH)}"
        self.zero, self.style = rng.choice(["oh", "zero"]), rng.choice(["plain", "runs", "pairs"])
        self.birth, self.birth_short, self.year = self.born(rng)
        number = rng.choice([rng.randrange(2, 99), rng.randrange(100, 999), rng.randrange(1000, 9999)])
        self.house = rng.choice([str(number), house_words(number)])
        self.street, self.unit = rng.choice(STREETS_SIXTH), rng.choice(UNITS_SIXTH)
        self.city, self.region, codes, self.country, self.code_name = rng.choice(PLACES_SIXTH)
        self.postcode, self.postcode_again = rng.sample(codes, 2)
        self.phone, self.phone_tail = self.phone_said(rng)
        self.account_digits = digits_sixth(8, rng)
        self.account = number_said(self.account_digits, rng.choice([(4, 4), (8,), (3, 3, 2)]), self.style, self.zero)
        self.routing = number_said(digits_sixth(9, rng), (3, 3, 3), rng.choice(["plain", "runs"]), self.zero)
        self.pin = number_said(digits_sixth(4, rng), (4,), rng.choice(["runs", "pairs"]), self.zero)
        self.licence, self.passport = self.documents(rng)
        self.email_said, self.email_spelled = self.emails(rng)
        self.company, self.plan = rng.choice(COMPANIES_SIXTH), rng.choice(PLANS_SIXTH)

    @staticmethod
    def born(rng: random.Random, years: range = range(1945, 2007)) -> tuple[str, str, int]:
        """A date of birth in one of several spoken forms, the same as a short answer says it, and its year."""
        month, day, year = rng.randrange(12), rng.randrange(1, 29), rng.choice(years)
        yy = pair(year % 100) if year % 100 < 10 else words(year % 100)
        said = rng.choice([f"the {ordinal_words(day)} of the {ordinal_words(month + 1)}, {yy}",
                           f"{MONTHS[month]} {ordinal_words(day)}, {year_words(year, rng)}",
                           f"{words(month + 1)} {words(day)} {yy}",
                           f"{ordinal_words(day)} of {MONTHS[month]}, {yy}",
                           f"{MONTHS[month]} the {ordinal_words(day)}, {year_words(year, rng)}"])
        short = f"{ordinal_words(day)} of {MONTHS[month]}, {yy}"
        return said, short, year

    def phone_said(self, rng: random.Random) -> tuple[list[str], str]:
        """The phone number in three groups as the caller says it (the last never read the same backwards), and
        its last four digits."""
        home = {"United States": "", "Canada": "", "England": "07", "Ireland": "08", "Australia": "04"}[self.country]
        size = 10 - len(home) if not home else {"07": 9, "08": 8, "04": 8}[home]
        ds = home + str(rng.randrange(2, 10)) + digits_sixth(size - 1, rng)
        while ds[-4:] == ds[-4:][::-1]:
            ds = ds[:-1] + str(rng.randrange(10))
        head, mid, tail = ds[:-7], ds[-7:-4], ds[-4:]
        tail_said = pairs_said(tail) if self.style == "pairs" else said_digits(tail, self.zero, False)
        say = "plain" if self.style == "pairs" else self.style
        return [number_said(head, (len(head),), say, self.zero), number_said(mid, (3,), say, self.zero),
                tail_said], said_digits(tail, self.zero, False)

    def documents(self, rng: random.Random) -> tuple[str, str]:
        """A driving licence number (a letter and digits in groups, or a British one built on the surname) and a
        passport number (two letters and seven digits, or nine digits in threes)."""
        letter = lambda: rng.choice("CDGKMPSVY")
        surname = "".join(c for c in self.last.upper() if c.isalpha())[:5].ljust(5, "9")
        licence = rng.choice([f"{letter()}, {number_said(digits_sixth(9, rng), (3, 3, 3), self.style, self.zero)}",
                              f"{' '.join(surname)}, {number_said(digits_sixth(6, rng), (6,), 'runs', self.zero)},"
                              f" {self.first[0]} {letter()}"])
        passport = rng.choice([f"{letter()} {letter()} {number_said(digits_sixth(7, rng), (7,), 'runs', self.zero)}",
                               number_said(digits_sixth(9, rng), (3, 3, 3), self.style, self.zero)])
        return licence, passport

    def emails(self, rng: random.Random) -> tuple[str, str]:
        """The e-mail address said ("at", "dot", a part spelled after it) and spelled letter by letter."""
        first, last = self.first.lower(), "".join(c for c in self.last.lower() if c.isalpha())
        (host, tail), yy = rng.choice(DOMAINS_SIXTH), words(self.year % 100) if self.year % 100 >= 10 else "oh seven"
        said = rng.choice([f"{first} dot {last} at {host} {tail}",
                           f"{first} {last} {yy} at {host} {tail}",
                           f"{first[0].upper()} {last}, that's {letters(last)}, at {host} {tail}",
                           f"{last} dot {first} at {host}, {letters(host)}, {tail}"])
        spelled = rng.choice([f"{letters(first)} dot {letters(last)} at {letters(host)} {tail}",
                              f"{letters(first[0] + last)} {said_digits(str(self.year)[2:], 'zero', False)}"
                              f" at {host} {tail}"])
        return said, spelled

    def address(self, rng: random.Random) -> str:
        """The address said as a whole: a unit first or last, the country, or the street after the town."""
        street = f"{self.house} {self.street}"
        return rng.choice([f"{street}, {self.unit}, {self.city}, {self.region}, {self.postcode}",
                           f"{self.unit}, {street}, {self.city}, {self.postcode}, {self.country}",
                           f"{self.city}, {self.region}, {street}, {self.unit}",
                           f"{street} in {self.city}, {self.postcode}"])

    def email(self, rng: random.Random, spell: bool = False) -> str:
        return self.email_spelled if spell else self.email_said


def sixth_opening(p: SixthPerson, rng: random.Random) -> list[Turn]:
    return rng.choice([
        [agent(said(f"Hello, you've reached {p.company}, accounts desk. What's happened?")),
         caller(said("Hiya, there's a payment on here I don't recognise."))],
        [agent(said(f"{p.company}, billing, what seems to be the trouble?")),
         caller(said("Morning, I reckon I've been overcharged."))],
        [agent(said(f"{p.company} support, sorry about the wait.")),
         caller(said("Hello, the amount you took this month looks wrong to me."))]])


def sixth_closing(p: SixthPerson, rng: random.Random) -> list[Turn]:
    """Talk with no personal data, in the sixth half's words: an amount, a weekday, the plan and company."""
    amount = rng.choice(["sixty-two pounds forty", "eighty-five euros", "thirty-three dollars fifty",
                         "a hundred and four dollars"])
    day = rng.choice(["Tuesday", "Thursday", "Saturday"])
    return [agent(said(f"Right, there's {amount} for the {p.plan} package, taken on {day}.")),
            caller(said("That's the one. It came out twice, so I'd like one of them back.")),
            agent(said(f"Done, it'll land back with you inside a week. Anything more {p.company} can sort out?")),
            caller(said("Nope, that covers everything. Have a good one."))]


def sixth_turns(flow: str, p: SixthPerson, rng: random.Random, k: int) -> list[Turn]:
    """The turns of one of the fifth half's own flows in the sixth half's words, after the opening; the `k`th
    call of a flow asks its `k`th way where the ways must all be heard."""
    name = f"{p.first} {p.last}"
    if flow == "asked indirectly":
        ask = ["Who's the lucky person I'm speaking with?", "And the name on the account is?",
               "Who's this I'm talking to, sorry?"][k]
        answer = rng.choice([[(f"{name}.", "name")], [said("Oh, that's me,"), (f"{name}.", "name")],
                             [said("Well, I'm"), (f"{p.first},", "name"), said("full name"), (f"{name}.", "name")]])
        return [agent(said(ask)), caller(*answer),
                agent(said("And the card itself, what does that have printed?")),
                caller(said("Only an initial, so"), (f"{p.first[0]} {p.last}.", "name")),
                agent(said("Is anybody else allowed to manage things for you?")),
                caller(said("Yeah, my housemate,"), (f"{p.other}.", "name")),
                agent(said("And what do you prefer to be called?")),
                caller(said("Everyone calls me"), (f"{p.first}.", "name"))]
    if flow == "spelled as words":
        return [agent(said("How is the surname written?")),
                caller(said("Sure thing."), (f"{spelled_sixth(p.last)}.", "name")),
                agent(said("Then your given name, one word per letter?")),
                caller((f"{spelled_for(p.first, rng)}.", "name")),
                agent(said("I'll spell the surname back in that style,"), (f"{spelled_for(p.last, rng)}?", "name")),
                caller(said("You've got it.")),
                agent(said("Now the email, one letter at a time?")),
                caller((f"{p.email(rng, spell=True)}.", "email"))]
    if flow == "postcode as words":
        return [agent(said(f"Which {p.code_name} goes with that?")), caller((f"{p.postcode}.", "address")),
                agent(said("Sorry, you cut out, say again?")),
                caller((f"{p.postcode_again},", "address"), said("it's on the letter you sent.")),
                agent(said("Perfect,"), (f"{p.postcode}.", "address"), said("Which road is that on in"),
                      (f"{p.city}?", "address")),
                caller((f"{p.house} {p.street}.", "address"))]
    if flow == "short answers":
        asked = [("Date of birth?", p.birth_short, "dateOfBirth"), ("Second name?", p.last, "name"),
                 ("Given name?", p.first, "name"), ("Birth year?", year_words(p.year, rng), "dateOfBirth"),
                 ("End of your mobile number?", p.phone_tail, "phone"), ("Door number?", p.house, "address"),
                 (f"{p.code_name[0].upper()}{p.code_name[1:]}?", p.postcode, "address"),
                 ("Town?", p.city, "address"),
                 ("Account ending in?", said_digits(p.account_digits[-4:], p.zero, False), "account"),
                 ("Four-digit PIN?", p.pin, "pin")]
        chosen = sorted(rng.sample(range(len(asked)), 5))
        turns = []
        for n, i in enumerate(chosen):
            question, answer, kind = asked[i]
            turns += [agent(said(question if n == 0 else f"{rng.choice(['Brilliant.', 'Right then.', 'Got you.'])}"
                                                         f" {question}")),
                      caller((f"{answer[0].upper()}{answer[1:]}.", kind))]
        return turns
    if flow == "look-alike answers":
        asked = [("How many people live at the property?", f"{ONES[rng.randrange(2, 7)].capitalize()} of us."),
                 ("Which package have you got right now?", f"{p.plan}, I think."),
                 ("Have you got the order reference handy?",
                  f"Order {rng.choice('BHKW')} {number_said(digits_sixth(5, rng), (5,), 'runs', p.zero)}."),
                 ("What did the last bill come to?", f"{words(rng.randrange(21, 99)).capitalize()} forty."),
                 ("How many handsets come with the plan?", f"Just the {ONES[rng.randrange(2, 5)]}."),
                 ("What does the speed test say?", f"Around {words(rng.randrange(20, 99))} megabits."),
                 ("What's the reference on the complaint?",
                  f"Case {number_said(digits_sixth(4, rng), (4,), 'pairs', p.zero)}."),
                 ("When did it start?", rng.choice(["Last Thursday, around four.", "Sunday night.",
                                                    "A fortnight ago."])),
                 ("How many times have you rung about this?", rng.choice(["This is the third time.", "Twice before."])),
                 ("How many months are left on the contract?", f"{ONES[rng.randrange(2, 13)].capitalize()} months.")]
        chosen = sorted(rng.sample(range(len(asked)), 6))
        return [turn for i in chosen for turn in (agent(said(asked[i][0])), caller(said(asked[i][1])))]
    if flow == "mid-sentence":
        blocks = [
            [caller(said("The thing is, the engineer turned up at"), (f"{p.address(rng)}", "address"),
                    said("on the wrong day, and nobody told me.")),
             agent(said("That's not good enough, I'm sorry."))],
            [caller(said("My other half says just give you"), (", ".join(p.phone), "phone"),
                    said("and let you sort it, or drop a line to"), (p.email(rng), "email"), said("if that's easier.")),
             agent(said("Noted down."))],
            [caller(said("It comes out of"), (p.account, "account"), said("every month, always has, and I'm"),
                    (name, "name"), said("as it happens.")),
             agent(said("Okay, pulling you up now."))]]
        rng.shuffle(blocks)
        readback = [agent(said("Right, here you are,"), (f"{name},", "name"), said("born"),
                          (f"{p.birth},", "dateOfBirth"), said("living at"), (f"{p.address(rng)}.", "address")),
                    caller(said("Yep, all still current."))]
        return [turn for block in blocks for turn in block] + readback
    if flow == "another person":
        parent, pronoun, parents = rng.choice([("mum", "she", HERS_SIXTH), ("dad", "he", HIS_SIXTH)])
        partner, partners = rng.choice([("wife", HERS_SIXTH), ("husband", HIS_SIXTH)])
        parent_name = f"{rng.choice([f for f in parents if f != p.first])} {p.last}"
        partner_name = rng.choice([f for f in partners if f not in (p.first, parent_name.split()[0])])
        partner_name = rng.choice([partner_name, f"{partner_name} {rng.choice(LASTS_SIXTH)}"])
        parent_birth = SixthPerson.born(rng, range(1932, 1960))[0]
        partner_birth = SixthPerson.born(rng, range(1950, 1995))[0]
        other_phone = number_said(str(rng.randrange(2, 10)) + digits_sixth(9, rng), (3, 3, 4), p.style, p.zero)
        return [caller(said(f"It's about my {parent}'s account really,"), (f"{parent_name},", "name"),
                       said(f"{pronoun}'s not great on the phone these days.")),
                agent(said("I can help if you're listed. What birthday do we hold for them?")),
                caller(said(f"My {parent}'s is"), (f"{parent_birth}.", "dateOfBirth")),
                agent(said("Thanks. Anyone else listed alongside?")),
                caller(said(f"My {partner} was added last year,"), (f"{partner_name},", "name"),
                       said("birthday"), (f"{partner_birth}.", "dateOfBirth")),
                agent(said("Any phone for them as well?")),
                caller((other_phone, "phone"), said(f"gets my {partner} most days."))]
    raise ValueError(f"no flow {flow!r}")


def sixth_calls() -> list[dict]:
    """The sixth half's calls: three of each of the fifth half's nineteen flows."""
    HALF[0] = "sixth"
    rng, WORDING_SIXTH[0] = random.Random(SEED_SIXTH), random.Random(SEED_SIXTH + 1)
    out = []
    for flow in FLOWS_FIFTH:
        for k in range(CALLS_PER_FLOW):
            p = SixthPerson(rng, SPELLED_SIXTH[k] if flow == "spelled as words" else None)
            turns = flow_turns(flow, p, rng) if flow in FLOWS else sixth_turns(flow, p, rng, k)
            script = sixth_opening(p, rng) + turns + sixth_closing(p, rng)
            out.append({"id": f"sixth-{flow.replace(' ', '-')}-{k}", "flow": flow,
                        "voices": [list(voice) for voice in rng.sample(VOICES_SIXTH, 2)],
                        "script": [[speaker, [[text, kind] for text, kind in parts]] for speaker, parts in script]})
    return out


# The seventh half: its own lists, value forms, wording and voices, and the nineteen flows in words of its own.
SEED_SEVENTH = 8900
WORDING_SEVENTH = [random.Random(SEED_SEVENTH + 1)]  # draws among the seventh half's ways of saying one thing
FIRSTS_SEVENTH = {"Crystal": "f", "Sterling": "m", "Autumn": "f", "Clay": "m", "Hazel": "f", "Bill": "m",
                  "Anjali": "f", "Chidi": "m", "Folake": "f", "Hiroshi": "m", "Ji-woo": "f", "Katarzyna": "f",
                  "Bogdan": "m", "Guadalupe": "f", "Joaquin": "m", "Niamh": "f", "Oisin": "m"}
LASTS_SEVENTH = ["Swift", "Banks", "Price", "Bishop", "Cotton", "Young", "Iyer", "Chaudhry", "Achebe", "Boateng",
                 "Diallo", "Takahashi", "Zhou", "Wisniewski", "Kovalenko", "Echeverria", "Fitzgerald", "Ruiz Delgado",
                 "Bright-Owusu", "Carrington-Smythe"]
HIS_SEVENTH = [f for f, g in FIRSTS_SEVENTH.items() if g == "m"] + ["Obinna", "Radek", "Santiago", "Cormac", "Arjun",
                                                                   "Kenji", "Earnest"]
HERS_SEVENTH = [f for f, g in FIRSTS_SEVENTH.items() if g == "f"] + ["Patience", "Dorota", "Meera", "Grainne",
                                                                    "Ifeoma", "Luz"]
STREETS_SEVENTH = ["Magnolia Boulevard", "Heron Wharf", "Rowan Mews", "Sycamore Parade", "Bluebell Walk",
                   "Kingfisher Rise", "Pohutukawa Drive", "Tallowwood Avenue", "Seventeenth Avenue",
                   "Cloverfield Terrace"]
UNITS_SEVENTH = ["flat nine", "unit four B", "apartment twelve C", "unit eleven", "flat three A",
                 "the ground floor flat", "apartment seven oh two", "flat two, first floor"]
PLACES_SEVENTH = [  # city, state or county, the code as two callers say it, the code in two halves, country, what
    # the code is called there, what the region is called there
    ("Tulsa", "Oklahoma", ["seven four one oh three", "seventy-four one oh three"], ("seven four one", "oh three"),
     "United States", "ZIP code", "state"),
    ("Omaha", "Nebraska", ["six eight one oh two", "sixty-eight one oh two"], ("six eight one", "oh two"),
     "United States", "ZIP code", "state"),
    ("Asheville", "North Carolina", ["two eight eight oh one", "two double eight oh one"],
     ("two eight eight", "oh one"), "United States", "ZIP code", "state"),
    ("Providence", "Rhode Island", ["oh two nine oh three", "zero two nine zero three"], ("oh two nine", "oh three"),
     "United States", "ZIP code", "state"),
    ("Baton Rouge", "Louisiana", ["seven oh eight oh two", "seventy, eight oh two"], ("seven oh eight", "oh two"),
     "United States", "ZIP code", "state"),
    ("Bath", "Somerset", ["B A one, one L T", "B A one one L T"], ("B A one", "one L T"), "England", "postcode",
     "county"),
    ("Canterbury", "Kent", ["C T one, two E H", "C T one two E H"], ("C T one", "two E H"), "England", "postcode",
     "county"),
    ("Durham", "County Durham", ["D H one, three H P", "D H one three H P"], ("D H one", "three H P"), "England",
     "postcode", "county"),
    ("Moncton", "New Brunswick", ["E one C, four M three", "E one C four M three"], ("E one C", "four M three"),
     "Canada", "postal code", "province"),
    ("Charlottetown", "Prince Edward Island", ["C one A, seven N eight", "C one A seven N eight"],
     ("C one A", "seven N eight"), "Canada", "postal code", "province"),
    ("Ballarat", "Victoria", ["three three five oh", "thirty-three fifty"], ("thirty-three", "fifty"), "Australia",
     "postcode", "state"),
    ("Darwin", "Northern Territory", ["oh eight hundred", "zero eight zero zero"], ("oh eight", "double oh"),
     "Australia", "postcode", "territory"),
    ("Nelson", "Tasman", ["seven oh one oh", "seventy ten"], ("seventy", "ten"), "New Zealand", "postcode",
     "region"),
    ("Whangarei", "Northland", ["oh one one oh", "zero one one zero"], ("oh one", "one oh"), "New Zealand",
     "postcode", "region"),
    ("Limerick", "County Limerick", ["V nine four, T nine P X", "V ninety-four, T nine P X"], ("V nine four",
     "T nine P X"), "Ireland", "Eircode", "county"),
    ("Kilkenny", "County Kilkenny", ["R nine five, E two F three", "R ninety-five, E two F three"],
     ("R nine five", "E two F three"), "Ireland", "Eircode", "county"),
]
HOSTS_SEVENTH = [("rogers", "dot com"), ("verizon", "dot net"), ("talktalk", "dot net"), ("iinet", "dot net dot au"),
                 ("xtra", "dot co dot nz"), ("live", "dot ie"), ("tutanota", "dot com"), ("A T T", "dot net")]
COMPANIES_SEVENTH = ["Lodestar Water", "Brightwave Wireless", "Copperline Energy", "Ashgrove Home Insurance"]
PLANS_SEVENTH = ["Flexi Twelve", "Green Fixed", "Data Lite", "Platinum Cover"]
SPELLED_SEVENTH = ["Bright-Owusu", "Ruiz Delgado", None]  # the surnames of `spelled as words`, the last drawn
SHAPES_SEVENTH = [0, 1, 2]  # the e-mail shapes of `spelled`: a dot and digits, a dash, an underscore
AS_SEVENTH = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", (  # a word per letter, none of the fifth or sixth half's
    "Atlanta Boston Chicago Denver elephant foxtrot giraffe hotel igloo Jupiter kangaroo Lima Mexico November "
    "October papa quiet rabbit sunshine tango Utah violin window xenon yellow zebra").split()))
HEARD_AS = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "EDZBASJAYGQRNMUBKLFDOBUSIC"))  # a letter misheard as another
UNCLEAR = set("BCDFGMNPSTVZ")  # the letters a caller gives a word for when only some get one
VOICES_SEVENTH = [  # espeak-ng's arguments: accent and variant pairs, and variants, none of the earlier halves uses
    ("-v", "en-gb-x-rp+Andrea", "-p", "60", "-s", "148"), ("-v", "en-us-nyc+klatt4", "-p", "42", "-s", "156"),
    ("-v", "en-029+Michael", "-p", "38", "-s", "150"), ("-v", "en-gb-scotland+linda", "-p", "62", "-s", "144"),
    ("-v", "en-gb-x-gbcwmd+edward", "-p", "40", "-s", "152"), ("-v", "en-gb-x-gbclan+Annie", "-p", "64", "-s", "150"),
    ("-v", "en-us+travis", "-p", "44", "-s", "158"), ("-v", "en+klatt6", "-p", "50", "-s", "146"),
    ("-v", "en-gb-scotland+victor", "-p", "36", "-s", "154"), ("-v", "en-029+aunty", "-p", "58", "-s", "149"),
]


def talk7(*ways: str) -> Part:
    """Other talk in the seventh half's words: one of several ways of saying it, drawn by the half's own wording
    generator so that no value drawn moves."""
    return (WORDING_SEVENTH[0].choice(ways), None)


def way7(ways: list):
    """One of several ways of putting a turn or its parts, drawn by the wording generator."""
    return WORDING_SEVENTH[0].choice(ways)


def digits_seventh(n: int, rng: random.Random) -> str:
    """`n` digits, a digit now and then the same as the one before (said "double" or "triple")."""
    out = str(rng.randrange(10))
    while len(out) < n:
        out += out[-1] if rng.random() < 0.28 else str(rng.randrange(10))
    return out


def zero_pair(n: int, zero: str) -> str:
    """Two digits as one number, a leading zero said: "oh four", "nought nought", "thirty-one"."""
    return f"{zero} {ONES[n] if n else zero}" if n < 10 else words(n)


def group_seventh(ds: str, style: str, zero: str) -> str:
    """One group of digits: one by one ("plain"), with doubles and triples ("runs"), or two at a time ("pairs":
    "forty-one twenty-two", "seventy-seven hundred", "four thousand")."""
    if style == "plain":
        return " ".join(zero if d == "0" else ONES[int(d)] for d in ds)
    if style == "runs":
        return runs_said(ds, zero)
    if len(ds) == 4 and ds[0] != "0" and ds[1:] == "000":
        return f"{ONES[int(ds[0])]} thousand"
    if len(ds) == 4 and ds[0] != "0" and ds[2:] == "00":
        return f"{words(int(ds[:2]))} hundred"
    head = [zero if ds[0] == "0" else ONES[int(ds[0])]] if len(ds) % 2 else []
    return " ".join(head + [zero_pair(int(ds[i:i + 2]), zero) for i in range(len(ds) % 2, len(ds), 2)])


def number_seventh(ds: str, sizes: tuple[int, ...], style: str, zero: str) -> list[str]:
    """Digits in groups of `sizes`, each group said in `style` ("mixed": doubles and triples, the last in pairs)."""
    groups, i = [], 0
    for size in sizes:
        groups.append(ds[i:i + size])
        i += size
    return [group_seventh(g, ("pairs" if n == len(groups) - 1 else "runs") if style == "mixed" else style, zero)
            for n, g in enumerate(groups)]


def year_full(year: int, and_word: bool) -> str:
    """"nineteen seventy-nine", "nineteen oh five", "two thousand and three"."""
    if year < 2000:
        return f"nineteen {zero_pair(year - 1900, 'oh')}"
    return "two thousand" + (f"{' and' if and_word else ''} {ONES[year - 2000]}" if year > 2000 else "")


def date_seventh(month: int, day: int, year: int, form: int, zero: str, and_word: bool) -> tuple[str, str]:
    """A date in one of eight spoken forms, and its year as that form says it."""
    yy = zero_pair(year % 100, zero) if year % 100 < 10 else words(year % 100)
    full, name = year_full(year, and_word), MONTHS[month]
    said = [f"the {ordinal_words(day)} of {name}, {yy}", f"{words(month + 1)} {words(day)} {yy}",
            f"{name} {ordinal_words(day)}, {full}", f"{words(day)} {name} {full}",
            f"{zero_pair(day, zero)}, {zero_pair(month + 1, zero)}, {full}", f"{full}, {name} the {ordinal_words(day)}",
            f"the {ordinal_words(day)} of the {ordinal_words(month + 1)}, {full}", f"{name} {words(day)}, {yy}"][form]
    return said, yy if form in (0, 1, 7) else full


def house_seventh(n: int, rng: random.Random, zero: str) -> str:
    """A house number in words: "twenty-two", "three hundred and twelve", "one oh five", "twenty-two ten"."""
    if n < 100:
        return words(n)
    if n < 1000:
        return rng.choice([f"{ONES[n // 100]} {zero_pair(n % 100, zero)}",
                           f"{ONES[n // 100]} hundred" + (f" and {words(n % 100)}" if n % 100 else "")])
    return f"{words(n // 100)} {zero_pair(n % 100, zero)}" if n % 100 else f"{words(n // 100)} hundred"


def spell_seventh(name: str, joint: str) -> str:
    """Letters alone, a hyphen said as `joint` ("dash" or "hyphen"), a space as "space": "R U I Z, space, D E L..."."""
    return ", ".join(" ".join(c.upper() for c in part) if part not in "- " else (joint if part == "-" else "space")
                     for part in name.replace("-", "|-|").replace(" ", "| |").split("|"))


def spell_as_seventh(name: str, link: str, every: bool) -> str:
    """Each letter with a word ("C as in Chicago", "C for Chicago"), or only the unclear ones ("C for Chicago, H,
    I, D for Denver, I")."""
    return ", ".join(f"{c}{link}{AS_SEVENTH[c]}" if every or c in UNCLEAR else c for c in name.upper() if c.isalpha())


class SeventhPerson(Person):
    """One caller of the seventh half: its own lists, and numbers, dates, houses and codes said in words."""

    def __init__(self, rng: random.Random, last: str | None = None, shape: int | None = None):  # Person's
        # attributes, from other lists; `last` and the e-mail's `shape` given where a flow must hear them all
        self.first, self.last = rng.choice(list(FIRSTS_SEVENTH)), last or rng.choice(LASTS_SEVENTH)
        self.gender = FIRSTS_SEVENTH[self.first]
        self.other = f"{rng.choice([f for f in FIRSTS_SEVENTH if f != self.first])} {rng.choice(LASTS_SEVENTH)}"
        (self.city, self.region, codes, self.halves, self.country, self.code_name,
         self.region_name) = rng.choice(PLACES_SEVENTH)
        self.postcode, self.postcode_again = rng.sample(codes, 2)
        british = self.country in ("England", "Ireland", "Australia", "New Zealand")
        self.zero = rng.choice(["oh", "zero", "nought"] if british else ["oh", "zero"])
        self.style = rng.choice(["plain", "runs", "pairs", "mixed"])
        self.and_word = rng.random() < 0.5
        self.birth, self.year_said, self.birth_wrong, self.year = self.born(rng)
        number = rng.choice([rng.randrange(2, 99), rng.randrange(100, 999), rng.randrange(1000, 9999)])
        self.house = house_seventh(number, rng, self.zero)
        self.street, self.unit = rng.choice(STREETS_SEVENTH), rng.choice(UNITS_SEVENTH)
        self.phone, self.phone_wrong, self.phone_last4 = self.phone_said(rng)
        self.account, self.account_wrong, self.account_last4 = self.bank(rng)
        self.routing_name, self.routing = self.routing_said(rng)
        self.pin = " ".join(number_seventh(digits_seventh(4, rng), (4,), rng.choice(["runs", "pairs"]), self.zero))
        self.licence_name, self.licence, self.passport = self.documents(rng)
        self.email_user, self.email_domain, self.email_spelled = self.emails(rng, shape)
        self.email_said = f"{self.email_user} at {self.email_domain}"
        self.wrong_domain = " ".join(rng.choice([h for h in HOSTS_SEVENTH if " ".join(h) != self.email_domain]))
        self.company, self.plan = rng.choice(COMPANIES_SEVENTH), rng.choice(PLANS_SEVENTH)

    def born(self, rng: random.Random, years: range = range(1944, 2007)) -> tuple[str, str, str, int]:
        """A date of birth in one of eight spoken forms, its year as said, the same date with a wrong year, and
        the year."""
        month, day, year, form = rng.randrange(12), rng.randrange(1, 29), rng.choice(years), rng.randrange(8)
        said, year_said = date_seventh(month, day, year, form, self.zero, self.and_word)
        wrong = year + rng.choice([-10, 10, -1, 1]) if year < 1997 else year - rng.choice([10, 1])
        return said, year_said, date_seventh(month, day, wrong, form, self.zero, self.and_word)[0], year

    def phone_said(self, rng: random.Random) -> tuple[list[str], list[str], str]:
        """The phone number in three groups as the caller says it, the same with two digits of the last group
        swapped, and its last four digits said one by one."""
        head, sizes = {"United States": ("", (3, 3, 4)), "Canada": ("", (3, 3, 4)), "England": ("07", (5, 3, 3)),
                       "Ireland": ("08", (3, 3, 4)), "Australia": ("04", (4, 3, 3)),
                       "New Zealand": ("02", (3, 3, 4))}[self.country]
        ds = head + str(rng.randrange(2, 10)) + digits_seventh(10 - len(head) - 1 if head != "07" else 8, rng)
        while len(set(ds[-sizes[-1]:])) < 2:
            ds = ds[:-1] + str(rng.randrange(10))
        tail = ds[-sizes[-1]:]
        i = next(i for i in range(len(tail) - 1) if tail[i] != tail[i + 1])
        wrong = ds[:-len(tail)] + tail[:i] + tail[i + 1] + tail[i] + tail[i + 2:]
        return (number_seventh(ds, sizes, self.style, self.zero), number_seventh(wrong, sizes, self.style, self.zero),
                " ".join(self.zero if d == "0" else ONES[int(d)] for d in ds[-4:]))

    def bank(self, rng: random.Random) -> tuple[str, str, str]:
        """The account number as said, an old one, and its last four digits."""
        size, sizes = {"United States": (10, (4, 3, 3)), "Canada": (7, (3, 4)), "England": (8, (4, 4)),
                       "Ireland": (8, (4, 4)), "Australia": (9, (3, 3, 3)), "New Zealand": (9, (7, 2))}[self.country]
        ds, old = digits_seventh(size, rng), digits_seventh(size, rng)
        return (", ".join(number_seventh(ds, sizes, self.style, self.zero)),
                ", ".join(number_seventh(old, sizes, self.style, self.zero)),
                " ".join(self.zero if d == "0" else ONES[int(d)] for d in ds[-4:]))

    def routing_said(self, rng: random.Random) -> tuple[str, str]:
        """What the bank's code is called in the caller's country, and the code as said."""
        name, size, sizes, style = {
            "United States": ("routing number", 9, (3, 3, 3), self.style),
            "Canada": ("transit number", 8, (5, 3), "runs"), "England": ("sort code", 6, (2, 2, 2), "pairs"),
            "Ireland": ("sort code", 6, (2, 2, 2), "pairs"), "Australia": ("B S B", 6, (3, 3), "plain"),
            "New Zealand": ("bank and branch", 6, (2, 4), "pairs")}[self.country]
        return name, ", ".join(number_seventh(digits_seventh(size, rng), sizes, style, self.zero))

    def documents(self, rng: random.Random) -> tuple[str, str, str]:
        """The driving licence's name in the caller's country, its number and a passport number, as said."""
        letter = lambda: rng.choice("ABEHJKLNRTW")
        say = lambda n, sizes: ", ".join(number_seventh(digits_seventh(n, rng), sizes, self.style, self.zero))
        surname = "".join(c for c in self.last.upper() if c.isalpha())[:5].ljust(5, "9")
        licence = {
            "United States": ("driver's license", f"{letter()}, {say(7, (3, 4))}", say(9, (3, 3, 3))),
            "Canada": ("driver's licence", f"{letter()} {say(4, (4,))}, dash, {say(5, (5,))}, dash, {say(5, (5,))}",
                       f"{letter()} {letter()}, {say(6, (3, 3))}"),
            "England": ("driving licence", f"{' '.join(surname)}, {say(6, (6,))}, {self.first[0]} {letter()},"
                                           f" {ONES[rng.randrange(10)]}, {letter()} {letter()}", say(9, (3, 3, 3))),
            "Ireland": ("driving licence", say(9, (3, 3, 3)), f"{letter()} {letter()}, {say(7, (7,))}"),
            "Australia": ("driver licence", say(8, (4, 4)), f"{letter()} {letter()}, {say(7, (3, 4))}"),
            "New Zealand": ("driver licence", f"{letter()} {letter()}, {say(6, (3, 3))}",
                            f"{letter()} {letter()}, {say(6, (6,))}")}[self.country]
        return licence

    def emails(self, rng: random.Random, shape: int | None) -> tuple[str, str, str]:
        """The e-mail address as said (before and after "at") and spelled letter by letter, in one of five shapes
        (drawn unless `shape` is given)."""
        first = "".join(c for c in self.first.lower() if c.isalpha())
        last = " ".join("".join(c for c in part if c.isalpha()) for part in self.last.lower().replace("-", " ").split())
        glued = last.replace(" ", "")
        host, tail = rng.choice(HOSTS_SEVENTH)
        yy = words(self.year % 100) if self.year % 100 >= 10 else zero_pair(self.year % 100, "oh")
        drawn = rng.randrange(5)  # drawn even where given, so that a given shape moves no later draw
        shape = drawn if shape is None else shape
        user = [f"{first} dot {last} {yy}", f"{last} dash {first[0].upper()}", f"{first[0].upper()} underscore {last}",
                f"{first} {last}", first][shape]
        domain = f"{glued} dot me" if shape == 4 else f"{host} {tail}"
        spelled = [f"{letters(first)}, dot, {letters(glued)}, {said_digits(str(self.year)[2:], 'zero', False)}",
                   f"{letters(glued)}, dash, {first[0].upper()}", f"{first[0].upper()}, underscore, {letters(glued)}",
                   f"{letters(first)} {letters(glued)}", letters(first)][shape]
        spelled_domain = f"{letters(glued)} dot me" if shape == 4 else rng.choice([f"{host} {tail}",
                                                                                    f"{letters(host)} {tail}"])
        return user, domain, f"{spelled}, at {spelled_domain}"

    def address_parts(self, rng: random.Random, end: str = ".", reading: bool = False) -> list[Part]:
        """The address as a caller says it, in one of several orders, a forgotten flat added after, the talk between
        its parts not marked; as the agent `reading` it back says it, street first and the flat not forgotten."""
        street = f"{self.house} {self.street}"
        form = rng.choice([0, 1] if reading else [0, 1, 2, 3])
        if form == 0:
            return [(f"{self.unit}, {street}, {self.city}, {self.region}, {self.postcode}{end}", "address")]
        if form == 1:
            return [(f"{street}, {self.unit}, {self.city}, {self.region},", "address"),
                    talk7(f"{self.code_name}", f"and the {self.code_name}'s"), (f"{self.postcode}{end}", "address")]
        if form == 2:
            return [(f"{street}, {self.city}, {self.region}, {self.postcode}.", "address"),
                    talk7("Oh, and it's", "Sorry, I forgot, it's"), (f"{self.unit}{end}", "address")]
        return [(f"{self.city}, {self.region}, {self.postcode},", "address"),
                talk7("and the house is", "the address is"),
                (f"{self.unit}, {street}{end}", "address")]


def seventh_opening(p: SeventhPerson, rng: random.Random) -> list[Turn]:
    return rng.choice([
        [agent(talk7(f"{p.company}, you're through to accounts. What can I help with?")),
         caller(talk7("Hi, I think there's a mistake on my latest bill.", "Hello, my last bill doesn't add up."))],
        [agent(talk7(f"Good afternoon, {p.company}. What's the call about today?")),
         caller(talk7("Hello, I've been charged for something I never ordered.",
                      "Hi, there's a charge I don't understand."))],
        [agent(talk7(f"Hi there, {p.company} customer services, thanks for holding.")),
         caller(talk7("Hi, yeah, my direct debit went out twice.", "Hiya, you've taken the payment twice."))],
        [agent(talk7(f"{p.company}, how can I help this morning?")),
         caller(talk7("Morning, I've got a query about a payment.", "Morning, I need to sort out a payment."))]])


def seventh_closing(p: SeventhPerson, rng: random.Random) -> list[Turn]:
    """Talk with no personal data, in the seventh half's words: an amount, a weekday, the plan and company."""
    amount = rng.choice(["seventy-one pounds twenty", "fifty-six dollars", "ninety-nine euros ninety-nine",
                         "a hundred and twelve dollars", "forty-four pounds", "eighty-three dollars fifteen"])
    day = rng.choice(["Monday", "Wednesday", "Friday", "Sunday"])
    return [agent(talk7(f"I can see {amount} on the {p.plan} tariff, taken last {day}.",
                        f"There's a payment of {amount} for {p.plan}, dated last {day}.")),
            caller(talk7("Yes, that's the one that came out twice.", "That's it, it's gone out two times.")),
            agent(talk7(f"I've put one of them back, allow five working days. Anything else {p.company} can help with?",
                        "That's reversed now, three to five days. Is there anything else I can do for you?")),
            caller(talk7("No, that's everything, thanks a lot.", "That's it, cheers, bye now."))]


def seventh_turns(flow: str, p: SeventhPerson, rng: random.Random, k: int) -> list[Turn]:
    """The turns of one of the nineteen flows in the seventh half's words, after the opening; the `k`th call of
    `asked indirectly` asks its `k`th way."""
    name, phone = f"{p.first} {p.last}", ", ".join(p.phone)
    if flow == "asked":
        return [agent(talk7("Could I start with your name, first and last?", "Can I grab your full name to begin with?",
                            "Let's start with the name on the account.")),
                caller(*way7([[(f"{name}.", "name")], [talk7("Yeah, it's", "Sure,"), (f"{name}.", "name")],
                              [talk7("Hi, yes, my name's", "So I'm"), (f"{name},", "name"),
                               talk7("I've been with you for years.", "I look after the bills at home.")]])),
                agent(talk7("And when's your birthday, year included?", "What date of birth would we have for you?",
                            "Next, your date of birth please.")),
                caller(*way7([[talk7("I was born on", "That's"), (f"{p.birth}.", "dateOfBirth")],
                              [(f"{p.birth}.", "dateOfBirth")]])),
                agent(talk7(f"And the full address, {p.code_name} and all?",
                            "Where are you living now, the whole address?",
                            "Can you take me through the address, flat number included?")),
                caller(talk7("We're at", "It's", "Okay, so"), *p.address_parts(rng)),
                agent(talk7("And which number's best for a callback?", "What phone number should I pop on the account?",
                            "And a contact number, mobile if you've got one?")),
                caller(*way7([[talk7("My mobile's", "Best to use"), (f"{phone}.", "phone")],
                              [(f"{phone},", "phone"), talk7("that's my mobile.", "it's a mobile.")]]))]
    if flow == "volunteered":
        return [caller(talk7("Before anything else, I've got a new phone, the number's",
                             "Oh, while I think of it, my number's changed, it's now"), (f"{phone},", "phone"),
                       talk7("the old one's gone.", "so please bin the old one.")),
                agent(talk7("No problem, I'll swap that over.", "Right, I've changed it on here.")),
                caller(talk7("And we've moved as well, the new place is", "We've also moved house, we're now at"),
                       *p.address_parts(rng)),
                agent(talk7("Lovely, thanks for letting me know.", "Got that, thank you.")),
                caller(talk7("Oh, and anything in writing can go to", "Receipts by email please, to"),
                       (f"{p.email_said}", "email"), talk7("if that's okay.", "rather than the post.")),
                agent(talk7("Of course.", "Will do.")),
                caller(talk7("And you'll want my birthday for security, it's", "In case you ask, I was born"),
                       (f"{p.birth}.", "dateOfBirth"))]
    if flow == "read back":
        return [agent(talk7("What's the account number you're ringing about?",
                            "Can you read me the account number off your bill?")),
                caller(talk7("Got it here,", "Yep, it's", "One sec, right,"), (f"{p.account}.", "account")),
                agent(talk7("Let me repeat that,", "So I've got"), (f"{p.account},", "account"),
                      talk7("yeah?", "is that right?", "correct?")),
                caller(talk7("That's it.", "Yes, that's the one.", "Yep, all good.")),
                agent(talk7("And an email for the confirmation?", "What email do you want it sent to?")),
                caller((f"{p.email_said}.", "email")),
                agent(talk7("Reading that back,", "Let me check I've got it,"),
                      (f"{p.email_user} at {p.wrong_domain}?", "email")),
                caller(talk7("Almost, it's at", "Not quite, that's at"), (f"{p.email_domain},", "email"), talk7("not"),
                       (f"{p.wrong_domain}.", "email")),
                agent(talk7("Ah, sorry, so", "My mistake, so"), (f"{p.email_said}.", "email")),
                caller(talk7("That's right.", "Perfect, yes."))]
    if flow == "corrected":
        return [agent(talk7("If we get cut off, which number should I ring?", "What's the best callback number?")),
                caller(talk7("It's", "Okay,"), (", ".join(p.phone_wrong) + ",", "phone"),
                       talk7("oh no, hang on, the end's", "sorry, scratch that, the last bit's"),
                       (f"{p.phone[-1]},", "phone"),
                       talk7("not"), (f"{p.phone_wrong[-1]}.", "phone")),
                agent(talk7("Got it. And your date of birth?", "Thanks. And what's your birthday?")),
                caller((f"{p.birth_wrong},", "dateOfBirth"), talk7("oh, what am I saying,", "no wait, sorry,"),
                       (f"{p.year_said}.", "dateOfBirth")),
                agent(talk7("The account number on my screen is", "I've got the account down as"),
                      (f"{p.account_wrong}.", "account")),
                caller(talk7("No, that's the old account, the new one is", "That's an old one, it should be"),
                       (f"{p.account}.", "account"))]
    if flow == "spelled":
        joint = rng.choice(["dash", "hyphen"])
        return [agent(talk7("How do you spell the surname?", "Could you spell your last name for me?")),
                caller((f"{p.last}, {spell_seventh(p.last, joint)}.", "name")),
                agent(talk7("And your first name, how's that written?", "Then the first name, spelled out?")),
                caller(talk7("It's", "That's"), (f"{p.first}, {spell_seventh(p.first, joint)}.", "name")),
                agent(talk7("And the email, letter by letter if you would?", "Could you spell out the email too?")),
                caller((f"{p.email_spelled}.", "email"))]
    if flow == "spelled back":
        plain = [c.upper() for c in p.last if c.isalpha()]
        i = rng.randrange(len(plain))
        right, wrong = plain[i], HEARD_AS[plain[i]]
        misheard = " ".join(plain[:i] + [wrong] + plain[i + 1:])
        return [agent(talk7("And your name, please?", "Who's calling today, please?")), caller((f"{name}.", "name")),
                agent(talk7("Is that"), (f"{letters(p.first)}?", "name")),
                caller(talk7("Yes, and the surname's", "That's it, then"), (f"{' '.join(plain)}.", "name")),
                agent(talk7("So"), (f"{misheard}?", "name")),
                caller(talk7("Close, but it's", "Not quite, it's"), (f"{right} as in {AS_SEVENTH[right]},", "name"),
                       talk7("not"), (f"{wrong}.", "name")),
                agent(talk7("Sorry about that. Thanks,", "Got it now, thanks,"), (f"{p.first}.", "name"))]
    if flow == "split":
        first, second = p.halves
        return [agent(talk7("What's the best number for you?", "Can I take a phone number?")),
                caller(talk7("Sure,", "It's"), (f"{p.phone[0]},", "phone")), agent(talk7("Mm-hm.", "Yep.")),
                caller((f"{p.phone[1]},", "phone")), agent(talk7("Go on.", "Uh-huh.")),
                caller((f"{p.phone[2]}.", "phone")),
                agent(talk7("And the house number and street?", "And the street address?")),
                caller((f"{p.house} {p.street}.", "address")),
                agent(talk7("Any flat or unit number?", "Is there a flat number?")), caller((f"{p.unit}.", "address")),
                agent(talk7(f"Town and {p.region_name}?", f"And the town, and the {p.region_name}?")),
                caller((f"{p.city}, {p.region}.", "address")),
                agent(talk7(f"And the {p.code_name}?")), caller((f"{first},", "address")),
                agent(talk7("Yep.", "Mm-hm.")),
                caller((f"{second}.", "address"))]
    if flow == "address any order":
        street = f"{p.house} {p.street}"
        said = way7([
            [talk7("We're out in", "It's in"), (f"{p.city}, {p.region}, {p.postcode},", "address"), talk7("at"),
             (f"{p.unit}, {street}.", "address")],
            [(f"{p.postcode},", "address"), talk7("that's"), (f"{p.city}, {p.region},", "address"),
             talk7("and the street is"), (f"{street}, {p.unit}.", "address")],
            [(f"{p.unit}, {street},", "address"), talk7("and that's in"), (f"{p.country},", "address"),
             (f"{p.city}, {p.region}, {p.postcode}.", "address")]])
        return [agent(talk7("Where should the engineer go?", "Where are we sending the new meter?")), caller(*said),
                agent(talk7("And is that in"), (f"{p.country}?", "address")),
                caller(talk7(f"Yes, and once more, the {p.code_name}'s", "That's right, the code again is"),
                       (f"{p.postcode_again}.", "address"))]
    if flow == "banking":
        return [agent(talk7("To set up the direct debit I'll need your bank details.",
                            "For the monthly payments, which bank account should we use?")),
                caller(talk7(f"Right, the {p.routing_name} is", f"Okay, {p.routing_name} first,"),
                       (f"{p.routing},", "bankRouting"), talk7("and the account is", "then the account number,"),
                       (f"{p.account}.", "account")),
                agent(talk7("Thanks. And the PIN you set up for phone payments?",
                            "Lovely. And your four-digit security number?")),
                caller(talk7("It's", "That's"), (f"{p.pin}.", "pin"))]
    if flow == "documents":
        return [agent(talk7(f"I'll need to check some ID. Have you got your {p.licence_name} to hand?",
                            f"Can I take the number off your {p.licence_name}?")),
                caller(talk7("Yes, the number on it is", "Yep, here, it says"), (f"{p.licence}.", "driversLicense")),
                agent(talk7("And your passport number, please?", "Now the passport, just the number.")),
                caller(talk7("Okay, it's", "Hang on, it's in the drawer, here,"), (f"{p.passport}.", "passport"))]
    if flow == "third party":
        word, pronoun, pool = rng.choice([("husband", "He", HIS_SEVENTH), ("wife", "She", HERS_SEVENTH),
                                          ("partner", "They", HIS_SEVENTH + HERS_SEVENTH)])
        partner = f"{rng.choice([f for f in pool if f != p.first])} {rng.choice([p.last, rng.choice(LASTS_SEVENTH)])}"
        return [caller(*way7([[talk7("I've already been through this with someone called",
                                     "I already rang and spoke to"),
                               (f"{p.other},", "name"), talk7("on Monday, and it's still not sorted.")],
                              [talk7("Your colleague"), (f"{p.other}", "name"),
                               talk7("told me last week it was fixed, and it isn't.")]])),
                agent(talk7("Sorry about that. And whose account is this?", "I do apologise. Is the account yours?")),
                caller(talk7(f"It's under my {word}'s name,", f"It's my {word}'s, actually,"), (f"{partner}.", "name"),
                       talk7(f"{pronoun} asked me to call.", f"{pronoun} can't get to the phone.")),
                agent(talk7("Okay, I'll add a note that", "Right, I'm noting that"), (f"{p.other.split()[0]}", "name"),
                      talk7("dealt with it before.", "looked at it last time."))]
    if flow == "none":
        return [agent(talk7("One moment while I look into it, about ninety seconds.",
                            "Give me two ticks to check that.")),
                caller(talk7("No worries. We've been with you since the nineties.",
                             "That's fine, I've got ten minutes before the school run.",
                             "Sure. I've been on hold for twenty minutes already, so.")),
                agent(talk7("Right, I can see three payments, on the first, the eighth and the fifteenth.",
                            "Okay, there are two charges of twelve fifty, a week apart."))]
    if flow == "asked indirectly":
        ask, answers = [
            ("Who am I chatting to this afternoon?",
             [[talk7("Hiya, it's", "You've got"), (f"{name}.", "name")],
              [(f"{p.first},", "name"), talk7("surname"), (f"{p.last}.", "name")]]),
            ("And whose account is this?",
             [[talk7("Mine, I'm", "It's in my name,"), (f"{name}.", "name")],
              [talk7("It's mine, it'll be under"), (f"{p.last},", "name"), (f"{p.first} {p.last}.", "name")]]),
            ("Can I take a name for the booking?",
             [[talk7("Put it under", "Book it for"), (f"{name}.", "name")],
              [talk7("Yeah, go with"), (f"{p.last},", "name"), talk7("first name"), (f"{p.first}.", "name")]])][k]
        return [agent(talk7(ask)), caller(*way7(answers)),
                agent(talk7("And the name as it's printed on your card?",
                            "How does the name appear on the bank card?")),
                caller(talk7("It just has", "Only"), (f"{p.first[0]} {p.last}", "name"), talk7("on it.")),
                agent(talk7("Is anyone else allowed to speak for the account?",
                            "Anybody else we can discuss it with?")),
                caller(talk7("My sister can,", "Yeah, my flatmate,", "Just my brother,"), (f"{p.other}.", "name")),
                agent(talk7("And what would you like us to call you?", "How do you like to be addressed?")),
                caller(talk7("Call me", "Oh, just"), (f"{p.first},", "name"),
                       talk7("no need to be formal.", "that's grand."))]
    if flow == "spelled as words":
        link = rng.choice([" as in ", " for "])
        return [agent(talk7("Would you spell the surname with words, so I don't get it wrong?",
                            "Can you do the surname letter by letter, a word for each?")),
                caller((f"{spell_as_seventh(p.last, link, True)}.", "name")),
                agent(talk7("And the first name the same way?", "Lovely, and the first name?")),
                caller((f"{spell_as_seventh(p.first, link, rng.random() < 0.5)}.", "name")),
                agent(talk7("Let me read the surname back,", "So the surname is"),
                      (f"{spell_seventh(p.last, 'hyphen')}?", "name")),
                caller(talk7("That's the one.", "Correct, yeah.", "Yes, all of it.")),
                agent(talk7("And the email, spelled out?", "And could you spell the email for me?")),
                caller((f"{p.email_spelled}.", "email"))]
    if flow == "postcode as words":
        return [agent(talk7(f"What's the {p.code_name} there?", f"And which {p.code_name} is that?")),
                caller((f"{p.postcode}.", "address")),
                agent(talk7("Sorry, the line's breaking up, one more time?", "Say that again for me?")),
                caller((f"{p.postcode_again},", "address"), talk7("same as on the envelope.", "if that helps.")),
                agent(talk7("So"), (f"{p.postcode},", "address"), talk7("that's"),
                      (f"{p.city}, {p.region}.", "address"),
                      talk7("And the house number and street?", "And which street?")),
                caller((f"{p.house} {p.street}, {p.unit}.", "address"))]
    if flow == "short answers":
        region = f"{p.region_name[0].upper()}{p.region_name[1:]}?"
        asked = [("Birth date?", p.birth, "dateOfBirth"), ("Family name?", p.last, "name"),
                 ("Forename?", p.first, "name"),
                 ("Just the year you were born?", year_full(p.year, p.and_word), "dateOfBirth"),
                 ("Last four of the mobile?", p.phone_last4, "phone"), ("Number of the house?", p.house, "address"),
                 (f"The {p.code_name}?", p.postcode, "address"), (region, p.region, "address"),
                 ("Account ends in?", p.account_last4, "account"), ("Security PIN?", p.pin, "pin")]
        chosen = sorted(rng.sample(range(len(asked)), 5))
        turns = []
        for n, i in enumerate(chosen):
            question, answer, kind = asked[i]
            turns += [agent(talk7(question) if n == 0 else talk7(f"Ta. {question}", f"Okay, good. {question}",
                                                                 f"Cheers. {question}")),
                      caller((f"{answer[0].upper()}{answer[1:]}.", kind))]
        return turns
    if flow == "look-alike answers":
        meter = " ".join(number_seventh(digits_seventh(5, rng), (5,), "plain", p.zero))
        job = " ".join(number_seventh(digits_seventh(4, rng), (4,), "pairs", p.zero))
        asked = [("How many bedrooms is the property?", f"{ONES[rng.randrange(2, 6)].capitalize()} bedrooms."),
                 ("Which tariff are you on?", f"{p.plan}, I believe."),
                 ("What's the meter reading?", f"{meter[0].upper()}{meter[1:]}."),
                 ("Have you got the job reference from the engineer?",
                  f"Job {rng.choice('DFGKQ')} {job}."),
                 ("How much was the bill?", f"{words(rng.randrange(21, 99)).capitalize()} pounds odd."),
                 ("How many people are on the plan?", f"{ONES[rng.randrange(2, 7)].capitalize()} of us."),
                 ("What time did it cut out?", rng.choice(["About twenty past seven.", "Just before midnight.",
                                                           "Quarter to six."])),
                 ("How long has it been like this?", rng.choice(["Since the second week of March.", "Three days now.",
                                                                 "About a month.", "Since the weekend."])),
                 ("What year did you sign up?", f"Twenty {words(rng.randrange(10, 24))}, I think."),
                 ("How much data do you use a month?", f"Around {words(rng.randrange(20, 90))} gigs.")]
        chosen = sorted(rng.sample(range(len(asked)), 6))
        return [turn for i in chosen for turn in (agent(talk7(asked[i][0])), caller(talk7(asked[i][1])))]
    if flow == "mid-sentence":
        blocks = [
            [caller(talk7("So the bill went to", "The letters keep going to"), *p.address_parts(rng, ","),
                    talk7("which we left in August, and it's me,", "where we haven't lived since spring, and I'm"),
                    (f"{name},", "name"), talk7("who's been paying it.", "the one on the account.")),
             agent(talk7("Oh no, I'm sorry.", "That's not right, is it."))],
            [caller(talk7("I must have given", "I've read out"), (phone, "phone"),
                    talk7("to three different people, so honestly just email me at", "a dozen times, just write to"),
                    (p.email_said, "email"), talk7("instead.", "from now on.")),
             agent(talk7("Understood.", "I'll make sure of that."))],
            [caller(talk7("And the money comes out of", "It's taken from"), (p.account, "account"),
                    talk7("every month, so it's not like I've missed a payment.", "like clockwork, always on time.")),
             agent(talk7("Yes, I can see that.", "Okay, let me look."))]]
        rng.shuffle(blocks)
        readback = [agent(talk7("Okay, I've got you here,", "Right, so on screen,"), (f"{name},", "name"),
                          talk7("date of birth", "born"), (f"{p.birth},", "dateOfBirth"), talk7("at", "living at"),
                          *p.address_parts(rng, reading=True)),
                    caller(talk7("That's all correct.", "Yes, all still right."))]
        return [turn for block in blocks for turn in block] + readback
    if flow == "another person":
        rel, pronoun, pool, years = rng.choice([("grandmother", "she", HERS_SEVENTH, range(1930, 1950)),
                                                ("father", "he", HIS_SEVENTH, range(1940, 1965)),
                                                ("son", "he", HIS_SEVENTH, range(1995, 2007)),
                                                ("daughter", "she", HERS_SEVENTH, range(1995, 2007))])
        spouse, spouses = rng.choice([("wife", HERS_SEVENTH), ("husband", HIS_SEVENTH)])
        other_name = f"{rng.choice([f for f in pool if f != p.first])} {p.last}"
        spouse_name = rng.choice([f for f in spouses if f not in (p.first, other_name.split()[0])])
        spouse_name = rng.choice([spouse_name, f"{spouse_name} {rng.choice(LASTS_SEVENTH)}"])
        other_birth = p.born(rng, years)[0]
        spouse_birth = p.born(rng, range(1950, 1995))[0]
        other_phone = ", ".join(number_seventh(str(rng.randrange(2, 10)) + digits_seventh(9, rng), (3, 3, 4), p.style,
                                               p.zero))
        return [caller(talk7(f"I'm ringing on behalf of my {rel},", f"It's about my {rel}'s account,"),
                       (f"{other_name},", "name"),
                       talk7(f"{pronoun}'s in hospital at the moment.", f"{pronoun} can't hear well on the phone.")),
                agent(talk7("I can help if you're authorised. What's their date of birth?",
                            "If you're on the account I can help. Their birthday, please?")),
                caller(talk7(f"My {rel}'s? It's", f"Let me think, my {rel} was born"),
                       (f"{other_birth}.", "dateOfBirth")),
                agent(talk7("And is anybody else named on it?", "Anyone else on the account?")),
                caller(talk7(f"Yes, my {spouse},", f"My {spouse} as well,"), (f"{spouse_name},", "name"),
                       talk7("born", "birthday"), (f"{spouse_birth}.", "dateOfBirth")),
                agent(talk7("Do you have a contact number for them?", "And a phone number for them?")),
                caller((other_phone, "phone"), talk7("is the landline at theirs.", "gets them most evenings."))]
    raise ValueError(f"no flow {flow!r}")


def seventh_calls() -> list[dict]:
    """The seventh half's calls: three of each of the nineteen flows, in words of its own."""
    rng, WORDING_SEVENTH[0] = random.Random(SEED_SEVENTH), random.Random(SEED_SEVENTH + 1)
    out = []
    for flow in FLOWS_FIFTH:
        for k in range(CALLS_PER_FLOW):
            p = SeventhPerson(rng, SPELLED_SEVENTH[k] if flow == "spelled as words" else None,
                              SHAPES_SEVENTH[k] if flow == "spelled" else None)
            script = seventh_opening(p, rng) + seventh_turns(flow, p, rng, k) + seventh_closing(p, rng)
            out.append({"id": f"seventh-{flow.replace(' ', '-')}-{k}", "flow": flow,
                        "voices": [list(voice) for voice in rng.sample(VOICES_SEVENTH, 2)],
                        "script": [[speaker, [[text, kind] for text, kind in parts]] for speaker, parts in script]})
    return out


# The eighth half: its own lists, value forms, wording and voices, and the nineteen flows in words of its own.
SEED_EIGHTH = 2650
WORDING_EIGHTH = [random.Random(SEED_EIGHTH + 1)]  # draws among the eighth half's ways of saying one thing
FIRSTS_EIGHTH = {"Robin": "m", "Summer": "f", "Heath": "m", "Ivy": "f", "Pearl": "f", "Miles": "m", "Sandy": "f",
                 "Wade": "m", "Tendai": "m", "Lindiwe": "f", "Aroha": "f", "Wiremu": "m", "Anneke": "f", "Pieter": "m",
                 "Rania": "f", "Farhan": "m", "Linh": "f", "Dmitri": "m", "Ciara": "f", "Tadhg": "m"}
LASTS_EIGHTH = ["Fisher", "Brooks", "Shepherd", "Frost", "Lamb", "Hart", "Glass", "Moon", "Mokoena", "Nkosi", "Ngata",
                "Tran", "Hosseini", "Volkov", "Kaur", "Adeleke", "Lindgren", "MacAllister", "van Wyk", "du Plessis",
                "Te Rangi", "Al-Sayed", "Whitcombe-Hale", "Lloyd-Jones"]
HIS_EIGHTH = [f for f, g in FIRSTS_EIGHTH.items() if g == "m"] + ["Thabo", "Hemi", "Ruairi", "Anton", "Reza", "Duc",
                                                                 "Forrest"]
HERS_EIGHTH = [f for f, g in FIRSTS_EIGHTH.items() if g == "f"] + ["Nomvula", "Mere", "Orla", "Marlies", "Shirin",
                                                                  "Huong", "Blossom"]
STREETS_EIGHTH = ["Larchmont Avenue", "Foxglove Close", "Jacaranda Crescent", "Kowhai Street", "Protea Road",
                  "Fenwick Lane", "Ashcombe Square", "Saint Kevin's Park", "Beaconsfield Parade", "Forty-Second Street",
                  "Hollyhock Drive", "Paddock Lane"]
UNITS_EIGHTH = ["flat twenty-one", "unit six, block C", "apartment four hundred and two", "flat B",
                "unit nine, second floor", "apartment sixteen D", "the granny flat out the back", "flat one, top floor"]
PLACES_EIGHTH = [  # city, state, county, province or region, the code as two callers say it, the code in two halves,
    # country, what the code is called there, what the region is called there
    ("Lexington", "Kentucky", ["four oh five oh seven", "forty, five oh seven"], ("four oh five", "oh seven"),
     "United States", "ZIP code", "state"),
    ("Des Moines", "Iowa", ["five oh three oh nine", "fifty, three oh nine"], ("five oh three", "oh nine"),
     "United States", "ZIP code", "state"),
    ("Charleston", "South Carolina", ["two nine four oh one", "twenty-nine four oh one"], ("two nine four", "oh one"),
     "United States", "ZIP code", "state"),
    ("Hartford", "Connecticut", ["oh six one oh three", "zero six one zero three"], ("oh six one", "oh three"),
     "United States", "ZIP code", "state"),
    ("Fargo", "North Dakota", ["five eight one oh two", "fifty-eight one oh two"], ("five eight one", "oh two"),
     "United States", "ZIP code", "state"),
    ("Harrogate", "North Yorkshire", ["H G one, two R Q", "H G one two R Q"], ("H G one", "two R Q"),
     "England", "postcode", "county"),
    ("Shrewsbury", "Shropshire", ["S Y one, one S J", "S Y one one S J"], ("S Y one", "one S J"), "England",
     "postcode", "county"),
    ("Aberdeen", "Aberdeenshire", ["A B ten, one X G", "A B one oh, one X G"], ("A B ten", "one X G"), "Scotland",
     "postcode", "county"),
    ("Whitehorse", "Yukon", ["Y one A, two C six", "Y one A two C six"], ("Y one A", "two C six"), "Canada",
     "postal code", "territory"),
    ("Corner Brook", "Newfoundland and Labrador", ["A two H, six J three", "A two H six J three"],
     ("A two H", "six J three"), "Canada", "postal code", "province"),
    ("Yellowknife", "Northwest Territories", ["X one A, two L nine", "X one A two L nine"], ("X one A", "two L nine"),
     "Canada", "postal code", "territory"),
    ("Fremantle", "Western Australia", ["six one six oh", "sixty-one sixty"], ("sixty-one", "sixty"), "Australia",
     "postcode", "state"),
    ("Mount Gambier", "South Australia", ["five two nine oh", "fifty-two ninety"], ("fifty-two", "ninety"),
     "Australia", "postcode", "state"),
    ("Canberra", "Australian Capital Territory", ["two six oh one", "twenty-six oh one"], ("twenty-six", "oh one"),
     "Australia", "postcode", "territory"),
    ("Rotorua", "Bay of Plenty", ["three oh one oh", "thirty ten"], ("thirty", "ten"), "New Zealand", "postcode",
     "region"),
    ("Napier", "Hawke's Bay", ["four one one oh", "forty-one ten"], ("forty-one", "ten"), "New Zealand", "postcode",
     "region"),
    ("Invercargill", "Southland", ["nine eight one oh", "ninety-eight ten"], ("ninety-eight", "ten"), "New Zealand",
     "postcode", "region"),
    ("Waterford", "County Waterford", ["X nine one, K two T eight", "X ninety-one, K two T eight"],
     ("X nine one", "K two T eight"), "Ireland", "Eircode", "county"),
    ("Tralee", "County Kerry", ["V nine two, H three P six", "V ninety-two, H three P six"],
     ("V nine two", "H three P six"), "Ireland", "Eircode", "county"),
    ("Sligo", "County Sligo", ["F nine one, W four R two", "F ninety-one, W four R two"], ("F nine one", "W four R two"),
     "Ireland", "Eircode", "county"),
    ("Stellenbosch", "Western Cape", ["seven six hundred", "seven six oh oh"], ("seventy-six", "hundred"),
     "South Africa", "postal code", "province"),
    ("Durban", "KwaZulu-Natal", ["four oh oh one", "forty oh one"], ("forty", "oh one"), "South Africa",
     "postal code", "province"),
    ("Bloemfontein", "Free State", ["nine three oh one", "ninety-three oh one"], ("ninety-three", "oh one"),
     "South Africa", "postal code", "province"),
]
HOSTS_EIGHTH = [("mweb", "dot co dot za"), ("ymail", "dot com"), ("orcon", "dot net dot nz"), ("sympatico", "dot ca"),
                ("cox", "dot net"), ("westnet", "dot com dot au"), ("blueyonder", "dot co dot uk"),
                ("indigo", "dot ie"), ("hushmail", "dot com")]
COMPANIES_EIGHTH = ["Ironbark Networks", "Silverfern Gas", "Pelican Rock Assurance", "Quillpoint Internet"]
PLANS_EIGHTH = ["Night Owl Bundle", "Starter Prepay", "Solar Smart", "Ultrafast Sixty", "Contents Premier"]
ADDONS_EIGHTH = ["Sports Extra", "Device Care", "International Minutes", "Boiler Breakdown Care"]
SPELLED_EIGHTH = ["Whitcombe-Hale", "du Plessis", None]  # the surnames of `spelled as words`, the last drawn
SHAPES_EIGHTH = [0, 3, 1]  # the e-mail shapes of `spelled`: all one word, an initial and digits, the surname
# and an initial
AS_EIGHTH = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", (  # a word per letter, none of an earlier half's
    "anchor banana candle donkey Easter feather guitar honey Italy jelly king lemon monkey Norway octopus pizza quilt "
    "robot saucepan tomato uncle velvet wagon Xbox yogurt zigzag").split()))
UNCLEAR_EIGHTH = set("BCDFMNPSTVZ")  # the letters a caller gives a word for when only some get one
MISHEARD_DIGIT = dict(zip("0123456789", "4763098135"))  # a digit an agent mishears as another
CURRENCY_EIGHTH = {"United States": "dollars", "Canada": "dollars", "England": "pounds", "Scotland": "pounds",
                   "Ireland": "euros", "Australia": "dollars", "New Zealand": "dollars", "South Africa": "rand"}
VOICES_EIGHTH = [  # espeak-ng's arguments: accent and variant pairs, and variants, none of the earlier halves uses
    ("-v", "en-gb-x-rp+grandpa", "-p", "41", "-s", "143"), ("-v", "en-us-nyc+Alicia", "-p", "63", "-s", "151"),
    ("-v", "en-029+paul", "-p", "43", "-s", "147"), ("-v", "en-gb-scotland+steph2", "-p", "61", "-s", "153"),
    ("-v", "en-gb-x-gbcwmd+anika", "-p", "57", "-s", "145"), ("-v", "en-gb-x-gbclan+robert", "-p", "39", "-s", "157"),
    ("-v", "en-us+grandma", "-p", "59", "-s", "141"), ("-v", "en+Mike", "-p", "47", "-s", "155"),
    ("-v", "en-gb-scotland+quincy", "-p", "37", "-s", "149"), ("-v", "en-029+shelby", "-p", "56", "-s", "152"),
    ("-v", "en-us-nyc+max", "-p", "45", "-s", "159"),
]


def talk8(*ways: str) -> Part:
    """Other talk in the eighth half's words: one of several ways of saying it, drawn by the half's own wording
    generator so that no value drawn moves."""
    return (WORDING_EIGHTH[0].choice(ways), None)


def way8(ways: list):
    """One of several ways of putting a turn or its parts, drawn by the wording generator."""
    return WORDING_EIGHTH[0].choice(ways)


def digits_eighth(n: int, rng: random.Random) -> str:
    """`n` digits, a digit now and then the same as the one before (said "double" or "triple")."""
    out = str(rng.randrange(10))
    while len(out) < n:
        out += out[-1] if rng.random() < 0.3 else str(rng.randrange(10))
    return out


def group_eighth(ds: str, style: str, zero: str) -> str:
    """One group of digits: one by one ("plain"), with doubles and triples ("runs"), three as a hundred ("hundreds":
    "four fifty-two", "six hundred", others two at a time) or two at a time ("pairs": "sixty-one oh four")."""
    if style == "plain":
        return " ".join(zero if d == "0" else ONES[int(d)] for d in ds)
    if style == "runs":
        return runs_said(ds, zero)
    if style == "hundreds" and len(ds) == 3 and ds[0] != "0":
        return f"{ONES[int(ds[0])]} hundred" if ds[1:] == "00" else f"{ONES[int(ds[0])]} {zero_pair(int(ds[1:]), zero)}"
    if len(ds) == 4 and ds[0] != "0" and ds[2:] == "00":
        return f"{words(int(ds[:2]))} hundred"
    head = [zero if ds[0] == "0" else ONES[int(ds[0])]] if len(ds) % 2 else []
    return " ".join(head + [zero_pair(int(ds[i:i + 2]), zero) for i in range(len(ds) % 2, len(ds), 2)])


def number_eighth(ds: str, sizes: tuple[int, ...], style: str, zero: str) -> list[str]:
    """Digits in groups of `sizes`, each group said in `style` ("mixed": doubles and triples, then hundreds)."""
    groups, i = [], 0
    for size in sizes:
        groups.append(ds[i:i + size])
        i += size
    return [group_eighth(g, ("runs" if n % 2 == 0 else "hundreds") if style == "mixed" else style, zero)
            for n, g in enumerate(groups)]


def year_eighth(year: int, style: int) -> str:
    """"nineteen sixty-one", "nineteen oh four", "two thousand and six", "two thousand six", "twenty oh six"."""
    if year < 2000:
        return f"nineteen {zero_pair(year - 1900, 'oh')}" if year != 1900 else "nineteen hundred"
    if year == 2000:
        return "two thousand"
    if year < 2010:
        return ["two thousand and", "two thousand", "twenty oh"][style] + f" {ONES[year - 2000]}"
    return [f"two thousand and {words(year - 2000)}", f"twenty {words(year - 2000)}", f"twenty {words(year - 2000)}"][style]


def date_eighth(month: int, day: int, year: int, form: int, zero: str, style: int) -> str:
    """A date in one of eight spoken forms, day first or month first, in words, ordinals or digits."""
    yy = zero_pair(year % 100, zero) if year % 100 < 10 else words(year % 100)
    full, name = year_eighth(year, style), MONTHS[month]
    plain = lambda ds: " ".join(zero if d == "0" else ONES[int(d)] for d in ds)
    return [f"{ordinal_words(day)} {name}, {full}", f"{name} the {ordinal_words(day)}, {yy}",
            f"{words(day)}, {words(month + 1)}, {full}", f"{words(month + 1)} slash {words(day)} slash {yy}",
            f"the {ordinal_words(day)} day of {name}, {full}", f"{name} {words(day)}, {full}",
            f"{plain(f'{day:02d}')}, {plain(f'{month + 1:02d}')}, {plain(str(year))}",
            f"{full}, the {ordinal_words(day)} of {name}"][form]


def house_eighth(n: int, style: str, zero: str) -> str:
    """A house number as said: in figures, or in words one of two ways ("three oh six" or "three hundred and six",
    "twenty-one fifty" or "two thousand one hundred and fifty")."""
    if style == "figures":
        return str(n)
    if n < 100:
        return words(n)
    if n < 1000:
        if style == "short":
            return f"{ONES[n // 100]} {zero_pair(n % 100, zero)}" if n % 100 else f"{ONES[n // 100]} hundred"
        return f"{ONES[n // 100]} hundred" + (f" and {words(n % 100)}" if n % 100 else "")
    if style == "short":
        return f"{words(n // 100)} {zero_pair(n % 100, zero)}" if n % 100 else f"{words(n // 100)} hundred"
    hundreds = (n // 100) % 10
    return (f"{ONES[n // 1000]} thousand" + (f" {ONES[hundreds]} hundred" if hundreds else "")
            + (f" and {words(n % 100)}" if n % 100 else ""))


def misheard_house(n: int) -> int:
    """The house number an agent might hear instead: "fourteen" for "forty", a digit changed."""
    if 13 <= n <= 19:
        return (n - 10) * 10
    if n in (30, 40, 50, 60, 70, 80, 90):
        return n // 10 + 10
    ds = str(n)
    return int(ds[:-1] + MISHEARD_DIGIT[ds[-1]]) or n + 2


def spell_eighth(name: str, joint: str, doubles: bool = False, cases: bool = False) -> str:
    """Letters alone, a hyphen said as `joint`, a second word after "new word", two letters alike as "double L",
    a word's case said when `cases` ("small D U, new word, capital P L E double S I S")."""
    out = []
    for piece in re.split(r"([- ])", name):
        if piece in ("-", " "):
            out.append(joint if piece == "-" else "new word")
            continue
        said, chars, i = [], [c.upper() for c in piece if c.isalpha()], 0
        while i < len(chars):
            if doubles and i + 1 < len(chars) and chars[i + 1] == chars[i]:
                said.append(f"double {chars[i]}")
                i += 2
            else:
                said.append(chars[i])
                i += 1
        case = ("small " if piece[0].islower() else "capital ") if cases and " " in name else ""
        out.append(case + " ".join(said))
    return ", ".join(out)


def spell_as_eighth(name: str, link: str, every: bool) -> str:
    """Each letter with a word of the eighth half's ("D as in donkey", "D for donkey", "D like donkey"), or only
    the unclear ones; a hyphen and a second word said."""
    out = []
    for piece in re.split(r"([- ])", name):
        if piece in ("-", " "):
            out.append("hyphen" if piece == "-" else "new word")
            continue
        out += [f"{c}{link}{AS_EIGHTH[c]}" if every or c in UNCLEAR_EIGHTH else c for c in piece.upper() if c.isalpha()]
    return ", ".join(out)


def amount_eighth(rng: random.Random, currency: str) -> str:
    """An amount of money in words: "a hundred and twelve pounds forty", "sixty-three rand"."""
    whole = rng.choice([rng.randrange(12, 99), rng.randrange(12, 99), rng.randrange(100, 260)])
    said = words(whole) if whole < 100 else (("a hundred" if whole < 200 else f"{ONES[whole // 100]} hundred")
                                             + (f" and {words(whole % 100)}" if whole % 100 else ""))
    cents = rng.choice([0, 0, rng.randrange(10, 99)])
    return f"{said} {currency}" + (f" {words(cents)}" if cents else "")


def reference_eighth(rng: random.Random, zero: str) -> str:
    """An order or case reference: two letters and digits, "K R four seven, one nine"."""
    letters_ = " ".join(rng.choice("BCDGHKLMRTWX") for _ in range(2))
    return f"{letters_} {', '.join(number_eighth(digits_eighth(6, rng), (3, 3), rng.choice(['plain', 'runs']), zero))}"


class EighthPerson(Person):
    """One caller of the eighth half: its own lists, and numbers, dates, houses and codes said in words."""

    def __init__(self, rng: random.Random, last: str | None = None, shape: int | None = None):  # Person's
        # attributes, from other lists; `last` and the e-mail's `shape` given where a flow must hear them all
        self.first, self.last = rng.choice(list(FIRSTS_EIGHTH)), last or rng.choice(LASTS_EIGHTH)
        self.gender = FIRSTS_EIGHTH[self.first]
        self.other = (f"{rng.choice([f for f in FIRSTS_EIGHTH if f != self.first])} "
                      f"{rng.choice([s for s in LASTS_EIGHTH if s != self.last])}")
        (self.city, self.region, codes, self.halves, self.country, self.code_name,
         self.region_name) = rng.choice(PLACES_EIGHTH)
        self.postcode, self.postcode_again = rng.sample(codes, 2)
        self.us = self.country in ("United States", "Canada")
        self.zero = rng.choice(["oh", "zero"] if self.us else ["oh", "zero", "nought", "oh"])
        self.style = rng.choice(["plain", "runs", "pairs", "hundreds", "mixed"])
        self.year_style = rng.randrange(3)
        self.currency = CURRENCY_EIGHTH[self.country]
        (self.birth, self.birth_dm, self.year_said, self.birth_misread, self.birth_right, self.swapped,
         self.year) = self.born(rng)
        number = rng.choice([rng.randrange(2, 99), rng.randrange(100, 999), rng.randrange(1000, 9999)])
        house_style = rng.choice(["figures", "short", "long", "short", "long"])
        self.house = house_eighth(number, house_style, self.zero)
        self.house_wrong = house_eighth(misheard_house(number), house_style, self.zero)
        self.street, self.unit = rng.choice(STREETS_EIGHTH), rng.choice(UNITS_EIGHTH)
        self.phone, self.phone_wrong, self.phone_last4 = self.phone_said(rng)
        self.account, self.account_old, self.account_last4 = self.bank(rng)
        self.routing_name, self.routing = self.routing_said(rng)
        self.pin = " ".join(number_eighth(digits_eighth(4, rng), (4,), rng.choice(["runs", "pairs", "plain"]),
                                          self.zero))
        self.licence_name, self.licence, self.passport = self.documents(rng)
        self.email_user, self.email_domain, self.email_spelled = self.emails(rng, shape)
        self.email_said = f"{self.email_user} at {self.email_domain}"
        self.company, self.plan = rng.choice(COMPANIES_EIGHTH), rng.choice(PLANS_EIGHTH)

    def born(self, rng: random.Random, years: range = range(1941, 2007)) -> tuple[str, str, str, str, str, bool, int]:
        """A date of birth in one of the eight spoken forms (month first in North America, day first elsewhere,
        either now and then), the day and month without the year, the year as said, the date an agent misreads
        (day and month swapped, or a day out) and the right one as the caller then says it, whether it was
        swapped, and the year."""
        month, day, year = rng.randrange(12), rng.randrange(1, 29), rng.choice(years)
        form = rng.choice([1, 3, 5, 7, 4, 0] if self.us else [0, 2, 4, 6, 7, 1])
        said = date_eighth(month, day, year, form, self.zero, self.year_style)
        dm = f"{MONTHS[month]} {ordinal_words(day)}" if self.us else f"the {ordinal_words(day)} of {MONTHS[month]}"
        full = year_eighth(year, self.year_style)
        swapped = day <= 12 and day != month + 1
        wrong_month, wrong_day = (day - 1, month + 1) if swapped else (month, day + 1 if day < 28 else day - 1)
        as_read = lambda m, d: (f"{MONTHS[m]} {ordinal_words(d)}, {full}" if self.us
                                else f"the {ordinal_words(d)} of {MONTHS[m]}, {full}")
        return said, dm, full, as_read(wrong_month, wrong_day), as_read(month, day), swapped, year

    def phone_said(self, rng: random.Random) -> tuple[list[str], list[str], str]:
        """The phone number in groups as the caller says it, the same with one digit of the last group misheard,
        and its last four digits said one by one."""
        head, sizes, starts = {"United States": ("", (3, 3, 4), "23456789"), "Canada": ("", (3, 3, 4), "2345689"),
                               "England": ("07", (5, 6), "3456789"), "Scotland": ("07", (5, 3, 3), "3456789"),
                               "Ireland": ("08", (3, 3, 4), "35679"), "Australia": ("04", (4, 3, 3), "0123456789"),
                               "New Zealand": ("02", (3, 3, 4), "1279"),
                               "South Africa": ("0", (3, 3, 4), "678")}[self.country]
        ds = head + rng.choice(starts) + digits_eighth(sum(sizes) - len(head) - 1, rng)
        tail = ds[-sizes[-1]:]
        i = rng.randrange(len(tail))
        wrong = ds[:-len(tail)] + tail[:i] + MISHEARD_DIGIT[tail[i]] + tail[i + 1:]
        return (number_eighth(ds, sizes, self.style, self.zero), number_eighth(wrong, sizes, self.style, self.zero),
                " ".join(self.zero if d == "0" else ONES[int(d)] for d in ds[-4:]))

    def bank(self, rng: random.Random) -> tuple[str, str, str]:
        """The account number as said, an old one, and its last four digits."""
        size, sizes = {"United States": (10, (3, 3, 4)), "Canada": (7, (3, 4)), "England": (8, (4, 4)),
                       "Scotland": (8, (2, 3, 3)), "Ireland": (8, (2, 3, 3)), "Australia": (9, (3, 3, 3)),
                       "New Zealand": (10, (7, 3)), "South Africa": (10, (3, 3, 4))}[self.country]
        ds, old = digits_eighth(size, rng), digits_eighth(size, rng)
        return (", ".join(number_eighth(ds, sizes, self.style, self.zero)),
                ", ".join(number_eighth(old, sizes, self.style, self.zero)),
                " ".join(self.zero if d == "0" else ONES[int(d)] for d in ds[-4:]))

    def routing_said(self, rng: random.Random) -> tuple[str, str]:
        """What the bank's code is called in the caller's country, and the code as said."""
        name, size, sizes, style = {
            "United States": ("routing number", 9, (3, 3, 3), self.style),
            "Canada": ("transit and institution number", 8, (5, 3), "plain"),
            "England": ("sort code", 6, (2, 2, 2), "pairs"), "Scotland": ("sort code", 6, (2, 2, 2), "pairs"),
            "Ireland": ("sort code", 6, (2, 2, 2), "pairs"), "Australia": ("B S B number", 6, (3, 3), "hundreds"),
            "New Zealand": ("bank and branch number", 6, (2, 4), "plain"),
            "South Africa": ("branch code", 6, (3, 3), self.style)}[self.country]
        return name, ", ".join(number_eighth(digits_eighth(size, rng), sizes, style, self.zero))

    def documents(self, rng: random.Random) -> tuple[str, str, str]:
        """The driving licence's name in the caller's country, its number and a passport number, as said."""
        letter = lambda: rng.choice("CDFGMPSVXY")
        say = lambda n, sizes: ", ".join(number_eighth(digits_eighth(n, rng), sizes, self.style, self.zero))
        surname = "".join(c for c in self.last.upper() if c.isalpha())[:5].ljust(5, "9")
        return {
            "United States": ("driver's license", f"{letter()}, {say(12, (3, 3, 3, 3))}", f"{letter()}, {say(8, (4, 4))}"),
            "Canada": ("driver's licence", say(7, (3, 4)), f"{letter()} {letter()}, {say(6, (3, 3))}"),
            "England": ("driving licence", f"{' '.join(surname)}, {say(6, (2, 2, 2))}, {self.first[0]} {letter()},"
                                           f" {ONES[rng.randrange(10)]}, {letter()} {letter()}", say(9, (3, 3, 3))),
            "Scotland": ("driving licence", f"{' '.join(surname)}, {say(6, (6,))}, {self.first[0]} {letter()},"
                                            f" {ONES[rng.randrange(10)]}, {letter()} {letter()}", say(9, (4, 5))),
            "Ireland": ("driving licence", say(9, (3, 3, 3)), f"{letter()} {letter()}, {say(7, (3, 4))}"),
            "Australia": ("driver licence", say(9, (3, 3, 3)), f"{letter()}, {say(7, (7,))}"),
            "New Zealand": ("driver licence", f"{letter()} {letter()}, {say(6, (6,))}",
                            f"{letter()} {letter()}, {say(6, (3, 3))}"),
            "South Africa": ("driver's licence", f"{say(4, (4,))}, {say(4, (4,))}, {letter()} {letter()}, {say(2, (2,))}",
                             f"{letter()}, {say(8, (4, 4))}")}[self.country]

    def emails(self, rng: random.Random, shape: int | None) -> tuple[str, str, str]:
        """The e-mail address as said (before and after "at") and spelled letter by letter, in one of five shapes
        (drawn unless `shape` is given): all one word, the surname and an initial, a plus and a word, an initial and
        digits, or the first name at the family's own domain."""
        first = "".join(c for c in self.first.lower() if c.isalpha())
        last = " ".join("".join(c for c in part if c.isalpha()) for part in self.last.lower().replace("-", " ").split())
        glued = last.replace(" ", "")
        host, tail = rng.choice(HOSTS_EIGHTH)
        num, word = digits_eighth(2, rng), rng.choice(["bills", "home", "post", "family"])
        drawn = rng.randrange(5)  # drawn even where given, so that a given shape moves no later draw
        shape = drawn if shape is None else shape
        stop = "dot" if self.us else rng.choice(["dot", "full stop"])
        user = [f"{first} {last}, all one word", f"{last} {stop} {first[0].upper()}", f"{first} plus {word}",
                f"{first[0].upper()} {last} {runs_said(num, 'zero')}", first][shape]
        domain = f"{glued} family dot net" if shape == 4 else f"{host} {tail}"
        spelled = [f"{letters(first + glued)}, all lower case", f"{letters(glued)}, {stop}, {first[0].upper()}",
                   f"{letters(first)}, plus sign, {letters(word)}",
                   f"{first[0].upper()}, {letters(glued)}, {said_digits(num, 'zero', False)}", letters(first)][shape]
        spelled_domain = (f"{letters(glued)} F A M I L Y, dot net" if shape == 4 else
                          rng.choice([f"{host} {tail}", f"{letters(host)}, {tail}"]))
        return user, domain, f"{spelled}, at sign, {spelled_domain}"

    def address_parts(self, rng: random.Random, end: str = ".", reading: bool = False) -> list[Part]:
        """The address as a caller says it, in one of five orders (the flat before the house, the region and code
        apart, the flat remembered after, the region first, the country last), the talk between its parts not
        marked; as an agent `reading` it back says it, whole."""
        street = f"{self.house} {self.street}"
        form = rng.choice([0, 4] if reading else [0, 1, 2, 3, 4])
        if form == 0:
            return [(f"{self.unit}, {street}, {self.city}, {self.region}, {self.postcode}{end}", "address")]
        if form == 1:
            return [(f"{street}, {self.unit}, {self.city},", "address"), talk8("which is in", "up in", "down in"),
                    (f"{self.region},", "address"), talk8(f"with the {self.code_name}", "code"),
                    (f"{self.postcode}{end}", "address")]
        if form == 2:
            return [(f"{street}, {self.city}, {self.region}, {self.postcode}.", "address"),
                    talk8("It's a flat, actually,", "I should say, it's"), (f"{self.unit}{end}", "address")]
        if form == 3:
            return [(f"{self.region}, {self.city},", "address"), talk8("the street's", "on"),
                    (f"{street}, {self.unit},", "address"), talk8(f"and the {self.code_name} for that is",
                                                                  "and the code is"),
                    (f"{self.postcode}{end}", "address")]
        return [(f"{street}, {self.unit}, {self.city}, {self.region}, {self.postcode}, {self.country}{end}", "address")]


def eighth_opening(p: EighthPerson, rng: random.Random) -> list[Turn]:
    """The greeting and the caller's problem, and now and then a word about waiting, hours or an earlier note."""
    turns = way8([
        [agent(talk8(f"{p.company}, good morning, you're speaking to the billing desk.",
                     f"Morning, {p.company} billing desk, what's the problem today?")),
         caller(talk8("Hi. I had a text saying my payment failed, but the money's already left my bank.",
                      "Hello, I got a message that my payment bounced, which can't be right."))],
        [agent(talk8(f"Hello, {p.company}, sorry you've been waiting, the lines are busy after the storm.")),
         caller(talk8("That's alright. It's about the bill, it's nearly double what it normally is.",
                      "No worries. My bill's jumped up this quarter and I can't work out why."))],
        [agent(talk8(f"{p.company} customer line, how can I make your day easier?")),
         caller(talk8("Well, you could start by explaining why I was charged a late fee when I paid early.",
                      "By telling me why there's a late fee on an account I paid a week early."))],
        [agent(talk8(f"You've reached {p.company}. Before we start, this call may be recorded for training.")),
         caller(talk8("That's fine. I'm ringing because the router you sent me still isn't working.",
                      "Fine by me. I've been trying to cancel an add-on for over a week."))],
        [agent(talk8(f"Afternoon, {p.company} help line.")),
         caller(talk8("Hi, hopefully a quick one, I want to move my payment date to the twenty-fifth.",
                      "Hi there, I'd like to change the day my payment comes out, to the first of the month."))]])
    if rng.random() < 0.6:
        extra = rng.randrange(4)
        if extra == 0:
            turns += [agent(talk8("No problem, let's get it sorted. We're open till eight tonight and nine "
                                  "till one on Saturday, so if we get cut off you can ring straight back.",
                                  "Let's get that fixed. Our lines are open seven days, eight till six, so no "
                                  "pressure.")),
                      caller(talk8("Good to know, thanks.", "Okay, appreciated."))]
        elif extra == 1:
            turns += [agent(talk8("Okay, I can help with that.", "Right, let's take a look.")),
                      caller(talk8(f"I've already been on hold for {words(rng.randrange(12, 45))} minutes and I've got "
                                   f"to collect the kids at half three.",
                                   f"This is my third call this week, and I've spent about {words(rng.randrange(30, 59))}"
                                   f" minutes on hold altogether.")),
                      agent(talk8("I'll be as quick as I can.", "I'm sorry about the wait, I'll keep it short."))]
        elif extra == 2:
            turns += [agent(talk8(f"I can see a note from the {ordinal_words(rng.randrange(2, 28))} about a delivery"
                                  f" that didn't turn up.",
                                  f"There's a note on here from last {rng.choice(['Tuesday', 'Thursday', 'Saturday'])}"
                                  f" about a missed visit.")),
                      caller(talk8("Yes, the tracking said it was out for delivery and then nothing.",
                                   "That's right, I took the morning off work for it and nobody came."))]
        else:
            amount = amount_eighth(rng, p.currency)
            addon = rng.choice(ADDONS_EIGHTH)
            turns += [agent(talk8("Okay, what's the charge you're looking at?", "Tell me what you're seeing on there.")),
                      caller(talk8(f"There's {amount} on there for something called {addon}, which I never asked "
                                   f"for.", f"You've charged me {amount} for {addon}, and I don't even know what "
                                            f"that is.")),
                      agent(talk8("That's an optional extra, I'll look at how it got added.",
                                  "Let me see when that was switched on."))]
    return turns


def eighth_closing(p: EighthPerson, rng: random.Random) -> list[Turn]:
    """Talk with no personal data, in the eighth half's words: amounts, the plan and company, an appointment or a
    delivery day, a case or order reference, opening hours; long or short."""
    amount, amount2 = amount_eighth(rng, p.currency), amount_eighth(rng, p.currency)
    day = rng.choice(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"])
    date, date2 = ordinal_words(rng.randrange(1, 15)), ordinal_words(rng.randrange(15, 29))
    ref = reference_eighth(rng, p.zero)
    return way8([
        [agent(talk8(f"So the {p.plan} was billed at {amount} on the {date} and again on the {date2}; I've refunded "
                     f"the second one.")),
         caller(talk8("Great, and when will I see it back?", "Thank goodness. How long does that take?")),
         agent(talk8("Usually three to five working days, sometimes sooner if your bank's quick.",
                     "Within a week, but most banks show it in two or three days.")),
         caller(talk8("Lovely, thank you, that's all I needed.", "Perfect. That's everything, thank you."))],
        [agent(talk8(f"I've booked the technician for {day} the {date}, between eight and one. Your case reference "
                     f"is {ref}.", f"An engineer can come on {day} the {date}, morning slot. The case number is "
                                   f"{ref}.")),
         caller(talk8("Perfect, I'll make sure someone's in.", "Fine, I'll work from home that day.")),
         agent(talk8(f"You'll get a text the evening before. Anything else I can help with at {p.company}?",
                     "They'll ring half an hour before they arrive. Is there anything else?")),
         caller(talk8("No, that's it, thanks for your patience.", "Nothing else, thank you."))],
        [agent(talk8(f"The replacement's going out by courier today, order {ref}; it should be with you by {day}.",
                     f"I've ordered a new one, reference {ref}, and it'll arrive on {day} or the day after.")),
         caller(talk8("And if it doesn't come?", "What if it doesn't show up again?")),
         agent(talk8("Give us a ring, we're open eight till eight on weekdays and nine till four on Saturdays.",
                     "Just call back and quote the reference; we're here until ten every night.")),
         caller(talk8("Brilliant, thanks very much.", "Right you are, thanks."))],
        [agent(talk8(f"I've taken {amount} off your next bill as a goodwill gesture, and moved you onto {p.plan}, "
                     f"which works out at {amount2} a month.")),
         caller(talk8("That's much better, thank you.", "Oh, that's a relief.")),
         agent(talk8(f"You're welcome. Thanks for calling {p.company}.", "Glad I could help. Have a nice afternoon.")),
         caller(talk8("Bye now.", "You too, bye."))],
        [agent(talk8("That's all sorted on my end.", "Right, that's done.")),
         caller(talk8("Thanks, bye.", "Cheers for that, bye."))]])


def eighth_turns(flow: str, p: EighthPerson, rng: random.Random, k: int) -> list[Turn]:
    """The turns of one of the nineteen flows in the eighth half's words, after the opening; the `k`th call of
    `asked indirectly` asks its `k`th way."""
    name, phone = f"{p.first} {p.last}", ", ".join(p.phone)
    title = rng.choice(["Mr"] if p.gender == "m" else ["Ms", "Mrs", "Miss"])
    if flow == "asked":
        return [agent(talk8("To pull up the account, what's your name, please?",
                            "First things first, your first name and surname?",
                            "Could I take your name to get us started?")),
                caller(*way8([[(f"{name}.", "name")],
                              [talk8("Of course, it's", "Sure thing, it's"), (f"{name}.", "name")],
                              [talk8("It should be under", "You'll find it under"), (f"{name},", "name"),
                               talk8("because I set it up when we moved in.",
                                     "though my other half usually deals with you.")]])),
                agent(talk8("And your date of birth, just to confirm it's you?",
                            "What's your full date of birth?",
                            "Can I check the birthday that goes with that?")),
                caller(*way8([[(f"{p.birth}.", "dateOfBirth")],
                              [talk8("Born on", "Mine's"), (f"{p.birth}.", "dateOfBirth")],
                              [talk8("That'd be"), (f"{p.birth},", "dateOfBirth"),
                               talk8("for my sins.", "believe it or not.")]])),
                agent(talk8(f"And the address you'd like us to hold, {p.code_name} included?",
                            "Where's the bill being sent to these days?", "And your home address, all of it please?")),
                caller(talk8("Right, so it's", "We live at"), *p.address_parts(rng)),
                agent(talk8("And a phone number in case we need to ring you back?",
                            "Which number's best for reaching you?", "What number would you like on file?")),
                caller(*way8([[(f"{phone}.", "phone")],
                              [talk8("Mobile's best,", "Try the mobile,"), (f"{phone}.", "phone")],
                              [(f"{phone},", "phone"), talk8("I've not had a landline for years.",
                                                             "that's with me most of the day.")]]))]
    if flow == "volunteered":
        return [caller(talk8("Oh, one thing before you start, my mobile number changed last month, it's now",
                             "Quick thing, can you update my number to"), (f"{phone},", "phone"),
                       talk8("because the old one's been cut off.", "please? I lost the old phone on holiday.")),
                agent(talk8("Sure, I've updated that.", "Done, that's saved.")),
                caller(talk8("And we moved in March, so letters need to go to",
                             "Also, the address is different now, we're at"), *p.address_parts(rng)),
                agent(talk8("Thanks, got it.", "Okay, that's changed too.")),
                caller(talk8("Bills by email would be easier too, to", "You can send everything to"),
                       (f"{p.email_said},", "email"), talk8("if that's possible.", "going forward.")),
                agent(talk8("No problem at all.", "Yes, I'll switch you to paperless.")),
                caller(talk8("And for the security question, my birthday's",
                             "Just in case you need it, my date of birth is"), (f"{p.birth}.", "dateOfBirth"))]
    if flow == "read back":
        return [agent(talk8("Can you read me the account number? It's along the top of the letter.",
                            "Have you got your account number handy?")),
                caller(talk8("Yes, here it is,", "Right here,", "Hang on... okay,"), (f"{p.account}.", "account")),
                agent(talk8("Let me just read that back:", "Just checking I heard you right,"),
                      (f"{p.account}?", "account")),
                caller(talk8("That's correct, yes.", "Yes, every digit.", "All present and correct.")),
                agent(talk8("Found you. The account's in the name of", "Okay, the account I've found is for"),
                      (f"{name},", "name"), talk8("registered at", "at the address"), *p.address_parts(rng, "?", reading=True)),
                caller(talk8("That's me.", "Yes, that's us.", "Yep, still there.")),
                agent(talk8("And the number we've got for you is", "The number I've got here is"),
                      (", ".join(p.phone_wrong) + "?", "phone")),
                caller(talk8("Not quite, it ends", "Nearly, the end's"), (f"{p.phone[-1]},", "phone"),
                       talk8("and not", "as opposed to"), (f"{p.phone_wrong[-1]}.", "phone")),
                agent(talk8("Sorry, fixed that:", "Updated, so that's"), (f"{phone}.", "phone")),
                caller(talk8("Great.", "That's the one.")),
                agent(talk8("And an email address for the e-bill?", "Do you want the statements by email?")),
                caller(talk8("Please, to", "Yes, use"), (f"{p.email_said}.", "email")),
                agent(talk8("I'll repeat it:", "Reading it out:"), (f"{p.email_said}.", "email")),
                caller(talk8("Lovely, that's it.", "That'll do nicely."))]
    if flow == "corrected":
        return [agent(talk8("Which phone should I try if this call drops out?",
                            "What's a number I can reach you on afterwards?")),
                caller(talk8("Right, try", "Try"), (", ".join(p.phone_wrong) + ",", "phone"),
                       talk8("hang on, that's my work one. The mobile ends", "wait, no, I've mixed it up, the end is"),
                       (f"{p.phone[-1]},", "phone"), talk8("and not", "as opposed to"), (f"{p.phone_wrong[-1]}.", "phone")),
                agent(talk8("Got that. Your birthday, please?", "Okay. And the date of birth?")),
                caller((f"{p.birth}.", "dateOfBirth")),
                agent(talk8("I've typed", "I'll read it back,"), (f"{p.birth_misread}?", "dateOfBirth")),
                caller(talk8("No, other way round,", "No, you've flipped it,") if p.swapped else
                       talk8("No, a day out,", "Not quite,"), (f"{p.birth_right}.", "dateOfBirth")),
                agent(talk8("And you said you're at number", "The house number, was it"),
                      (f"{p.house_wrong}?", "address")),
                caller(talk8("No,", "Not that,"), (f"{p.house},", "address"),
                       talk8("it's an easy one to mishear.", "sorry, I mumbled.")),
                agent(talk8("I'm seeing the account as", "On my screen the account number is"),
                      (f"{p.account_old}.", "account")),
                caller(talk8("That one's closed now, use", "We switched banks, it's now"), (f"{p.account}.", "account"))]
    if flow == "spelled":
        joint = rng.choice(["dash", "hyphen"])
        return [agent(talk8("And how's the surname spelled?", "Would you mind spelling the last name?")),
                caller(*way8([[(f"{p.last}, {spell_eighth(p.last, joint, True, True)}.", "name")],
                              [talk8("Mine's"), (f"{p.last},", "name"), talk8("which goes"),
                               (f"{spell_eighth(p.last, joint, rng.random() < 0.5, True)}.", "name")]])),
                agent(talk8("And the first name, is that the usual spelling?", "Is the first name spelled how it "
                                                                              "sounds?")),
                caller(talk8("I'd better spell it,", "Probably not,"),
                       (f"{spell_eighth(p.first, joint, True)}.", "name")),
                agent(talk8("Could you spell out the email, slowly?", "Now the email, spelled out for me?")),
                caller((f"{p.email_spelled}.", "email"))]
    if flow == "spelled back":
        plain = [c.upper() for c in p.last if c.isalpha()]
        i = rng.randrange(1, len(plain))
        dropped = " ".join(plain[:i] + plain[i + 1:])
        missing, before = plain[i], plain[i - 1]
        link = rng.choice([" for ", " like ", " as in "])
        fix = ([talk8("It's a double"), (f"{missing},", "name"), talk8("making it")] if missing == before else
               [talk8("You've missed the", "There's an"), (f"{missing}", "name"), talk8("after the"),
                (f"{before},", "name"), talk8("making it")])
        return [agent(talk8("Sorry, I didn't catch your name?", "And the name, please, first and surname?")),
                caller((f"{name}.", "name")),
                agent(talk8("Let me spell that back,", "So, spelling it,"), (f"{spell_as_eighth(p.first, link, True)}",
                                                                            "name"),
                      talk8("for the first name?", "is the first name?")),
                caller(talk8("Yep. Surname's", "That's right, then the surname's"),
                       (f"{spell_eighth(p.last, 'hyphen')}.", "name")),
                agent(talk8("Have I got"), (f"{dropped}?", "name")),
                caller(*fix, (f"{' '.join(plain)}.", "name")),
                agent(talk8("Got it, thanks,", "Sorry about that,"), (f"{p.first}.", "name"))]
    if flow == "split":
        first, second = p.halves
        opener = (talk8("Area code") if p.us else talk8("Got a pen?", "Ready?"))
        return [agent(talk8("Which number shall I put down for you?", "What number can we reach you on?")),
                caller(opener, (f"{p.phone[0]},", "phone")), agent(talk8("Got that.", "With you.")),
                caller((f"{p.phone[1]},", "phone")), agent(talk8("Carry on.", "Right, and?")),
                caller((f"{p.phone[2]}.", "phone")),
                agent(talk8("And the house number?", "What number is the house?")), caller((f"{p.house}.", "address")),
                agent(talk8("Which street is that?", "On which road?")), caller((f"{p.street}.", "address")),
                agent(talk8("Is it a flat or a house?", "Any flat number with that?")),
                caller(talk8("We're in", "We're up in"), (f"{p.unit}.", "address")),
                agent(talk8(f"And the town, and the {p.region_name}?", f"Then the town and {p.region_name}?")),
                caller((f"{p.city}, {p.region}.", "address")),
                agent(talk8(f"And finally the {p.code_name}?", f"Last bit, the {p.code_name}?")),
                caller((f"{first},", "address")),
                agent(talk8("Okay, and?", "Mm, the rest?")), caller((f"{second}.", "address"))]
    if flow == "address any order":
        street = f"{p.house} {p.street}"
        said = way8([
            [(f"{p.postcode}, {p.city},", "address"), talk8("and the street address is", "then you want"),
             (f"{street}, {p.unit}, {p.region}.", "address")],
            [talk8("Ours is"), (f"{p.unit},", "address"), talk8("which is at"),
             (f"{street}, {p.region}, {p.city}, {p.postcode}.", "address")],
            [talk8("Over in", "Out in"), (f"{p.region}, {p.country},", "address"), talk8("the town's"),
             (f"{p.city},", "address"), talk8("and the place itself is"), (f"{street}, {p.unit}, {p.postcode}.", "address")]])
        return [agent(talk8("Where would you like the parcel delivered?", "What's the address for the installation?",
                            "Where's the property we're insuring?")), caller(*said),
                agent(talk8("Just to check, that's in", "And we're talking"), (f"{p.country}?", "address")),
                caller(talk8(f"It is. And the {p.code_name} once more,", "Yep. I'll say the code again,"),
                       (f"{p.postcode_again}.", "address"))]
    if flow == "banking":
        return [agent(talk8("I can set up the monthly payment now if you've got your bank details to hand.",
                            "Which bank account would you like the payments taken from?")),
                caller(talk8(f"Let me find it, the {p.routing_name} is", f"From the top, {p.routing_name}"),
                       (f"{p.routing},", "bankRouting"),
                       talk8("and the account number", "then the account itself is"), (f"{p.account}.", "account")),
                agent(talk8("Thank you. And to confirm it's you, the four-digit PIN on the account?",
                            "And the telephone banking PIN, please?")),
                caller(talk8("I set it to", "Mine's"), (f"{p.pin}.", "pin")),
                agent(talk8("That's all matched up.", "Perfect, that's verified."))]
    if flow == "documents":
        return [agent(talk8(f"For the ID check I'll need your {p.licence_name} number.",
                            f"Do you have your {p.licence_name} with you? I'll need the number.")),
                caller(talk8("I do, it reads", "Let me get my wallet... right,"),
                       (f"{p.licence}.", "driversLicense")),
                agent(talk8("And a second form of ID, your passport number?", "And the passport, if it's nearby?")),
                caller(talk8("The passport says", "Found it,"), (f"{p.passport}.", "passport")),
                agent(talk8("That's both checked, thanks.", "Great, both of those match."))]
    if flow == "third party":
        word, pronoun, pool = rng.choice([("landlord", "he", HIS_EIGHTH), ("flatmate", "she", HERS_EIGHTH),
                                          ("wife", "she", HERS_EIGHTH), ("husband", "he", HIS_EIGHTH)])
        partner = f"{rng.choice([f for f in pool if f != p.first])} {rng.choice([p.last, rng.choice(LASTS_EIGHTH)])}"
        return [caller(*way8([[talk8("Someone on your team called"), (f"{p.other}", "name"),
                               talk8("promised me a callback on Friday that never came.")],
                              [talk8("One of your managers,"), (f"{p.other},", "name"),
                               talk8("said they'd ring me back and never did.")]])),
                agent(talk8("I'm sorry nobody rang. Who holds the account?",
                            "Apologies for that. Are you the named holder yourself?")),
                caller(talk8(f"No, it's my {word}'s,", f"It's in my {word}'s name,"), (f"{partner},", "name"),
                       talk8(f"{pronoun}'s at work till six.", f"but {pronoun}'s happy for me to deal with it.")),
                agent(talk8("I'll put it on record that", "Noted, and I'll flag that"), (f"{p.other.split()[0]}", "name"),
                      talk8("owes you a call.", "was meant to ring."))]
    if flow == "none":
        amount, amount2, amount3 = (amount_eighth(rng, p.currency) for _ in range(3))
        return [agent(talk8("Let me bring that up, the system's running slow today.",
                            "Give me a moment, I'm opening your bills for the last three months.")),
                caller(talk8("No rush. I'm on my lunch break, so I've got till half one.",
                             "That's fine, I've been with you since two thousand and nine, I know the drill.",
                             "Take your time, the kettle's on.")),
                agent(talk8(f"Okay, so in March you paid {amount}, in April {amount2}, and this month it went up because "
                            f"the fixed deal ended on the thirtieth.",
                            f"Right, your usual payment was {amount}, and it went up to {amount2} when the discount "
                            f"ran out on the first.")),
                caller(talk8("Nobody told me it was ending.", "Right, so can I go back onto a fixed deal?")),
                agent(talk8(f"I can offer {p.plan} at {amount3} a month, fixed for eighteen months, from the first of "
                            f"next month.", f"There's {p.plan}, {amount3} a month for two years, starting next "
                                            f"billing date.")),
                caller(talk8("Go on then, that sounds better.", "Yes please, sign me up for that."))]
    if flow == "asked indirectly":
        ask, answers = [
            ("And who's on the line with me?",
             [[talk8("This is", "You're speaking to"), (f"{name}.", "name")],
              [talk8("Sorry, I should've said, I'm"), (f"{name},", "name"), talk8("I rang yesterday as well.")]]),
            ("Who's the bill addressed to?",
             [[talk8("To me,"), (f"{name},", "name"), talk8("though we split it between the two of us.")],
              [talk8("It comes addressed to"), (title, None), (f"{p.first[0]} {p.last},", "name"),
               talk8("and that's me.")]]),
            ("What name shall I put the appointment under?",
             [[talk8("Pop it under"), (f"{name}.", "name")],
              [talk8("My surname's"), (f"{p.last},", "name"), talk8("and I'm"), (f"{p.first}.", "name")]])][k]
        return [agent(talk8(ask)), caller(*way8(answers)),
                agent(talk8("Does your card have your full name on it, or just an initial?",
                            "And on the bank card, is it your full name?")),
                caller(talk8("Just the initial and surname,", "Initial and surname,"),
                       (f"{p.first[0]} {p.last}.", "name")),
                agent(talk8("Anyone else you're happy for us to talk to about the account?",
                            "Is there anyone else we're allowed to discuss it with?")),
                caller(talk8("My neighbour keeps an eye on things,", "Just my cousin,",
                             "Only my son," if FIRSTS_EIGHTH[p.other.split()[0]] == "m" else "Only my daughter,"),
                       (f"{p.other}.", "name")),
                agent(talk8("And in letters, what should we put at the top?", "How should we address you?")),
                caller((title, None), (f"{p.last}", "name"), talk8("suits me.", "please, if it's formal."))]
    if flow == "spelled as words":
        link = rng.choice([" as in ", " for ", " like "])
        return [agent(talk8("Could you spell the surname using words for the letters?",
                            "Can you spell the surname with a word for each letter? The line's not great.")),
                caller((f"{spell_as_eighth(p.last, link, True)}.", "name")),
                agent(talk8("Thanks. And your first name, same again?", "And the first name that way too?")),
                caller((f"{spell_as_eighth(p.first, link, rng.random() < 0.5)}.", "name")),
                agent(talk8("So reading it back, that's", "So in plain letters,"),
                      (f"{spell_eighth(p.last, 'hyphen', False, True)}?", "name")),
                caller(talk8("Exactly right.", "Yes, that's how it's written.")),
                agent(talk8("And could you spell the email address too?", "Last thing, the email, spelled?")),
                caller((f"{p.email_spelled}.", "email"))]
    if flow == "postcode as words":
        again = way8([[(f"{p.halves[0]},", "address"), talk8("then"), (f"{p.halves[1]}.", "address")],
                      [(f"{p.postcode_again},", "address"), talk8("it's on the top of the bill.",
                                                                  "I've got the letter in front of me.")]])
        return [agent(talk8(f"Can I take the {p.code_name} first, and I'll find the address?",
                            f"If you give me the {p.code_name}, I'll look the street up.")),
                caller((f"{p.postcode}.", "address")),
                agent(talk8("Apologies, I only caught half of that?", "Could you repeat that slowly?")),
                caller(*again),
                agent(talk8("Thanks, that brings up", "Okay, I've got"), (f"{p.city}, {p.region}.", "address"),
                      talk8("What's the house and street?", "And which house on which street?")),
                caller((f"{p.house} {p.street}, {p.unit}.", "address"))]
    if flow == "short answers":
        asked = [("D O B?", p.birth, "dateOfBirth"), ("Last name?", p.last, "name"),
                 ("Christian name?", p.first, "name"), ("Birthday, without the year?", p.birth_dm, "dateOfBirth"),
                 ("And the year?", p.year_said, "dateOfBirth"), ("Mobile, last four?", p.phone_last4, "phone"),
                 ("Which number on the street?", p.house, "address"),
                 (f"And the {p.code_name} for there?", p.postcode, "address"), ("Which street?", p.street, "address"),
                 ("Suburb or town?", p.city, "address"), ("Account, last four digits?", p.account_last4, "account"),
                 ("PIN, please?", p.pin, "pin")]
        chosen = sorted(rng.sample(range(len(asked)), 6))
        turns = []
        for n, i in enumerate(chosen):
            question, answer, kind = asked[i]
            turns += [agent(talk8(question) if n == 0 else talk8(f"Grand. {question}", f"Smashing. {question}",
                                                                 f"Noted. {question}")),
                      caller((f"{answer[0].upper()}{answer[1:]}.", kind))]
        return turns
    if flow == "look-alike answers":
        n = rng.randrange(2, 6)
        asked = [("How many people use the internet at home?",
                  f"{ONES[n].capitalize()}, sometimes {ONES[n + 1]} when my brother stays."),
                 ("Which bundle is it you're on?", f"{p.plan}, I'm fairly sure."),
                 ("What's the fault code on the router's screen?", f"E {words(rng.randrange(10, 99))}."),
                 ("Do you have the order number from the email?", f"Order {reference_eighth(rng, p.zero)}."),
                 ("When would suit for the engineer?",
                  f"{rng.choice(['Monday', 'Tuesday', 'Friday'])} the {ordinal_words(rng.randrange(2, 29))}, "
                  f"if that's free."),
                 ("And the last bill, how much was it?", f"{amount_eighth(rng, p.currency).capitalize()}."),
                 ("What floor is the meter on?", rng.choice(["The second, by the lift.", "Ground floor, under the "
                                                                                         "stairs."])),
                 ("How old is the boiler?", f"About {ONES[rng.randrange(3, 16)]} years."),
                 ("What's the case number on the letter?", f"It says {reference_eighth(rng, p.zero)}."),
                 ("What time did the outage start?", rng.choice(["Ten past eleven last night.",
                                                                 "Around quarter to seven this morning."])),
                 ("What's the reading on the meter?",
                  f"{' '.join(number_eighth(digits_eighth(5, rng), (2, 3), 'pairs', p.zero)).capitalize()}.")]
        chosen = sorted(rng.sample(range(len(asked)), 6))
        return [turn for i in chosen for turn in (agent(talk8(asked[i][0])), caller(talk8(asked[i][1])))]
    if flow == "mid-sentence":
        blocks = [
            [caller(*way8([[talk8("Look, I've been at"), *p.address_parts(rng, ","), talk8("for six years now, and I'm")],
                           [talk8("The letters still come to"), *p.address_parts(rng, ","),
                            talk8("which is right, I'm still there, and I'm")]]),
                    (f"{name},", "name"), talk8("so nothing's changed my end.", "same as it's always been.")),
             agent(talk8("Okay, I hear you.", "I understand, let me check."))],
            [caller(talk8("Last time they told me to ring from", "I even rang you from"), (phone, "phone"),
                    talk8("and emailed", "and wrote to you at"), (p.email_said, "email"),
                    talk8("twice, and still nothing.", "and heard nothing back.")),
             agent(talk8("That's not the service we want to give.", "I'm sorry, that shouldn't happen."))],
            [caller(talk8("Every month it comes straight out of", "You take it from"), (p.account, "account"),
                    talk8("so I don't see how I can be in arrears.", "and I've never once missed.")),
             agent(talk8("Let me see what's gone on.", "I'll look into that now."))]]
        rng.shuffle(blocks)
        readback = [agent(talk8("Right, I've got the account up: it's", "Here we go, this is for"),
                          (f"{name},", "name"), talk8("with a birthday of", "born on"), (f"{p.birth},", "dateOfBirth"),
                          talk8("and the address is", "whose address is"), *p.address_parts(rng, reading=True)),
                    caller(talk8("Yes, that's all me.", "Every bit of it, yes."))]
        return [turn for block in blocks for turn in block] + readback
    if flow == "another person":
        rel, pronoun, pool, years = rng.choice([("aunt", "she", HERS_EIGHTH, range(1935, 1960)),
                                                ("stepdad", "he", HIS_EIGHTH, range(1940, 1970)),
                                                ("granddad", "he", HIS_EIGHTH, range(1925, 1945)),
                                                ("niece", "she", HERS_EIGHTH, range(1998, 2007))])
        spouse, spouses = rng.choice([("wife", HERS_EIGHTH), ("husband", HIS_EIGHTH)])
        other_name = f"{rng.choice([f for f in pool if f != p.first])} {p.last}"
        spouse_name = rng.choice([f for f in spouses if f not in (p.first, other_name.split()[0])])
        spouse_name = rng.choice([spouse_name, f"{spouse_name} {rng.choice(LASTS_EIGHTH)}"])
        other_birth = p.born(rng, years)[0]
        spouse_birth = p.born(rng, range(1950, 1995))[0]
        other_phone = ", ".join(number_eighth(str(rng.randrange(2, 10)) + digits_eighth(9, rng), (3, 3, 4), p.style,
                                              p.zero))
        return [caller(talk8(f"I'm phoning for my {rel},", f"This is actually about my {rel},"),
                       (f"{other_name},", "name"),
                       talk8(f"{pronoun} asked me to ring because {pronoun} gets flustered on the phone.",
                             f"{pronoun}'s given permission for me to talk for {'her' if pronoun == 'she' else 'him'}.")),
                agent(talk8("That's fine as long as you're listed. When's their birthday, with the year?",
                            "Okay. Could you tell me when they were born?")),
                caller(talk8(f"My {rel}'s birthday is", "I think it's"), (f"{other_birth}.", "dateOfBirth")),
                agent(talk8("Is there a second person named on it?", "Is anyone else listed with them?")),
                caller(talk8(f"My {spouse} is on it too,", f"There's also my {spouse},"), (f"{spouse_name},", "name"),
                       talk8("whose birthday is", "date of birth being"), (f"{spouse_birth}.", "dateOfBirth")),
                agent(talk8("And a number we can use for them?", "Is there a phone we can reach them on?")),
                caller((other_phone, "phone"), talk8("is the house phone.",
                                                     "rings in the kitchen, they'll pick up eventually."))]
    raise ValueError(f"no flow {flow!r}")


def eighth_calls() -> list[dict]:
    """The eighth half's calls: three of each of the nineteen flows, in words of its own."""
    rng, WORDING_EIGHTH[0] = random.Random(SEED_EIGHTH), random.Random(SEED_EIGHTH + 1)
    out = []
    for flow in FLOWS_FIFTH:
        for k in range(CALLS_PER_FLOW):
            p = EighthPerson(rng, SPELLED_EIGHTH[k] if flow == "spelled as words" else None,
                             SHAPES_EIGHTH[k] if flow == "spelled" else None)
            script = eighth_opening(p, rng) + eighth_turns(flow, p, rng, k) + eighth_closing(p, rng)
            out.append({"id": f"eighth-{flow.replace(' ', '-')}-{k}", "flow": flow,
                        "voices": [list(voice) for voice in rng.sample(VOICES_EIGHTH, 2)],
                        "script": [[speaker, [[text, kind] for text, kind in parts]] for speaker, parts in script]})
    return out


def calls() -> dict[str, list[dict]]:
    """Every half's calls: id, flow, voices and script (turns of [text, kind or null] parts)."""
    out: dict[str, list[dict]] = {}
    for half, seed in SEEDS.items():
        HALF[0] = half
        rng = random.Random(seed)
        out[half] = []
        for flow in FLOWS:
            for k in range(CALLS_PER_FLOW):
                p = Person(rng, half)
                script = opening(p) + flow_turns(flow, p, rng) + closing(p, rng)
                out[half].append({"id": f"{half}-{flow.replace(' ', '-')}-{k}", "flow": flow,
                                  "voices": rng.sample(range(4), 2),
                                  "script": [[speaker, [[text, kind] for text, kind in parts]] for speaker, parts in script]})
    HALF[0] = "fifth"
    rng = random.Random(SEED_FIFTH)
    out["fifth"] = []
    for flow in FLOWS_FIFTH:
        for k in range(CALLS_PER_FLOW):
            p = FifthPerson(rng)
            turns = flow_turns(flow, p, rng) if flow in FLOWS else fifth_turns(flow, p, rng)
            script = fifth_opening(p, rng) + turns + closing(p, rng)
            out["fifth"].append({"id": f"fifth-{flow.replace(' ', '-')}-{k}", "flow": flow,
                                 "voices": [list(voice) for voice in rng.sample(VOICES_FIFTH, 2)],
                                 "script": [[speaker, [[text, kind] for text, kind in parts]] for speaker, parts in script]})
    out["sixth"] = sixth_calls()
    out["seventh"] = seventh_calls()
    out["eighth"] = eighth_calls()
    return out


if __name__ == "__main__":
    OUT.write_text(json.dumps(calls(), indent=1) + "\n")
    print(f"wrote {OUT}")
