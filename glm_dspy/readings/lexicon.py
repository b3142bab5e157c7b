"""The English the readings know, in one place: the words that say what a question asks and
what to do with the values it finds. Nothing here names a graph's types, relations or values:
those come from the schema (`SchemaNouns` in glm_dspy/readings/answer_type.py). Words are lemmas
(glm_dspy/readings/words.py lemmatizes with lemminflect), lower case.
"""

from __future__ import annotations

# the question words, by the kind of answer each asks for
PERSON_WH = frozenset({"who", "whom", "whose"})
PLACE_WH = frozenset({"where"})
TIME_WH = frozenset({"when"})
CHOOSING_WH = frozenset({"what", "which"})  # the noun after them says what is asked
HOW = "how"
QUANTITY_AFTER_HOW = frozenset({"many", "much"})
AGE_AFTER_HOW = frozenset({"old"})  # "how old": an age
SPAN_AFTER_HOW = frozenset({"long"})  # "how long": a span of time

# nouns that name a unit of time: "what year" asks a year, "how many years" a span in years
YEAR, DATE, MONTH, DECADE = "year", "date", "month", "decade"
TIME_UNITS = {"year": YEAR, "date": DATE, "day": DATE, "month": MONTH, "decade": DECADE}
AGE_NOUNS = frozenset({"age"})

# openings that are no part of the question: "Could you tell me who ...", "Hey, do you know when ..."
GREETINGS = frozenset({"hey", "hi", "hello", "ok", "okay", "so", "um", "uh", "please", "quick", "question"})
ASKING_AUX = frozenset({"can", "could", "would", "will"})
TELLING_VERBS = frozenset({"tell", "let", "show", "give", "inform", "name", "list", "specify", "identify",
                           "provide", "say", "share", "find", "know", "remind", "count"})
# a clause these open, with no auxiliary after, leads the main question: "When X won, was Y alive?"
RELATIVES = frozenset({"that", "which", "who", "whom", "whose", "where", "when"})  # "compounds that are ..."
SUBORDINATORS = frozenset({"when", "after", "before", "once", "while", "whenever"})
KNOWING_VERBS = frozenset({"know", "wonder", "remember", "recall"})  # "do you know", "I wonder"
WANTING_VERBS = frozenset({"want", "like", "need", "wish"})  # "I'd like to know"
PRONOUNS = frozenset({"you", "me", "us", "i", "we"})
IMPERATIVES = frozenset({"name", "list", "give", "tell", "show", "find", "identify", "state", "say"})
INDEFINITE = frozenset({"a", "an"})
CARDINALS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
             "ten": 10, "dozen": 12}
NUMBER_WORDS = frozenset(CARDINALS)
SMALL_NUMBERS = {word: n for word, n in CARDINALS.items() if n <= 10}  # "two million", "more than two": not "dozen"
# an ordinal before a superlative counts from that end: "the second-largest", "the third most populous"
ORDINALS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
            "tenth": 10}
MOST, LEAST = "most", "least"  # before an adjective, its superlative: "the most populous"
TOP = "top"  # "the top three"
# adjectives of how often: "the most common first name" is the value the most things share, not a number's order
FREQUENCY_WORDS = frozenset({"common", "frequent", "usual", "typical", "prevalent", "widespread", "popular"})
DETERMINERS = frozenset({"a", "an", "the", "one", "some", "any", "all", "every", "each", "this", "that", "these",
                         "those", "other", "another"})
AUXILIARIES = frozenset({"is", "was", "are", "were", "be", "been", "do", "does", "did", "has", "have", "had", "can",
                         "could", "will", "would", "should", "may", "might", "must"})
POSSESSING = frozenset({"have"})  # "which has X": the thing that has it is asked, not X
PREPOSITIONS = frozenset({"in", "on", "at", "under", "from", "with", "by", "for", "to", "of", "into", "during",
                          "since", "after", "before", "about", "through", "between"})
CHOICE = "or"
CLAUSE_MARKS = frozenset({",", ";", ":", ".", "!"})  # "?" ends a question

# comparison of two named things by a value: "who was older", "which came first"
EARLIER_WORDS = frozenset({"old", "early", "first", "soon"})  # older: born earlier
LATER_WORDS = frozenset({"young", "late", "last", "recent", "new"})
LARGER_WORDS = frozenset({"large", "big", "high", "many", "much", "populous", "long", "tall", "great", "more"})
SMALLER_WORDS = frozenset({"small", "little", "low", "few", "short", "less"})
ORDINAL_DEGREE = frozenset({"first", "last"})  # ordinals that compare without a comparative form

ARTICLES = frozenset({"a", "an", "the"})
POSSESSIVES = frozenset({"s", "his", "her", "its", "their", "my", "your", "our"})  # "s": a possessive's "'s", split off
AGENT = "by"  # "directed by X": the agent of a passive

# words of closed classes, never a name alone (glm_dspy/readings/as_written.py)
PRONOUNS_OF_THINGS = frozenset({"it", "its", "they", "them", "their", "his", "her", "he", "she", "him", "there"})
CONNECTIVES = frozenset({"and", "not", "no", "nor", "but", "than", "then", "if", "whether"})
CLOSED_CLASS = (PERSON_WH | PLACE_WH | TIME_WH | CHOOSING_WH | {HOW} | QUANTITY_AFTER_HOW | GREETINGS | ASKING_AUX
                | PRONOUNS | PRONOUNS_OF_THINGS | INDEFINITE | NUMBER_WORDS | DETERMINERS | AUXILIARIES
                | PREPOSITIONS | CONNECTIVES | {CHOICE})

