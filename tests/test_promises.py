"""Promised actions in the speakers' own words: the clauses of a turn that promise a step after the call
(`promises_in`), and every such clause of a call (`spoken_promises`); what was done in the call, steps taken
while the caller waits, offers on a condition, refusals, policies, a caller's threats, acknowledgements and
questions are not promises."""
from __future__ import annotations

import pytest

from speechproc.stages.call_insights.grounding import Line
from speechproc.stages.call_insights.promises import clauses, is_promise, promises_in, spoken_promises

PROMISES = [  # (speaker, turn, the promise as the item gives it)
    ("Agent", "I'll send you a new router by Friday.", "I'll send you a new router by Friday."),
    ("Agent", "Thanks. The technician will call you an hour before arriving.",
     "The technician will call you an hour before arriving."),
    ("Agent", "I can't change it from here, but I'll put a request in and they will email you within a day.",
     "I'll put a request in and they will email you within a day."),
    ("Agent", "Okay. I can book a reader to come back on Tuesday between nine and one.",
     "I can book a reader to come back on Tuesday between nine and one."),
    ("Caller", "Great, I'll email the receipt over tonight.", "I'll email the receipt over tonight."),
    ("Agent", "So a refund will be issued once the parcel is back with us.",
     "A refund will be issued once the parcel is back with us."),
    ("Agent", "i'll get that sent over to you today", "I'll get that sent over to you today"),
    ("Agent", "okay so ill send you the form tomorrow", "Ill send you the form tomorrow"),  # a recogniser's "I'll"
    ("Agent", "theyll call you back on monday about the refund", "Theyll call you back on monday about the refund"),
    ("Agent", "Could you email us a photo of the label on the box?", "Could you email us a photo of the label on the box?"),
    ("Agent", "Right, you should receive the new card within five working days.",
     "You should receive the new card within five working days."),
    ("Speaker 1", "Our claims team is going to write to you next week.",
     "Our claims team is going to write to you next week."),
    ("Agent", "No, keep them. The refund should reach your card within three to five working days.",
     "The refund should reach your card within three to five working days."),
    ("Agent", "Expect a call from me by Thursday either way.", "Expect a call from me by Thursday either way."),
    ("Agent", "Just sign it and send it back in the prepaid envelope.",
     "Just sign it and send it back in the prepaid envelope."),
    ("Agent", "I'm reporting it to our safety team right now, and they will call you within two days.",
     "They will call you within two days."),
    ("Agent", "And I've booked Nala in for a nurse check tomorrow at ten-forty.",
     "I've booked Nala in for a nurse check tomorrow at ten-forty."),  # arranged in the call, for a later day
    ("Agent", "I'm putting a note in for my team leader to give you a ring on Thursday.",
     "I'm putting a note in for my team leader to give you a ring on Thursday."),
    ("Agent", "Could you also text a photo of the display to this number?",
     "Could you also text a photo of the display to this number?"),
    ("Agent", "If you could snap a photo of the meter and email it to us, that helps.",
     "If you could snap a photo of the meter and email it to us, that helps."),  # polite, not a condition
    ("Agent", "And in case the first one goes astray, I'll email you a prepaid label within the hour.",
     "In case the first one goes astray, I'll email you a prepaid label within the hour."),
    ("Caller", "Great. I'll clear that cupboard out on Thursday night.", "I'll clear that cupboard out on Thursday night."),
    # the caller's step given to someone of theirs, or something left ready for the visit
    ("Caller", "I'll get my brother to pick the parcel up from the depot.",
     "I'll get my brother to pick the parcel up from the depot."),
    ("Caller", "Right, I'll ask the caretaker to open the plant room.", "I'll ask the caretaker to open the plant room."),
    ("Caller", "I'll have our office manager read the lease.", "I'll have our office manager read the lease."),
    ("Caller", "I'll leave the spare key with the neighbour at number six.",
     "I'll leave the spare key with the neighbour at number six."),
    ("Caller", "Right, I'll let Joanna know the engineer is coming.", "I'll let Joanna know the engineer is coming."),
    ("Caller", "I'll make sure the back gate is unlocked for him.", "I'll make sure the back gate is unlocked for him."),
    # a step with a question tagged on that only asks whether it suits
    ("Caller", "I'll post the old meter back to you on Monday, is that okay?",
     "I'll post the old meter back to you on Monday."),
    ("Caller", "I'll send the floor plan over tonight \u2014 is it the sales address?", "I'll send the floor plan over tonight"),
    # looked into after the call; a step with its reason; "work out" and "a hold" are steps too
    ("Agent", "Let me check with the warehouse, and I'll get back to you by Friday.",
     "Let me check with the warehouse, and I'll get back to you by Friday."),
    ("Agent", "I'll post you the consent form today, because the clinic will want it signed.",
     "I'll post you the consent form today, because the clinic will want it signed."),
    ("Agent", "Then I'll work out the costs and e-mail you a quote tomorrow.",
     "I'll work out the costs and e-mail you a quote tomorrow."),
    ("Agent", "What I'll do is put a hold on the account this afternoon.",
     "What I'll do is put a hold on the account this afternoon."),
    # the caller's steps for the weekend, with a third party, or on the way somewhere
    ("Caller", "Right, I'll clear the gutters over the weekend.", "I'll clear the gutters over the weekend."),
    ("Caller", "yeah i'll ring the surgery and get them to send you the fit note",
     "Yeah i'll ring the surgery and get them to send you the fit note"),
    ("Caller", "I'll get the landlord's letter signed and scanned over to you.",
     "I'll get the landlord's letter signed and scanned over to you."),
    ("Caller", "I'm at work until six, but I'll pop into the branch on my way home and pick up the new card.",
     "I'll pop into the branch on my way home and pick up the new card."),
    ("Caller", "i'll drop it into the shop, i'm in there every day for the paper anyway",
     "I'll drop it into the shop, i'm in there every day for the paper anyway"),  # the habit is why, not the step
    ("Caller", "And I'll let our treasurer know about the reclaim, he'll be thrilled.",
     "I'll let our treasurer know about the reclaim, he'll be thrilled."),
    ("Caller", "yeah i'll ring my gran and tell her to listen out for the door",
     "Yeah i'll ring my gran and tell her to listen out for the door"),
    ("Caller", "Okay, I'll leave them on the desk in the room.", "I'll leave them on the desk in the room."),
    ("Caller", "right well i'll go round to the neighbour after this and knock",
     "I'll go round to the neighbour after this and knock"),
    # a hedge, what the step will leave ready, a detail just confirmed, "just" before a step for when it is ready
    ("Agent", "so um the courier should hopefully be with you thursday to swap the unit",
     "The courier should hopefully be with you thursday to swap the unit"),
    ("Agent", "We'll restore the backup overnight, and it'll be ready by seven tomorrow morning.",
     "We'll restore the backup overnight, and it'll be ready by seven tomorrow morning."),
    ("Agent", "No problem. I'll send the schedule to the email address we've just confirmed.",
     "I'll send the schedule to the email address we've just confirmed."),
    ("Agent", "so basically i'll just email you the new schedule once it's through",
     "Basically i'll just email you the new schedule once it's through"),
    # a booking with a step named before the "so" that follows
    ("Agent", "That's booked for Thursday, and he'll phone you when he's leaving the depot, so you'll know he's on the way.",
     "That's booked for Thursday, and he'll phone you when he's leaving the depot, so you'll know he's on the way."),
]

