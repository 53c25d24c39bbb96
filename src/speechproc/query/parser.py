"""The query language's grammar, by recursive descent, into a small tree of dataclasses.

    statement  := SELECT items FROM media [WHERE cond | MATCH string] [ORDER BY field [ASC|DESC]]
                  [LIMIT n [OFFSET n]]
    cond       := and {OR and}                       whole call: any holds
    and        := not {AND [NOT] not}                whole call: all hold / the first and not the second
    not        := {NOT} turn_or
    turn_or    := turn_and {|| turn_and}             within one turn: any is said
    turn_and   := turn_not {&& turn_not}             within one turn: all are said
    turn_not   := {!} windowed
    windowed   := atom [ '[' [time] ',' [time] ']' ]
    atom       := ( cond ) | who SAYS turn_or | string [/ n] | field op value
    who        := string | *

Operators bind from loosest to tightest: OR, AND (AND NOT), NOT, ||, &&, !, then a time window, which
applies to everything inside the atom before it. A quoted term after AND/OR without its own SAYS is
said by the speaker of the nearest SAYS before it (`* SAYS "cancel*" AND NOT "renew*"`).

Chains of AND, OR, &&, || and NOT are read in loops into flat nodes, so only parentheses and SAYS
nest; the MAX_* limits below (and digits, in the lexer) keep every accepted query within what the
evaluator and the FTS5 narrowing handle, whatever Python's recursion limit.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from speechproc.query.errors import QuerySyntaxError
from speechproc.query.lexer import Lexeme, tokenize
from speechproc.query.tree import (
    ANYONE,
    CHAINS,
    COMPARISONS,
    DEFAULT_LIMIT,
    FIELDS,
    INSIGHT_FIELDS,
    MAX_DEPTH,
    MAX_LIMIT,
    MAX_OFFSET,
    MAX_QUERY_LENGTH,
    MAX_SLOP,
    MAX_TERMS,
    MAX_WINDOW_MS,
    TURN_NODES,
    CallAnd,
    CallNot,
    CallOr,
    Comparison,
    Order,
    Phrase,
    Statement,
    TurnAnd,
    TurnNot,
    TurnOr,
    Window,
    normalise_pattern,
    reads_text,
)

_UNIT_MS = {"": 1000, "s": 1000, "ms": 1, "m": 60000}


@dataclass
class _Parser:
    query: str
    tokens: list[Lexeme]
    i: int = 0
    speaker: str | None = None  # the speaker of the nearest SAYS, for bare terms after it
    depth: int = 0  # parentheses and SAYS open around the current token
    terms: int = 0  # quoted terms and comparisons so far

    # ---------------------------------------------------------------- tokens

    @property
    def tok(self) -> Lexeme:
        return self.tokens[self.i]

    def error(self, message: str, token: Lexeme | None = None) -> QuerySyntaxError:
        return QuerySyntaxError(message, (token or self.tok).position, self.query)

    def describe(self, token: Lexeme) -> str:
        return "the end of the query" if token.kind == "END" else repr(token.text if token.kind != "STRING"
                                                                             else f"'{token.text}'")

    def at(self, kind: str, text: str | None = None) -> bool:
        return self.tok.kind == kind and (text is None or self.tok.text == text)

    def take(self, kind: str, text: str | None = None) -> Lexeme | None:
        if self.at(kind, text):
            self.i += 1
            return self.tokens[self.i - 1]
        return None

    def advance(self) -> Lexeme:
        """The current token, taken: the caller has checked what it is."""
        self.i += 1
        return self.tokens[self.i - 1]

    def expect(self, kind: str, text: str | None, what: str) -> Lexeme:
        token = self.take(kind, text)
        if token is None:
            raise self.error(f"expected {what}, found {self.describe(self.tok)}")
        return token

    # ---------------------------------------------------------------- statement

    def statement(self) -> Statement:
        self.expect("KEYWORD", "SELECT", "SELECT")
        items = self.items()
        self.expect("KEYWORD", "FROM", "FROM")
        source = self.expect("NAME", None, "media after FROM")
        if source.text != "media":
            raise self.error(f"unknown library {source.text!r}: the only one is media", source)
        condition = None
        if self.take("KEYWORD", "WHERE"):
            if self.at("OP", "*") and self.tokens[self.i + 1].kind in ("END", "KEYWORD") \
                    and self.tokens[self.i + 1].text in ("", "ORDER", "LIMIT"):
                self.i += 1  # WHERE *: every media item
            else:
                condition = self.condition()
        elif self.take("KEYWORD", "MATCH"):
            text = self.expect("STRING", None, "a quoted text after MATCH")
            condition = self.term(text, ANYONE)
        order = self.order() if self.take("KEYWORD", "ORDER") else None
        limit, offset, limited = DEFAULT_LIMIT, 0, False
        if self.take("KEYWORD", "LIMIT"):
            limited = True
            limit = self.count("LIMIT", 1, MAX_LIMIT)
            if self.take("KEYWORD", "OFFSET"):
                offset = self.count("OFFSET", 0, MAX_OFFSET)
        if not self.at("END"):
            raise self.error(f"unexpected {self.describe(self.tok)}")
        return Statement(tuple(items), condition, order, limit, offset, self.query, limited)

    def bare_condition(self) -> Statement:
        condition = self.condition()
        if not self.at("END"):
            raise self.error(f"unexpected {self.describe(self.tok)}")
        return Statement(("*",), condition, text=self.query)

    def items(self) -> list[str]:
        items: list[str] = []
        while True:
            if self.take("OP", "*"):
                items.append("*")
            else:
                name = self.expect("NAME", None, "a field name, * or hits() after SELECT")
                if self.take("OP", "("):
                    self.expect("OP", ")", "')'")
                    if name.text.lower() != "hits":
                        raise self.error(f"unknown function {name.text}(): the only one is hits()", name)
                    items.append("hits()")
                else:
                    items.append(self.field_name(name))
            if not self.take("OP", ","):
                return items

    def order(self) -> Order:
        self.expect("KEYWORD", "BY", "BY after ORDER")
        name = self.field_name(self.expect("NAME", None, "a field after ORDER BY"))
        descending = bool(self.take("KEYWORD", "DESC"))
        if not descending:
            self.take("KEYWORD", "ASC")
        return Order(name, descending)

    def count(self, what: str, low: int, high: int) -> int:
        token = self.expect("NUMBER", None, f"a number after {what}")
        if token.unit or "." in token.text or not low <= int(token.text) <= high:
            raise self.error(f"{what} must be a whole number from {low} to {high}", token)
        return int(token.text)

    # ---------------------------------------------------------------- conditions

    def condition(self) -> object:
        operands = [self.call_and()]
        while self.take("KEYWORD", "OR"):
            operands.append(self.call_and())
        return _chain(CallOr, operands)

    def call_and(self) -> object:
        operands = [self.call_not()]
        while self.take("KEYWORD", "AND"):
            operands.append(CallNot(self.call_not()) if self.take("KEYWORD", "NOT") else self.call_not())
        # a condition that needs no transcript first: it may spare reading one (AND is commutative)
        return _chain(CallAnd, sorted(operands, key=reads_text))

    def call_not(self) -> object:
        negations = 0
        while self.take("KEYWORD", "NOT"):
            negations += 1
        return _negated(self.turn_or(), negations, CallNot)

    def turn_or(self) -> object:
        start = self.tok
        operands = [self.turn_and()]
        while self.at("OP", "||"):
            op = self.advance()
            self.turn_operand(operands[0], start)
            operands.append(self.turn_operand(self.turn_and(), op))
        return _chain(TurnOr, operands)

    def turn_and(self) -> object:
        start = self.tok
        operands = [self.turn_not()]
        while self.at("OP", "&&"):
            op = self.advance()
            self.turn_operand(operands[0], start)
            operands.append(self.turn_operand(self.turn_not(), op))
        return _chain(TurnAnd, operands)

    def turn_not(self) -> object:
        bangs = []
        while self.at("OP", "!"):
            bangs.append(self.advance())
        if not bangs:
            return self.windowed()
        operand = self.turn_operand(self.windowed(), bangs[-1])
        speaker = self.speaker or ANYONE
        return _negated(operand, len(bangs), lambda node: TurnNot(node, speaker))

    def turn_operand(self, node: object, token: Lexeme) -> object:
        if not isinstance(node, TURN_NODES):
            raise self.error("&&, || and ! join what is said within one turn; use AND, OR and AND NOT for "
                             "whole-call conditions and field comparisons", token)
        return node

    def windowed(self) -> object:
        node = self.atom()
        windows = []
        while self.at("OP", "["):
            windows.append(self.window())
        return _with_windows(node, tuple(windows)) if windows else node

    def window(self) -> Window:
        opening = self.take("OP", "[")
        start = self.time_bound()
        self.expect("OP", ",", "',' between the two bounds of a time window")
        end = self.time_bound()
        self.expect("OP", "]", "']' closing the time window")
        if start is not None and end is not None and (start >= 0) == (end >= 0) and end < start:
            raise self.error("the time window ends before it starts", opening)
        return Window(start, end)

    def time_bound(self) -> int | None:
        token = self.take("NUMBER")
        if token is None:
            return None
        if token.unit not in _UNIT_MS:
            raise self.error("a time is in seconds: 30s, 1.5s, 500ms or 2m", token)
        ms = round(float(token.text) * _UNIT_MS[token.unit])
        if abs(ms) > MAX_WINDOW_MS:
            raise self.error(f"a time window bound may be at most {MAX_WINDOW_MS // 3600000} hours "
                             f"({MAX_WINDOW_MS // 1000}s) either way", token)
        return ms

    def enter(self, token: Lexeme) -> None:
        """One more level of parentheses or SAYS, within the nesting limit."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"the query nests parentheses and SAYS more than {MAX_DEPTH} levels deep", token)

    def count_term(self, token: Lexeme) -> None:
        """One more quoted term or comparison, within the limit on terms."""
        self.terms += 1
        if self.terms > MAX_TERMS:
            raise self.error(f"the query has more than {MAX_TERMS} terms (quoted terms and comparisons)", token)

    def atom(self) -> object:
        token = self.tok
        if self.take("OP", "("):
            self.enter(token)
            node = self.condition()
            self.expect("OP", ")", "')'")
            self.depth -= 1
            return node
        if token.kind == "STRING" or (token.kind == "OP" and token.text == "*"):
            if self.tokens[self.i + 1].kind == "KEYWORD" and self.tokens[self.i + 1].text == "SAYS":
                return self.says()
            if token.kind == "STRING":
                self.i += 1
                if self.speaker is None:
                    raise self.error("a quoted term needs a speaker first: write * SAYS \"...\" or "
                                     "\"Agent\" SAYS \"...\"", token)
                return self.term(token, self.speaker)
        if token.kind == "NAME":
            return self.comparison()
        raise self.error(f"expected a condition, found {self.describe(token)}")

    def says(self) -> object:
        who = self.advance()  # a quoted speaker or *, as `atom` saw
        self.expect("KEYWORD", "SAYS", "SAYS")
        self.speaker = ANYONE if who.kind == "OP" else who.text
        if not self.speaker.strip():
            raise self.error("the speaker name is empty", who)
        self.enter(who)
        node = self.turn_or()
        self.depth -= 1
        return node

    def term(self, token: Lexeme, speaker: str) -> Phrase:
        self.count_term(token)
        words = tuple(normalise_pattern(w) for w in token.text.split())
        words = tuple(w for w in words if w)
        if not words:
            raise self.error("the quoted term has no words", token)
        for w in words:
            if "*" in w[:-1] or w == "*":
                raise self.error("a wildcard * may only end a word, after at least one letter", token)
        slop = 0
        if self.take("OP", "/"):
            slop = self.count("/ (the number of extra words a phrase may hold)", 0, MAX_SLOP)
        return Phrase(words, speaker, slop, (), token.text)

    def comparison(self) -> Comparison:
        name = self.advance()  # the field's NAME, as `atom` saw
        self.count_term(name)
        field_ = self.field_name(name)
        op = self.tok
        if not (op.kind == "OP" and op.text in COMPARISONS):
            raise self.error(f"expected a comparison (=, !=, <, <=, >, >=) after {field_}")
        self.i += 1
        value = self.tok
        if value.kind == "STRING":
            self.i += 1
            return Comparison(field_, "!=" if op.text == "<>" else op.text, value.text, name.position)
        if value.kind == "NUMBER":
            self.i += 1
            number = float(value.text)
            if value.unit:  # a duration: compared in milliseconds, like `length`
                number *= _UNIT_MS[value.unit]
            return Comparison(field_, "!=" if op.text == "<>" else op.text, number, name.position)
        raise self.error(f"expected a number or a quoted value after {op.text}")

    def field_name(self, name: Lexeme) -> str:
        text = name.text
        if text.endswith((":", ".")):
            if not self.at("STRING"):
                raise self.error(f"expected a quoted name after {text}")
            text += self.advance().text
        head = text.split(".", 1)[0].split(":", 1)[0]
        if head == "metrics":
            return "metrics:" + text[len("metrics") + 1:]
        if head == "insights":
            rest = text[len("insights") + 1:]
            if rest not in INSIGHT_FIELDS and not (rest.startswith("answer.") and len(rest) > len("answer.")):
                raise self.error(f"unknown insights field {rest!r}: use insights.{', insights.'.join(INSIGHT_FIELDS)} "
                                 "or insights.answer.<question name>", name)
            return "insights." + rest
        if head == "metadata":
            rest = text[len("metadata") + 1:]
            if not rest:
                raise self.error("metadata needs a field: metadata.title, metadata:extended.team", name)
            return "metadata." + rest.replace(":", ".")
        if text not in FIELDS:
            raise self.error(f"unknown field {text!r}: use {', '.join(FIELDS)}, metadata.<field>, "
                             "metrics:\"<metric-name>\" or insights.<field>", name)
        return text


