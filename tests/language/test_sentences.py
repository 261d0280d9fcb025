from souveraine.language import sentences


def texts(text):
    return [s.text for s in sentences.split(text)]


def test_titles_and_abbreviations_do_not_end_a_sentence():
    assert texts("I saw Dr. Silva at 10 a.m. today. She was fine.") == [
        "I saw Dr. Silva at 10 a.m. today.", "She was fine."]
    assert texts("Ask Mrs. Inês Duarte, e.g. about the lease. Then call.") == [
        "Ask Mrs. Inês Duarte, e.g. about the lease.", "Then call."]


def test_numbers_and_versions_stay_whole():
    assert texts("The host is 10.0.0.5 and the tag v1.2.3. Deploy it.") == [
        "The host is 10.0.0.5 and the tag v1.2.3.", "Deploy it."]


def test_offsets_point_into_the_original_text():
    text = "Olá Tomás!  Did it work?\n- yes. It did"
    for sentence in sentences.split(text):
        assert text[sentence.start:sentence.end] == sentence.text
    assert texts(text) == ["Olá Tomás!", "Did it work?", "yes.", "It did"]


def test_a_quotation_stays_in_the_sentence_that_quotes_it():
    assert texts('She said "Take it easy. Rest." Then we left.') == [
        'She said "Take it easy. Rest."', "Then we left."]


def test_code_blocks_are_not_speech():
    text = "Run this:\n```python\nx = 1. I'll save it.\n```\nDone."
    assert texts(text) == ["Run this:", "Done."]
    assert "I'll save" not in sentences.mask_code(text)
    assert len(sentences.mask_code(text)) == len(text)


def test_a_fence_closes_where_commonmark_closes_it():
    text = "Look:\n````markdown\n```\nI'll save it.\n```\n````\nDone."
    assert texts(text) == ["Look:", "Done."]
    assert len(sentences.mask_code(text)) == len(text)


def test_list_marks_and_headings_are_not_words():
    assert texts("# Plan\n1. Book the flat\n- [ ] call Zé\n> quoted line") == [
        "Plan", "Book the flat", "call Zé", "quoted line"]


def test_inline_code_masked_only_when_asked():
    text = "Call `save()` now."
    assert sentences.mask_code(text) == text
    assert "save" not in sentences.mask_code(text, inline=True)


def test_empty_text():
    assert sentences.split("") == [] and sentences.split("\n\n  \n") == []


def test_a_number_alone_is_a_sentence_not_a_list_mark():
    assert texts("51.") == ["51."] and texts("1755.") == ["1755."]
    assert texts("1. Book the flat") == ["Book the flat"]


def test_a_wikilink_is_one_word_whatever_its_alias_holds():
    text = "[[people/alice]] drives me to [[people/amara-okafor|Dr. Okafor]]'s clinic. Then lunch."
    assert texts(text) == ["[[people/alice]] drives me to [[people/amara-okafor|Dr. Okafor]]'s clinic.", "Then lunch."]
    assert texts("[[people/alice]] will drive me to [[people/amara-okafor|Dr. Okafor]]'s clinic.") == [
        "[[people/alice]] will drive me to [[people/amara-okafor|Dr. Okafor]]'s clinic."]