NOT_PROMISES = [
    ("Agent", "I'll be straight with you, there's a few problems there."),
    ("Agent", "I want to be upfront with you, she reviewed it herself, and she's going to tell you the same thing."),
    ("Agent", "Just so we're clear, nobody from here will be calling you back about tomorrow."),
    ("Agent", "I have to be frank, no one's going to look at that claim again."),
    ("Agent", "Okay, I've frozen it from today until the first of August."),
    ("Agent", "Let me take a look at that for you, one moment."),
    ("Agent", "I'll send a one-time code to the mobile on the account."),
    ("Agent", "If the train is cancelled again, you could claim a refund then."),
    ("Agent", "Ring us back and we'll book an engineer."),
    ("Agent", "I'm not able to promise any voucher."),
    ("Agent", "I'll need to verify you before we go any further."),
    ("Agent", "That'll be everything on the account for this month."),
    ("Agent", "Residents' permits aren't refundable once they've started."),
    ("Agent", "I can see the payment went out on Monday the third."),
    ("Agent", "Nothing will go through on the card until it's unfrozen."),
    ("Agent", "And if anything looks wrong, we'll sort it out for you."),
    ("Agent", "It'll still show as in progress on the portal until it's paid."),
    ("Agent", "I've switched substitutions off for that order, so anything out of stock will just be missing."),
    ("Agent", "We send the certificate at handover, which you'll have had by then."),
    ("Agent", "Give me your booking reference and I'll see what I can do."),
    ("Agent", "Right, send it now and stay on the line."),
    ("Caller", "Right. Well, I'll be moving my prescriptions to another pharmacy."),
    ("Caller", "I'll be putting this all over social media, believe me."),
    ("Caller", "I'm going to post about this on every review site I can find."),
    ("Caller", "I'm going to the butcher's anyway this afternoon."),
    ("Caller", "Okay, will do."),
    ("Agent", "Done."),
    ("Caller", "Will you send me a new card by Friday?"),
    ("Agent", "Will you be at home on Thursday morning?"),
    ("Agent", "She was ill, and the understudy stepped in at an hour's notice."),  # unwell, not a recogniser's I'll
    ("Agent", "There's no way we can get it done by Saturday."),  # a refusal
    ("Agent", "If you can read me the meter now, I'll put it straight on."),  # a condition met in the call
    ("Agent", "Have you booked the engineer for Tuesday?"),
    ("Caller", "Yes, I'll do that tonight when I'm home."),  # agrees to the agent's request, the item
    ("Caller", "I'm going to Spain on Thursday."),
    ("Caller", "I'll go to the ombudsman on Monday."),  # a threat, whatever the day
    ("Agent", "Lovely, we'll see you on the twenty-fourth then."),  # a farewell, not a step
    ("Caller", "i was ill on monday so i missed the payment"),  # unwell, not a recogniser's I'll
    ("Caller", "I'll be at home all day on Thursday."),  # where they will be, not a step
    ("Agent", "I tried to call you on Monday but there was no answer."),  # an attempt made
    ("Agent", "I was asked to call you today about your complaint."),  # why the agent rings now
    ("Agent", "I've arranged the refund today and it's already gone through."),
    ("Agent", "Text messages from us always come from the same number."),  # a noun, not a request
    # what a long call says besides its promises: how things work, what is done now, small talk
    ("Agent", "The bank will never ask for your PIN on a call."),
    ("Agent", "Restarting will not help in this case."),
    ("Agent", "I can't tell you what's best, because nobody knows which way prices will go."),
    ("Agent", "I'll walk you through it step by step, and I'll ask you a few questions as we go."),
    ("Agent", "I have two options for you, and I'll explain both."),
    ("Agent", "I'm going to look at the line more closely for a second."),
    ("Agent", "I will make sure it is escalated today on this call itself."),
    ("Agent", "I understand, sir, I will help you with that right away."),
    ("Agent", "Just leave everything plugged in where it is."),
    ("Agent", "I'll leave your chart as is."),
    ("Agent", "Keep warm, and enjoy the rest of your day."),
    ("Agent", "At least you'll have the mountains."),
    ("Agent", "You'll get a text roughly every three months when a reading's due."),
    ("Agent", "Sir, I will check the signal reading on your device from our system, that will tell us more."),
    ("Agent", "It is a ten digit number starting with 7, you will find it in the app or on the invoice."),
    ("Agent", "The legal limit is one point six, and it'll have worn a bit since last year."),
    ("Agent", "We'll cover accommodation if a flight's cancelled or severely delayed on the day of travel."),
    ("Agent", "They're cheap, and they'll beep or send an alert to your phone if they detect water."),
    ("Agent", "You can always call us back once you've checked with them, and we'll find you a time."),
    ("Agent", "The other option I was going to mention is a travel credit you could use within twelve months."),
    ("Agent", "Aw that's lovely eighteen that's a big birthday where's he going to university"),
    ("Agent", "is he eating his food and going to the toilet normally and full of beans"),
    ("Agent", "A faster package on a line with a fault isn't going to help you."),
    ("Caller", "No, I'll keep Tuesday, I'm not working, I don't really need one."),
    # a detail asked for now, in a transcript without its question mark
    ("Agent", "sir i will help you with the date change may i have the pnr number please"),
    ("Agent", "oh dear okay i'm sorry to hear that we'll get it sorted for you can i take your full name please"),
    ("Agent", "Before I pull anything up, can you give me the email address the account is registered under?"),
    # how a payment will look, small talk, and steps narrated as they are taken in the call
    ("Agent", "The refund's gone back to your card and it'll show in five to seven working days."),
    ("Agent", "Take care, Maureen, and we'll speak soon."),
    ("Agent", "Good luck with the new job, I hope you'll be starting very soon."),
    ("Agent", "I'll take the card details for the deposit."),
    ("Agent", "What I'll do now is update the case with everything you've told me."),
    ("Agent", "I'll put that down as your availability for the engineer."),
    ("Agent", "I'll renew those for you while I'm here, they're due on Friday."),
    # the caller put through to another line or team during the call
    ("Agent", "I'll pass you to our secure payment line, so the numbers aren't on the recording."),
    ("Agent", "I'm going to put you through to our bookings team, they'll sort the dates with you."),
    # the caller's words that give no step to anyone
    ("Caller", "I'll get my husband to do it."),
    ("Caller", "Look, I'll get straight to it, the bill is wrong."),
    ("Caller", "I'll let you get back to your day."),
    ("Caller", "I'll leave it there, thanks."),
    ("Caller", "I'll have my daughter back by then to help."),
    ("Agent", "Hold on, let me check with the warehouse and I'll come back to you in a moment."),
    ("Agent", "Keep the receipt safe, because you'll need it if it fails."),
    # speaking up on the line, how someone will feel, reassurance, a step done now with its consequence
    ("Agent", "Of course, I'll speak up."),
    ("Caller", "Sorry, I'll talk a bit louder."),
    ("Agent", "Will do, he'll be chuffed to bits."),
    ("Agent", "She'll be in good hands there, the team are lovely."),
    ("Agent", "I've switched it off, so nothing will be charged."),
    ("Agent", "Okay, I've just sent it to the address we've got, so you'll have it in a minute."),
    ("Caller", "I'll tell my wife, she checks the post more than I do."),  # news passed on, no step for the call
    # an offer put as a question, a lead-in, a thought told of the past, a step noted in the call
    ("Agent", "Would you like me to send the missing food out?"),
    ("Agent", "Would you mind if I pop you on hold for a couple of minutes while I check the lab sheet?"),
    ("Agent", "Okay, so here's what I'll do."),
    ("Caller", "They're just not right, i've been trying all week thinking i'll get used to them"),
    ("Caller", "The woman there was nicer to me than anyone here has been today, i'll tell you that for nothing"),
    ("Agent", "I'll put it down as a work bike, which moves it up the workshop queue."),
]


