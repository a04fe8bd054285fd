"""What importing the book costs a chapter's kernel: the slow optional validator jsonschema would load is left out."""
from __future__ import annotations

import subprocess
import sys


def test_the_book_keeps_jsonschemas_slow_iri_validator_out_and_validation_works():
    code = ("import sys, rmbook, altair, nbformat, jsonschema\n"
            "print(sys.modules.get('rfc3987_syntax') is None)\n"
            "nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('1')])\n"
            "nbformat.validate(nb)\n"
            "bad = nbformat.v4.new_notebook(); bad['cells'] = [{'cell_type': 'code'}]\n"
            "try:\n    nbformat.validate(bad)\nexcept nbformat.ValidationError:\n    print('refused')\n"
            "altair.Chart(altair.Data(values=[{'a': 1}])).mark_point().encode(x='a:Q').to_dict()\n"
            "try:\n    altair.Chart(altair.Data(values=[])).mark_point().encode(x=altair.X('a:Q', bin=3)).to_dict()\n"
            "except Exception:\n    print('refused')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "refused", "refused"]