def _chain(kind: type, operands: list[object]) -> object:
    """One operand as itself; more as one flat node of `kind`."""
    return operands[0] if len(operands) == 1 else kind(*operands)


def _negated(node: object, negations: int, negate) -> object:
    """`node` under `negations` negations: one when odd, two when even (hits are dropped either way)."""
    if negations == 0:
        return node
    node = negate(node)
    return negate(node) if negations % 2 == 0 else node


def _with_windows(node: object, windows: tuple[Window, ...]) -> object:
    """The node with `windows` added to every term inside it."""
    if isinstance(node, Phrase):
        return replace(node, windows=node.windows + windows)
    if isinstance(node, CHAINS):
        return type(node)(*(_with_windows(operand, windows) for operand in node.operands))
    if isinstance(node, (TurnNot,)):
        return TurnNot(_with_windows(node.operand, windows), node.speaker)
    if isinstance(node, CallNot):
        return CallNot(_with_windows(node.operand, windows))
    return node  # a comparison has no time


def _tokens(query: str) -> list[Lexeme]:
    """The tokens of a query that is not empty and not longer than MAX_QUERY_LENGTH."""
    if not isinstance(query, str) or not query.strip():
        raise QuerySyntaxError("the query is empty", 0, query if isinstance(query, str) else "")
    if len(query) > MAX_QUERY_LENGTH:
        raise QuerySyntaxError(f"the query has {len(query)} characters; at most {MAX_QUERY_LENGTH} are allowed",
                               MAX_QUERY_LENGTH, query)
    return tokenize(query)


def parse(query: str) -> Statement:
    """Parse a full statement (SELECT ... FROM media ...); raise QuerySyntaxError with the position.

    A query within the MAX_* limits parses without deep recursion; one beyond them is an error."""
    return _Parser(query, _tokens(query)).statement()


def parse_condition(query: str) -> Statement:
    """A full statement, or just a condition (`"Agent" SAYS "refund*"`) read as SELECT * FROM media WHERE it."""
    tokens = _tokens(query)
    if tokens[0].kind == "KEYWORD" and tokens[0].text == "SELECT":
        return _Parser(query, tokens).statement()
    return _Parser(query, tokens).bare_condition()