STILL_PROMISES = [
    ("Caller", "I'll let the minister know tonight so nobody's surprised in the morning"),
    ("Agent", "I'll ring you back straight after lunch with the price."),
    ("Agent", "I'll email you the reference number and a summary of what we discussed after this call."),
    ("Agent", "i'll chase the supplier about the missing sofa cushions and let you know where they are"),
    ("Agent", "I'll email you our complaints procedure so you can take it further if you want to."),
    ("Agent", "Then I'll email the quote within twenty-four hours of the survey, and it'll include packing if you want it."),
    ("Agent", "It usually takes two to three weeks, and we'll text you when it's arrived for you to pick up."),
    ("Agent", "And if you could bring the box in next time you're passing, she'll double-check the batch for you."),
    ("Agent", "I'll put a note on your account and the team will ring you on Thursday."),
    ("Agent", "You'll get a text with a payment link in a minute, and the panel will be with you by Friday."),
    ("Agent", "Here's what I'll do, I'll ring the depot in the morning and call you back by twelve."),
    ("Agent", "Could you send us a photo of the label before Friday?"),
]


@pytest.mark.parametrize("speaker,turn", STILL_PROMISES)
def test_a_promise_beside_a_condition_a_habit_or_a_place_is_still_found(speaker, turn):
    assert promises_in(turn, speaker)


