import pytest

from souveraine.inference import extractive as x


def test_names_are_capitalised_runs_acronyms_and_code_terms():
    text = ("Yesterday I met Marguerite Duras in Lyon. She told me about Hokusai's prints! "
            "Sounds great; Jean-Paul de la Tour runs FTS5 on `souveraine.toml` with message_interval and camelCase.")
    assert x.names(text) == ["souveraine.toml", "Marguerite Duras", "Lyon", "Hokusai", "Jean-Paul de la Tour",
                             "FTS5", "message_interval", "camelCase"]


@pytest.mark.parametrize("text", [
    "Understood. Honestly, it works.", "Thanks! Looking good.", "Monday is fine, or May.",
    "URGENT: never lose it.", "Reading it now; reading is slow.", "I'll do it. I'm sure.",
])
def test_common_words_that_open_a_sentence_are_not_names(text):
    assert x.names(text) == []


def test_an_opening_word_capitalised_elsewhere_is_a_name():
    assert x.names("Reading is lovely. I moved to Reading.") == ["Reading"]


def test_code_blocks_and_links_are_read_as_prose_or_skipped():
    text = "See [[people/marguerite|Marguerite]].\n\n```\nclass SecretThing: pass\n```\n"
    assert x.names(text) == ["Marguerite"]
    assert x.sentences(text) == ["See Marguerite."]


def test_distinct_drops_names_that_add_nothing():
    assert x.distinct(["Marguerite Duras", "Marguerite", "Duras", "Lyon", "Bank of England", "England"]) == [
        "Marguerite Duras", "Lyon", "Bank of England"]
    assert x.distinct(["Lyon", "Paris"], known={"lyon"}) == ["Paris"]


def test_dates_in_their_many_forms():
    text = ("Due 2026-12-14, or 14 December 2026, or December 14th, 2026, or 14/12/2026; "
            "see you by Friday, tomorrow, in March 2027, or in 2028.")
    assert x.dates(text) == ["2026-12-14", "14 December 2026", "December 14th, 2026", "14/12/2026",
                             "by Friday", "tomorrow", "in March 2027", "in 2028"]


@pytest.mark.parametrize("sentence, kind", [
    ("We decided to host it on Hetzner.", "decision"),
    ("Let's go with SQLite.", "decision"),
    ("Decision: the ledger stays in git.", "decision"),
    ("I'll send Hortense the contract by Friday.", "promise"),
    ("I promise to call back.", "promise"),
    ("Remind me to water the plants.", "promise"),
    ("The launch is on 2027-03-14.", "date"),
    ("The weather was grey and the tea was cold.", "essence"),
])
def test_sentences_are_classified_weightiest_first(sentence, kind):
    assert x.kind(sentence) == kind


def test_intensity_rises_with_exclamations_capitals_and_charged_words():
    calm = x.intensity("The report is in the shared folder, next to last year's.")
    cry = x.intensity("I LOST the whole file again! This is a disaster!")
    assert calm == 0.0
    assert cry > 3


def test_scores_favour_sentences_whose_words_recur():
    texts = ["The ledger holds commitments.", "The ledger is in git.", "Tea is nice."]
    freq = x.frequencies(texts)
    assert x.score("The ledger holds commitments.", freq) > x.score("Tea is nice.", freq)


def test_words_are_a_casefolded_vocabulary_with_the_pieces_of_compound_words():
    assert x.words("Jean-Paul met Ada. A b") == {"jean-paul", "jean", "paul", "met", "ada"}


def test_clip_cuts_at_a_word():
    assert x.clip("one two three four", 12) == "one two…"
    assert x.clip("a  b\nc") == "a b c"


def test_a_link_in_inline_code_or_an_unclosed_fence_stays_code():
    assert x.prose("Use `[[people/ana]]` to link [[people/ana|Ana]].") == "Use `[[people/ana]]` to link Ana."
    assert x.sentences("We agreed on Tuesday.\n\n~~~\nclass Leftover: pass") == ["We agreed on Tuesday."]
