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
    reworded = {"fresh": REWORDED, "last": REWORDED_LAST, "fifth": REWORDED_FIFTH}.get(HALF[0], {})
    return (reworded.get(text, text), None)


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
        colleague, partner = p.other, f"{rng.choice(OTHERS_FIFTH if HALF[0] == 'fifth' else POOLS_OTHER)} {p.last}"
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
    return out


if __name__ == "__main__":
    OUT.write_text(json.dumps(calls(), indent=1) + "\n")
    print(f"wrote {OUT}")
