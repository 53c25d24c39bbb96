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

`python benchmarks/personal_data/pii_calls.py` writes benchmarks/personal_data/pii_calls.json; that file is committed before
any tuning, and the benchmark reads it, not this generator.
"""
from __future__ import annotations

import json
import random
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
    return out


if __name__ == "__main__":
    OUT.write_text(json.dumps(calls(), indent=1) + "\n")
    print(f"wrote {OUT}")