@pytest.mark.parametrize("speaker,turn,item", PROMISES)
def test_a_promise_of_a_step_after_the_call_is_found_in_the_speakers_words(speaker, turn, item):
    assert promises_in(turn, speaker) == [item]


@pytest.mark.parametrize("speaker,turn", NOT_PROMISES)
def test_what_promises_nothing_for_after_the_call_is_not_an_action_item(speaker, turn):
    assert promises_in(turn, speaker) == []


def test_a_turn_is_judged_clause_by_clause():
    turn = "I've cancelled the old order. The new one will arrive on Monday, but I can't refund the postage."
    assert clauses(turn) == ["I've cancelled the old order.", "The new one will arrive on Monday",
                             "I can't refund the postage."]
    assert promises_in(turn, "Agent") == ["The new one will arrive on Monday"]


def test_a_threat_is_no_step_unless_the_agent_says_it_of_the_company():
    # "review" from a caller, or a speaker of unknown role, is a threat; the agent's team reviewing is a step
    assert not is_promise("I'm going to leave a terrible review of you lot.", "Caller")
    assert not is_promise("I'm going to leave a terrible review of you lot.", "Speaker 2")
    assert is_promise("Our billing team will review the charge and write to you.", "Agent")
    assert is_promise("Our billing team will review the charge and write to you.", "Speaker 1")


