#!/usr/bin/env python3
"""The calls of the personal-data benchmark (`benchmarks/pii.py`), each a script of turns whose words carry the
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

`python benchmarks/pii_calls.py` writes benchmarks/pii_calls.json; that file is committed before any tuning,
and the benchmark reads it, not this generator.
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
    reworded = {"fresh": REWORDED, "last": REWORDED_LAST}.get(HALF[0], {})
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
        colleague, partner = p.other, f"{rng.choice(POOLS_OTHER)} {p.last}"
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


def calls() -> dict[str, list[dict]]:
    """Both halves' calls: id, flow and script (turns of [text, kind or null] parts)."""
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
    return out


if __name__ == "__main__":
    OUT.write_text(json.dumps(calls(), indent=1) + "\n")
    print(f"wrote {OUT}")
