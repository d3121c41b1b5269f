"""dates: French long dates (all twelve months, `1er`) and the other locales' forms."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flows.stages.date_formats import day_first_languages
from flows.stages.dates import parse_date, parse_published_dates
from tests.conftest import TODAY

#: The end of the reason of a date whose time of day is none (hour 0-23, or 0-12 beside AM/PM).
NO_TIME = ": its time of day or zone is not read"

FRENCH_MONTHS = [
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
]


@pytest.mark.parametrize("month", range(1, 13), ids=FRENCH_MONTHS)
def test_french_months(month: int) -> None:
    assert parse_date(f"07 {FRENCH_MONTHS[month - 1]} 2024", TODAY) == (
        dt.date(2024, month, 7),
        None,
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1er juin 2024", dt.date(2024, 6, 1)),
        ("7 juil. 2024", dt.date(2024, 7, 7)),
        ("20 septembre 2016", dt.date(2016, 9, 20)),
        ("7. März 2024", dt.date(2024, 3, 7)),
        ("7 de junio de 2024", dt.date(2024, 6, 7)),
        ("7 giugno 2024", dt.date(2024, 6, 7)),
        ("7 de junho de 2024", dt.date(2024, 6, 7)),
        ("1º de junho de 2024", dt.date(2024, 6, 1)),
        ("2024年6月7日", dt.date(2024, 6, 7)),
        ("2024 年 5 月 15 日", dt.date(2024, 5, 15)),
        ("2024년 6월 7일", dt.date(2024, 6, 7)),
        ("7 июня 2024 г.", dt.date(2024, 6, 7)),
        ("June 7, 2024", dt.date(2024, 6, 7)),
        ("2024-06-07", dt.date(2024, 6, 7)),
    ],
)
def test_other_forms(text: str, expected: dt.date) -> None:
    assert parse_date(text, TODAY) == (expected, None)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("31 février 2024", "impossible date '31 février 2024': day is out of range for month"),
        ("29 février 2023", "impossible date '29 février 2023': day is out of range for month"),
        ("7 juin 2027", "date '7 juin 2027' (2027-06-07) is in the future"),
        ("7 brumaire 2024", "unknown month name 'brumaire' in date '7 brumaire 2024'"),
        # what main's rejects became readable by: a weekday or year that disagrees
        ("2023年（令和6年）6月7日", "year 2023 is not 令和6年 in date '2023年（令和6年）6月7日'"),
        ("令和6年（2023年）6月7日", "year 2023 is not 令和6年 in date '令和6年（2023年）6月7日'"),
        (
            "2019年（令和元年）4月30日",
            "2019-04-30 is outside the era 令和 (from 2019-05-01) in date '2019年（令和元年）4月30日'",
        ),
        (
            "2024年6月7日（木曜）",
            "weekday '木曜' is not that of 2024-06-07 in date '2024年6月7日（木曜）'",
        ),
        (
            "2024年6月7日（拜四）",
            "weekday '拜四' is not that of 2024-06-07 in date '2024年6月7日（拜四）'",
        ),
        (
            "7 de junho de 2024 (5ª feira)",
            "weekday '5a feira' is not that of 2024-06-07 in date '7 de junho de 2024 (5ª feira)'",
        ),
        (
            "(Thu) June 7, 2024",
            "weekday 'Thu' is not that of 2024-06-07 in date '(Thu) June 7, 2024'",
        ),
        (
            "2024年6月7日［木］",
            "weekday '木' is not that of 2024-06-07 in date '2024年6月7日［木］'",
        ),
        (
            "7 июня 2024 г., четверг",
            "weekday 'четверг' is not that of 2024-06-07 in date '7 июня 2024 г., четверг'",
        ),
        (
            "Donnerstag, den 07.06.2024",
            "weekday 'Donnerstag' is not that of 2024-06-07 in date 'Donnerstag, den 07.06.2024'",
        ),
        (
            "2ro de junio de 2024",
            "ordinal day 2ro (only the 1st takes it) in date '2ro de junio de 2024'",
        ),
        (  # main said "weekday 'updated' is not that of 2024-06-07"
            "June 7, 2024 (updated)",
            "unknown weekday name 'updated' in date 'June 7, 2024 (updated)'",
        ),
        (  # only Croatian's format writes `d.`, but Polish writes `listopada` for November
            "11. listopada 2024",
            "ambiguous date '11. listopada 2024': its month name is month 10 in hr, 11 in pl, "
            "11 in szl",
        ),
        ("hier", "unrecognized date 'hier'"),
    ],
)
def test_rejected_dates_say_why(text: str, reason: str) -> None:
    assert parse_date(text, TODAY) == (None, reason)


def test_parse_published_dates_once_per_distinct_string() -> None:
    texts = pl.Series(["07 juin 2024", None, "08 mars 2024", "07 juin 2024", "31 février 2024"])
    assert_frame_equal(
        parse_published_dates(texts, TODAY),
        pl.DataFrame(
            {
                "date_text": ["07 juin 2024", "08 mars 2024", "31 février 2024"],
                "published_on": [dt.date(2024, 6, 7), dt.date(2024, 3, 8), None],
                "date_reject_reason": [
                    None,
                    None,
                    "impossible date '31 février 2024': day is out of range for month",
                ],
            },
            schema={
                "date_text": pl.String,
                "published_on": pl.Date,
                "date_reject_reason": pl.String,
            },
        ),
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Freitag, 7. Juni 2024", dt.date(2024, 6, 7)),  # de full (case c02)
        ("Friday, June 7, 2024", dt.date(2024, 6, 7)),  # en full
        ("vendredi 7 juin 2024", dt.date(2024, 6, 7)),  # fr full
        ("2024年6月7日金曜日", dt.date(2024, 6, 7)),  # ja full
        ("2024년 6월 7일 금요일", dt.date(2024, 6, 7)),  # ko full
        ("2024. 6. 7.", dt.date(2024, 6, 7)),  # ko medium (case c13)
        ("2024/06/07", dt.date(2024, 6, 7)),  # ja short
        ("2024/6/7", dt.date(2024, 6, 7)),  # zh short
        ("7 jun 2024", dt.date(2024, 6, 7)),  # es medium
        ("7 de junio del 2024", dt.date(2024, 6, 7)),  # es `del` (case c14)
        ("7. Jänner 2024", dt.date(2024, 1, 7)),  # de_AT (case c15)
        ("7. Jän. 2024", dt.date(2024, 1, 7)),  # de_AT abbreviated
        ("7 июня 2024 года", dt.date(2024, 6, 7)),  # ru `года` (case c16)
        ("7 июня 2024", dt.date(2024, 6, 7)),  # ru without `г.`
        ("June 7th, 2024", dt.date(2024, 6, 7)),  # en ordinal (case c12)
        ("March 2nd, 2024", dt.date(2024, 3, 2)),
        ("7th June 2024", dt.date(2024, 6, 7)),  # en_GB long, ordinal
        ("1st June 2024", dt.date(2024, 6, 1)),
        ("June 3rd, 2024", dt.date(2024, 6, 3)),
        ("June 11th, 2024", dt.date(2024, 6, 11)),
        ("June 22nd, 2024", dt.date(2024, 6, 22)),
        ("Sept. 7, 2024", dt.date(2024, 9, 7)),  # en `MMM d, y` with en_GB's `Sept`
        ("Sat, Sept 7, 2024", dt.date(2024, 9, 7)),
        ("7 Sept 2024", dt.date(2024, 9, 7)),  # en_GB medium
        ("07/06/2024", dt.date(2024, 6, 7)),  # day first (the caller checks the language)
        ("07.06.2024", dt.date(2024, 6, 7)),  # de medium
        ("2024-06-07", dt.date(2024, 6, 7)),  # fr_CA short
        ("令和6年6月7日", dt.date(2024, 6, 7)),  # Japanese era (case c01)
        ("令和元年5月1日", dt.date(2019, 5, 1)),  # 元年 = year 1
        ("平成31年4月30日", dt.date(2019, 4, 30)),
        ("平成5年1月8日", dt.date(1993, 1, 8)),
        ("昭和64年1月7日", dt.date(1989, 1, 7)),
        # any script: CLDR languages outside DATE_LOCALES, digits, Chinese numerals,
        # a weekday in parentheses (round-3 cases r01, r02, r07, r08)
        ("14 Ιουνίου 2024", dt.date(2024, 6, 14)),  # el, genitive month (case r01)
        ("3 Μαρτίου 2023", dt.date(2023, 3, 3)),
        ("١٤ يونيو ٢٠٢٤", dt.date(2024, 6, 14)),  # ar, Arabic-Indic digits
        ("14 ביוני 2024", dt.date(2024, 6, 14)),  # he `d בMMMM y`
        ("14 जून 2024", dt.date(2024, 6, 14)),  # hi
        ("१४ जून २०२४", dt.date(2024, 6, 14)),  # hi, Devanagari digits
        ("14 มิถุนายน ค.ศ. 2024", dt.date(2024, 6, 14)),  # th `d MMMM G y`
        ("czwartek, 16 listopada 2006", dt.date(2006, 11, 16)),  # pl: its weekday names it
        ("maandag 4 oktober 2004", dt.date(2004, 10, 4)),  # nl; `Oktober` is German too
        ("1. december 2004", dt.date(2004, 12, 1)),  # da; `December` is English too
        ("14 października 2024", dt.date(2024, 10, 14)),  # pl
        ("二〇二四年六月七日", dt.date(2024, 6, 7)),  # Chinese numerals (case r02)
        ("二〇二三年十二月三十一日", dt.date(2023, 12, 31)),
        ("二〇二四年十月二十日", dt.date(2024, 10, 20)),
        ("二○二四年六月七日", dt.date(2024, 6, 7)),  # the circle ○ typed for 〇
        ("令和六年六月七日", dt.date(2024, 6, 7)),
        ("令和元年五月一日", dt.date(2019, 5, 1)),
        ("2024年6月14日（周五）", dt.date(2024, 6, 14)),  # zh weekday (case r07)
        ("2024年6月14日(金)", dt.date(2024, 6, 14)),  # ja
        ("2024년 6월 14일 (금)", dt.date(2024, 6, 14)),  # ko
        ("令和6年6月14日（金）", dt.date(2024, 6, 14)),
        # Taiwan's years (CLDR's roc calendar: 民國 1 is 1912), as case c01's era kind
        ("民國113年6月14日", dt.date(2024, 6, 14)),
        ("中華民國113年6月14日（五）", dt.date(2024, 6, 14)),
        ("民國113年6月14日 星期五", dt.date(2024, 6, 14)),
        ("民国112年3月3日", dt.date(2023, 3, 3)),
        ("民國一一三年六月十四日", dt.date(2024, 6, 14)),
        ("民國一百一十三年六月十四日", dt.date(2024, 6, 14)),
        ("民國元年1月1日", dt.date(1912, 1, 1)),
        ("民國百年1月1日", dt.date(2011, 1, 1)),  # the hundredth year, as Taiwan wrote it
        ("2024/6/14（五）", dt.date(2024, 6, 14)),  # a narrow weekday (zh_Hant)
        ("June 14, 2024 (F)", dt.date(2024, 6, 14)),
        ("13 de setiembre de 2024", dt.date(2024, 9, 13)),  # es_PE, es_UY (case r08)
        ("13 set. 2024", dt.date(2024, 9, 13)),
    ],
)
def test_cldr_forms(text: str, expected: dt.date) -> None:
    assert parse_date(text, TODAY) == (expected, None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [  # names as written without accents or umlauts (`date_names.spellings`)
        ("7 aout 2024", dt.date(2024, 8, 7)),
        ("7 fevrier 2024", dt.date(2024, 2, 7)),
        ("7 AOUT 2024", dt.date(2024, 8, 7)),
        ("7. Maerz 2024", dt.date(2024, 3, 7)),
        ("7. Marz 2024", dt.date(2024, 3, 7)),
        ("sabado, 8 de junio de 2024", dt.date(2024, 6, 8)),
        ("miercoles, 5 de junio de 2024", dt.date(2024, 6, 5)),
        ("venerdi 7 giugno 2024", dt.date(2024, 6, 7)),
        ("14 ΙΟΥΝΙΟΥ 2024", dt.date(2024, 6, 14)),  # Greek capitals have no accents
        ("2024년 06월 07일", dt.date(2024, 6, 7)),  # ko `MMMM` is `6월`
        # articles and commas beside the CLDR fields (`date_formats.ARTICLES`)
        ("le 7 juin 2024", dt.date(2024, 6, 7)),
        ("le vendredi 7 juin 2024", dt.date(2024, 6, 7)),
        ("Freitag, den 7. Juni 2024", dt.date(2024, 6, 7)),
        ("el viernes 7 de junio de 2024", dt.date(2024, 6, 7)),
        ("il 7 giugno 2024", dt.date(2024, 6, 7)),
        ("the 7th of June, 2024", dt.date(2024, 6, 7)),
        ("Friday the 7th of June 2024", dt.date(2024, 6, 7)),
        ("7 juin, 2024", dt.date(2024, 6, 7)),
        ("7 de junio, 2024", dt.date(2024, 6, 7)),
        ("07-Jun-2024", dt.date(2024, 6, 7)),
        ("7-juin-2024", dt.date(2024, 6, 7)),
        ("7-го июня 2024 г.", dt.date(2024, 6, 7)),
        ("2024年6月7日，星期五", dt.date(2024, 6, 7)),
        # colloquial Chinese (`date_formats.COLLOQUIAL_DAYS`, `号`)
        ("2024年6月7日（禮拜五）", dt.date(2024, 6, 7)),
        ("2024年6月7日（礼拜五）", dt.date(2024, 6, 7)),
        ("2024年6月9日（星期天）", dt.date(2024, 6, 9)),
        ("2024年6月7号", dt.date(2024, 6, 7)),
        ("二〇二四年六月七号", dt.date(2024, 6, 7)),
        ("民國113年6月7號", dt.date(2024, 6, 7)),
        # a weekday before or after a date no format writes with one
        ("Freitag, 07.06.2024", dt.date(2024, 6, 7)),
        ("пятница, 07.06.2024", dt.date(2024, 6, 7)),
        ("2024. 6. 7. 금요일", dt.date(2024, 6, 7)),
        ("Sept. 8, 2024, Sun", dt.date(2024, 9, 8)),
        ("Friday, 07.06.2024", dt.date(2024, 6, 7)),  # a weekday of another language
        ("sexta-feira, 07/06/2024", dt.date(2024, 6, 7)),  # pt's weekdays are hyphenated
        ("Fr 7 juin 2024", dt.date(2024, 6, 7)),
        # a spelling hides no other language's name: Occitan's December, not French
        ("13 de decembre 2024", dt.date(2024, 12, 13)),
        # prepositions, hyphens, a month's first three letters, RAE's `1.º`, Russian `-е`, `г.`
        ("am 7. Juni 2024", dt.date(2024, 6, 7)),
        ("am Freitag, dem 7. Juni 2024", dt.date(2024, 6, 7)),
        ("on June 7, 2024", dt.date(2024, 6, 7)),
        ("em 7 de junho de 2024", dt.date(2024, 6, 7)),
        ("07-06-2024", dt.date(2024, 6, 7)),
        ("7 aoû 2024", dt.date(2024, 8, 7)),
        ("7 fév 2024", dt.date(2024, 2, 7)),
        ("1.º de junio de 2024", dt.date(2024, 6, 1)),
        ("7-е июня 2024", dt.date(2024, 6, 7)),
        ("7 Mae 2024", dt.date(2024, 5, 7)),  # Breton's May: German `Maerz`'s `mae` is no prefix
        ("07.06.2024 г.", dt.date(2024, 6, 7)),
        # main rejected these (cases c01, c02, c13-c15, r07): a year written both ways,
        ("2024年（令和6年）6月7日", dt.date(2024, 6, 7)),
        ("令和6年（2024年）6月7日", dt.date(2024, 6, 7)),
        ("２０１９年（令和元年）６月７日（金）", dt.date(2019, 6, 7)),
        # usual weekdays CLDR does not write (`date_names.COLLOQUIAL_DAYS`)
        ("2024年6月7日（金曜）", dt.date(2024, 6, 7)),
        ("令和6年6月7日 金曜", dt.date(2024, 6, 7)),
        ("2024年6月7日（拜五）", dt.date(2024, 6, 7)),
        ("7 de junho de 2024 (6ª feira)", dt.date(2024, 6, 7)),
        ("6ª-feira, 07/06/2024", dt.date(2024, 6, 7)),
        # a weekday in parentheses first, in brackets after, after `г.`, before `den`
        ("(Fri) June 7, 2024", dt.date(2024, 6, 7)),
        ("(ven.) 7 juin 2024", dt.date(2024, 6, 7)),
        ("2024年6月7日［金］", dt.date(2024, 6, 7)),
        ("2024年6月7日〔金〕", dt.date(2024, 6, 7)),
        ("7 июня 2024 г., пятница", dt.date(2024, 6, 7)),
        ("7 июня 2024 года, пятница", dt.date(2024, 6, 7)),
        ("Freitag, den 07.06.2024", dt.date(2024, 6, 7)),
        # Austrian `Feber`, Latin American `1ro`, `1ero`
        ("7. Feber 2024", dt.date(2024, 2, 7)),
        ("1ro de junio de 2024", dt.date(2024, 6, 1)),
        ("1ero de junio de 2024", dt.date(2024, 6, 1)),
        # a time of day after the date (`date_formats.time_of_day`), CLDR's shapes first
        ("7 juin 2024, 14:30:05 TU", dt.date(2024, 6, 7)),
        ("Jun 7, 2024, 2:30:05\u202fPM", dt.date(2024, 6, 7)),
        ("2024. 6. 7. 오후 2:30:05", dt.date(2024, 6, 7)),
        ("2024년 6월 7일 오후 2시 30분 5초 UTC", dt.date(2024, 6, 7)),
        ("2024年6月7日 下午2:30:05 [UTC]", dt.date(2024, 6, 7)),
        ("2024年6月7日 UTC 14:30:05", dt.date(2024, 6, 7)),
        ("7 août 2024, 14 h 30 min 05 s", dt.date(2024, 8, 7)),
        ("7 juin 2024 à 14h30", dt.date(2024, 6, 7)),
        ("June 7, 2024 at 2:30 PM EST", dt.date(2024, 6, 7)),
        ("June 7, 2024 @ 2:30 pm", dt.date(2024, 6, 7)),
        ("June 7, 2024 at 12:00 AM", dt.date(2024, 6, 7)),
        ("2024年6月7日 午後2時30分", dt.date(2024, 6, 7)),
        ("2024年6月7日 午前0:30", dt.date(2024, 6, 7)),  # CLDR ja `aK:mm`: 0-11
        ("07.06.2024, 14:30 Uhr", dt.date(2024, 6, 7)),
        ("2024-06-07T14:30:00+09:00", dt.date(2024, 6, 7)),
        ("2024年6月7日 14時30分", dt.date(2024, 6, 7)),
        ("7 июня 2024 г. в 14:30", dt.date(2024, 6, 7)),
        ("7 de junio de 2024 a las 14:30", dt.date(2024, 6, 7)),
        ("7 giugno 2024 alle ore 14:30", dt.date(2024, 6, 7)),
    ],
)
def test_written_variants_of_cldr_forms(text: str, expected: dt.date) -> None:
    assert parse_date(text, TODAY) == (expected, None)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "Donnerstag, 7. Juni 2024",
            "weekday 'Donnerstag' is not that of 2024-06-07 in date 'Donnerstag, 7. Juni 2024'",
        ),
        ("June 7st, 2024", "ordinal 7st is wrong in date 'June 7st, 2024'"),
        (
            "2er juin 2024",
            "ordinal day 2er (only the 1st takes it) in date '2er juin 2024'",
        ),
        ("07.06.24", "two-digit year in date '07.06.24': the century is not written"),
        ("07 juin 10", "two-digit year in date '07 juin 10': the century is not written"),
        ("June 7, 24", "two-digit year in date 'June 7, 24': the century is not written"),
        (
            "平成31年5月1日",
            "2019-05-01 is outside the era 平成 (from 1989-01-08) in date '平成31年5月1日'",
        ),
        (
            "令和1年4月30日",
            "2019-04-30 is outside the era 令和 (from 2019-05-01) in date '令和1年4月30日'",
        ),
        (
            "民國113年6月14日（四）",
            "weekday '四' is not that of 2024-06-14 in date '民國113年6月14日（四）'",
        ),
        ("民國一百一二年六月十四日", "unrecognized date '民國一百一二年六月十四日'"),
        ("中華令和6年6月7日", "unrecognized date '中華令和6年6月7日'"),  # the Republic's name only
        ("6/7/2024 at noon", "unrecognized date '6/7/2024 at noon'"),
        ("June 7, 2024 25:30", f"unrecognized date 'June 7, 2024 25:30'{NO_TIME}"),
        ("June 7, 2024 at 13:30 PM", f"unrecognized date 'June 7, 2024 at 13:30 PM'{NO_TIME}"),
        ("2024. 6. 7. 오후 14:30", f"unrecognized date '2024. 6. 7. 오후 14:30'{NO_TIME}"),
        ("2024-06-07T14:30+25:00", f"unrecognized date '2024-06-07T14:30+25:00'{NO_TIME}"),
        (
            "Donnerstag, 7. Juni 2024, 14:30",
            "weekday 'Donnerstag' is not that of 2024-06-07 in date 'Donnerstag, 7. Juni 2024, "
            "14:30'",
        ),
        ("7 jui 2024", "unknown month name 'jui' in date '7 jui 2024'"),  # juin or juillet
        ("7 Jnue 2024, 14:30", "unknown month name 'Jnue' in date '7 Jnue 2024, 14:30'"),
        (
            "07 juin 10 14:30",
            "two-digit year in date '07 juin 10 14:30': the century is not written",
        ),
        (
            "2024-06-07 THU 14:30",  # a weekday is no time zone (`date_names.zone_names`)
            "weekday 'THU' is not that of 2024-06-07 in date '2024-06-07 THU 14:30'",
        ),
        ("Jänner 7, 2024", "unrecognized date 'Jänner 7, 2024'"),  # no German format reads it
        (
            "Sept. 8, 2024, Mon",
            "weekday 'Mon' is not that of 2024-09-08 in date 'Sept. 8, 2024, Mon'",
        ),
        (
            "Freitag, 08.06.2024",
            "weekday 'Freitag' is not that of 2024-06-08 in date 'Freitag, 08.06.2024'",
        ),
        ("Mai 07.06.2024", "unrecognized date 'Mai 07.06.2024'"),  # a month, not a weekday
        (
            "Friday, 08.06.2024",
            "weekday 'Friday' is not that of 2024-06-08 in date 'Friday, 08.06.2024'",
        ),
        (
            "2024年6月7日（礼拜六）",
            "weekday '礼拜六' is not that of 2024-06-07 in date '2024年6月7日（礼拜六）'",
        ),
        (
            "2024年6月14日（周四）",
            "weekday '周四' is not that of 2024-06-14 in date '2024年6月14日（周四）'",
        ),
        (
            "14 Ιουνίουυ 2024",
            "unsupported date language: no CLDR date format read here reads '14 Ιουνίουυ 2024'",
        ),
        (
            "14 ஜூஜூ 2024",
            "unsupported date language: no CLDR date format read here reads '14 ஜூஜூ 2024'",
        ),
        ("二〇二四年十三月七日", "impossible date '二〇二四年十三月七日': month must be in 1..12"),
        (  # a Thai year of the Buddhist era: rejected, not a date in the future
            "14 มิถุนายน 2567",
            "year 2567 is of the Buddhist era (2024 CE), not read, in date '14 มิถุนายน 2567'",
        ),
        (  # `T` names Tuesday and Thursday: no narrow name for one day
            "June 13, 2024 (T)",
            "weekday 'T' is not that of 2024-06-13 in date 'June 13, 2024 (T)'",
        ),
        ("7 brumaire 2024", "unknown month name 'brumaire' in date '7 brumaire 2024'"),
        (  # only Croatian's format writes `d.`, but Polish writes `listopada` for November
            "11. listopada 2024",
            "ambiguous date '11. listopada 2024': its month name is month 10 in hr, 11 in pl, "
            "11 in szl",
        ),
        (  # `taa` is March in Kalenjin, April in Aghem
            "7 taa 2024",
            "ambiguous date '7 taa 2024': CLDR languages read it as 2024-03-07 (kln), "
            "2024-04-07 (agq)",
        ),
    ],
)
def test_rejected_cldr_forms_say_why(text: str, reason: str) -> None:
    assert parse_date(text, TODAY) == (None, reason)


def test_day_first_languages_come_from_cldr() -> None:
    """English is not one: en `M/d/yy` and en_GB `dd/MM/y` disagree."""
    assert day_first_languages() == ("de", "es", "fr", "it", "pt", "ru", "zh")