def line(number: int, speaker: str, text: str, instruction: bool = False) -> Line:
    return Line(number, speaker, number * 1000, number * 1000 + 900, text, instruction)


def test_a_calls_promises_come_in_the_order_said_each_once_with_its_turn():
    lines = [line(1, "Agent", "Hello, how can I help?"),
             line(2, "Caller", "My boiler is leaking. I'll send you a photo of it tonight."),
             line(3, "Agent", "Okay. An engineer will visit on Thursday between eight and noon."),
             line(4, "Agent", "So, an engineer will visit on Thursday between eight and noon. Anything else?")]
    found = spoken_promises(lines)
    assert [(a.speaker, a.text, a.s, a.e) for a in found] == [
        ("Caller", "I'll send you a photo of it tonight.", 2000, 2900),
        ("Agent", "An engineer will visit on Thursday between eight and noon.", 3000, 3900)]


def test_a_turn_cut_at_a_spoken_instruction_gives_only_what_came_before():
    # `lines_of` keeps as text only the words before the instruction
    lines = [line(1, "Caller", "I'll post the form back on Monday.", instruction=True)]
    assert [a.text for a in spoken_promises(lines)] == ["I'll post the form back on Monday."]
    assert spoken_promises([line(1, "Caller", "", instruction=True)]) == []


@pytest.mark.parametrize("turn", ["", ".", "?" * 50, "will " * 5_000, "🙂 will", "but " * 1_000,
                                  "I will call you back tomorrow " * 2_000, "\x00\n\t", "if " * 3_000 + "will",
                                  "nobody " * 5_000 + "will", "no one's " * 3_000, "to be straight with you " * 2_000])
def test_hostile_turns_are_read_without_error(turn):
    assert isinstance(promises_in(turn, "Agent"), list)
    assert isinstance(promises_in(turn, "Caller"), list)


def test_ten_thousand_turns_each_give_their_own_promise():
    lines = [line(k, "Agent" if k % 2 else "Caller",
                  f"Okay. I'll send form {k} to you by Friday, but if it's late give us a ring.")
             for k in range(1, 10_001)]
    found = spoken_promises(lines)
    assert [a.text for a in found[:2]] == ["I'll send form 1 to you by Friday", "I'll send form 2 to you by Friday"]
    assert len(found) == 10_000 and [a.s for a in found] == sorted(a.s for a in found)
