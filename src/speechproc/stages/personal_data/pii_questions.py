"""What a question asks for, read by a sentence encoder, beside the PII detector's question patterns
(`stages/personal_data/pii_talk.py`): "May I ask who's calling?" and "Can I have your phone name please?" ask for a name
though no pattern names them.

The question's words are embedded with the bundled MiniLM and compared with example questions of each kind of
personal data and with questions that ask for none ("How can I help you today?", "Is that correct?"); the
kind of the nearest example is the answer when it is at least MIN_SIMILARITY alike and asks for data.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from speechproc.engines.sentence_encoder import SentenceEncoder

MIN_SIMILARITY = 0.6
EXAMPLES = {
    "name": ("What is your name?", "Can I get your full name?", "Who am I speaking with?",
             "May I have your first and last name?", "Could you tell me your name please?", "Who's calling today?",
             "Can you spell your last name for me?", "And your surname?", "What name is the account under?",
             "And your first name?"),
    "dateOfBirth": ("What is your date of birth?", "Can you confirm your birthday?", "What year were you born?",
                    "And your DOB?", "Could I get your birth date for verification?"),
    "address": ("What is your home address?", "Can you confirm the address on file?", "Where do you live?",
                "What's your street address?", "And the city and zip code?", "Where should we ship it?",
                "What's your mailing address?", "And which state is that in?", "What's the postcode?",
                "And the street name?"),
    "email": ("What is your email address?", "Can I get an email to send the confirmation to?",
              "What's the best email for you?"),
    "phone": ("What's your phone number?", "What is the best number to reach you?", "Can I get a callback number?",
              "What's your mobile number?", "Is there a phone number we can call you on?"),
    "account": ("What's your account number?", "Can you read me the account number?", "Do you have your membership ID?",
                "What's your policy number?", "Do you have the reference number?"),
    "bankRouting": ("What's your bank routing number?", "Can I have the routing number for your bank?",
                    "And the ABA number?"),
    "pin": ("What's your PIN?", "Can you confirm your four digit PIN?", "What's your passcode?",
            "And your security PIN please?"),
    "driversLicense": ("What is your driver's license number?", "Can I get the number on your driving licence?"),
    "passport": ("What's your passport number?", "Could you read me the passport number?"),
    None: ("How can I help you today?", "Is there anything else I can help you with?", "Is that correct?",
           "Can you hold for a moment?", "Did you try restarting the router?", "Would you like me to process the refund?",
           "How long has this been happening?", "What seems to be the problem?", "Do you want to upgrade your plan?",
           "Are you still there?", "Can you hear me?", "Which plan are you on?", "When did you first notice the charge?",
           "Would you like a receipt?", "Is the account in your name?", "Did I get that right?", "What can I do for you?",
           "Have you called us before about this?", "Thank you for calling, how may I direct your call?",
           "Is this a good time to talk?"),
}


class QuestionReader:
    """The kind of personal data questions ask for, by their nearest example (see the module)."""

    def __init__(self, encoder: SentenceEncoder, min_similarity: float = MIN_SIMILARITY) -> None:
        self.encoder = encoder
        self.min_similarity = min_similarity
        self.kinds = [kind for kind, examples in EXAMPLES.items() for _ in examples]
        self.examples = encoder.encode([e for examples in EXAMPLES.values() for e in examples])

    def __call__(self, questions: Sequence[str]) -> list[str | None]:
        """For each question, the kind of personal data it asks for, or None."""
        return [kind if similarity >= self.min_similarity else None for kind, similarity in self.nearest(questions)]

    def nearest(self, questions: Sequence[str]) -> list[tuple[str | None, float]]:
        """For each question, the kind of its nearest example (None: one that asks for no data) and how alike
        they are."""
        if not questions:
            return []
        similarity = self.encoder.encode(list(questions)) @ self.examples.T
        best = np.argmax(similarity, axis=1)
        return [(self.kinds[k], float(similarity[i, k])) for i, k in enumerate(best)]


class Askers:
    """The questions of one transcript read once, for two readings: `ask` at the reader's own similarity, and
    `broad_ask` at a lower one (the PII detector's strict mode)."""

    def __init__(self, reader: QuestionReader, broad_similarity: float) -> None:
        self.reader, self.broad_similarity = reader, broad_similarity
        self.read: dict[str, tuple[str | None, float]] = {}

    def _nearest(self, questions: Sequence[str]) -> list[tuple[str | None, float]]:
        unread = list(dict.fromkeys(q for q in questions if q not in self.read))
        self.read.update(zip(unread, self.reader.nearest(unread)))
        return [self.read[q] for q in questions]

    def ask(self, questions: Sequence[str]) -> list[str | None]:
        return [kind if s >= self.reader.min_similarity else None for kind, s in self._nearest(questions)]

    def broad_ask(self, questions: Sequence[str]) -> list[str | None]:
        return [kind if s >= self.broad_similarity else None for kind, s in self._nearest(questions)]