# what a question asks to do with the values it reads (glm_dspy/readings/operators.py)
FIRST_WORDS = frozenset({"first", "initial"})  # the first of an order; also a superlative of EARLIER_WORDS
LAST_WORDS = frozenset({"last", "final"})  # the last of an order; also a superlative of LATER_WORDS
NAME_NOUNS = frozenset({"name"})  # "first name": a value, no order
AVERAGE_WORDS = frozenset({"average", "median"})
MEAN = "mean"  # "the mean age"; not "what does X mean"
SUM_WORDS = frozenset({"sum", "combined", "altogether", "total"})
COUNT_NOUNS = frozenset({"number", "count"})  # "the total number of": a count, not a sum
FEWEST_WORDS = frozenset({"fewest", "least"})
# "most recently": the last; adverbs lemminflect does not relate to "recent"
RECENTLY = frozenset({"recently", "lately"})
AT = "at"  # "at most 3", "at least 2": a bound, not an order
SHARED_COUNT_WORDS = frozenset({"large", "great"})  # "the largest number of": the most
SMALL = "small"  # "the smallest number of": the fewest
SEVERAL_WORDS = frozenset({"multiple", "twice"})  # "more than once" too: at least two
ALONE_WORDS = frozenset({"alone", "unshared", "undivided"})  # "single-handedly", "on her own" too: exactly one
SCALES = frozenset({"thousand", "million", "billion"})  # "two million": an amount, not a count's bound
DISTINCT_WORDS = frozenset({"different", "distinct", "separate"})  # "two different countries": at least two
NEGATIONS = frozenset({"no", "not", "never", "none", "nobody", "without", "n't"})
YES_NO_OPENINGS = frozenset({"is", "was", "were", "are", "did", "does", "do", "has", "have", "had", "can", "could"})
LISTING = frozenset({"and", "or", "nor"})  # "as well as" too; "&" and "/" are no words
REFERRING_BACK = frozenset({"their", "his", "her", "its"})
SAME = "same"
BEFORE_PHRASES = (("before",), ("earlier", "than"), ("prior", "to"), ("sooner", "than"), ("ahead", "of"))
AFTER_PHRASES = (("after",), ("later", "than"))
ELIDED_VERBS = frozenset({"did", "does", "do", "was", "were", "is", "are", "had", "has", "have"})
TIME_PREPOSITIONS = frozenset({"in", "on", "during", "of"})  # "in the year X won", "on the same day as"
COUNTING_PHRASES = (("how", "many"), ("how", "often"), ("number", "of"), ("count", "of"))

# the values a question states (glm_dspy/readings/values.py, amounts.py)
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")  # also by their first three letters: "jun", "jun."
YEAR_BOUNDS = {"since": ">=", "after": ">", "before": "<", "until": "<=", "till": "<="}  # "prior to" too: "<"
# a quantity the values pass: "more than 250,000", "reach one million", "under 2.5 million"
AMOUNT_PHRASES = ((("at", "least"), ">="), (("at", "most"), "<="), (("more", "than"), ">"), (("less", "than"), "<"),
                  (("fewer", "than"), "<"), (("over",), ">"), (("above",), ">"), (("below",), "<"), (("under",), "<"))
AMOUNT_VERBS = {"reach": ">=", "exceed": ">"}  # by lemma: "reached", "exceeds"
SCALE_VALUES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}

# what a question says has not happened, or has (glm_dspy/readings/absence.py)
DEATH_WORDS = ("death", "died", "die")
# a state -> (the words of the event that ends or begins it, whether the event happened)
STATES = {"alive": (DEATH_WORDS, False), "living": (DEATH_WORDS, False), "surviving": (DEATH_WORDS, False),
          "dead": (DEATH_WORDS, True), "deceased": (DEATH_WORDS, True)}
STILL = "still"
PLACING = frozenset({"in", "at", "on", "with", "by", "under", "from", "near"})  # "living in Paris": where, no state
HAVING_NO = frozenset({"has", "have", "had", "with"})  # "has no death date", "with no spouse"
NEGATION_FILLERS = frozenset({"been", "being", "be", "ever", "yet", "got", "gotten", "any", "a", "an", "the"})
# whether something exists for the thing named: "Did X share it with anyone?" (glm_dspy/readings/existential.py)
SOMEONE = frozenset({"anyone", "anybody", "someone", "somebody"})  # "any one" too
SOMETHING = frozenset({"anything", "something"})
ANY = "any"

# the phrases paths are weighed by (glm_dspy/readings/phrases.py)
COPULAS = frozenset({"is", "was", "are", "were"})
SINGULAR_VERBS = frozenset({"was", "is", "has", "does"})  # "What year was P published?": one value
LEADING_PREPOSITIONS = frozenset({"in", "on", "at", "from", "for", "of", "by"})  # "In which city is X based?"
OFFER_PREFIXES = frozenset({"a", "an", "the", "in", "on", "at", "by", "for", "from", "of"})  # "... or in Warsaw?"
REFERRING = frozenset({"the", "that", "this", "those", "these"})  # "... the mentor": one named before

__all__ = [name for name in dir() if name.isupper()]
