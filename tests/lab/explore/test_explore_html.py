"""``fivedp explore PATH... --html FILE``: the boards under each value side by side, the changed orders."""

from __future__ import annotations

import re
from pathlib import Path

from fivedp_asp.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent.parent


def test_page_draws_each_value_and_lists_the_changed_orders(tmp_path, capsys):
    page = tmp_path / "ex.html"
    same = ROOT / "cases" / "datc" / "6.A.01.yaml"  # a move to a province not adjacent: no paradox, no change
    status = main(["explore", str(ROOT / "cases" / "datc" / "6.F.18.yaml"), str(same),
                   "--option", "datc_4a2=szykman,all_hold", "--html", str(page)])
    capsys.readouterr()
    assert status == 0
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and "<script" not in text
    assert text.count("<section>") == 1 and "6.F.18" in text and "6.A.1" not in text
    # one board per value, side by side, for the one step that differs
    assert len(re.findall(r"<div class=col>.*?<svg", text, re.S)) == 2
    # the changed orders, highlighted, each value's result and reason beside them
    row = re.search(r"<tr class=changed><td>England: A London - Belgium</td>(.*?)</tr>", text)[1]
    assert "Szykman rule" in row and "&#x27;All Hold&#x27; rule" in row


def test_out_without_a_study_is_refused(tmp_path, capsys):
    status = main(["explore", str(ROOT / "cases" / "datc" / "6.F.18.yaml"), "--option", "datc_4a2=all_hold",
                   "--out", str(tmp_path)])
    assert status == 2 and "--random-games" in capsys.readouterr().err
