"""The grammar ships inside the wheel: build it, install it in a fresh venv, parse from outside."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json, jacquet_notation, jacquet_notation.notation as n
record = n.parse_game('[White "Émile"]\\n1. 6-5: 24/18/13 5-3: 24/27 2-0')
print(json.dumps({
    "package": jacquet_notation.__file__,
    "grammar": str(n.grammar_file()),
    "white": record.tags["White"],
    "moves": [[m.start, m.end] for m in record.plays[0].moves],
    "error": record.errors[0].message.splitlines()[0],
}))
"""


@pytest.mark.slow
def test_the_installed_wheel_parses_with_its_own_grammar(tmp_path: Path, built_wheel: Path) -> None:
    wheel = built_wheel
    names = zipfile.ZipFile(wheel).namelist()
    assert "jacquet_notation/grammar/jacquet.lark" in names
    assert "jacquet_notation/grammar/syntax_errors.json" in names

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    python = venv / "bin" / "python"
    # The venv sees the test environment's packages (lark, click...) so nothing is downloaded,
    # whether the tests run in a venv or not (``--system-site-packages`` would give the base
    # interpreter's). A path line in a .pth file is appended after the venv's own site-packages,
    # and the .pth files it holds (the editable install of the source tree) are not run, so the
    # installed wheel is the one imported.
    own = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    outer = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(own, "test-environment.pth").write_text("\n".join(sorted(outer)) + "\n")
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = subprocess.run(
        [str(python), "-c", SCRIPT],
        check=True,
        capture_output=True,
        text=True,
        cwd=elsewhere,
        env={"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"},
    )
    result = json.loads(run.stdout)
    assert result["package"].startswith(str(venv)), result
    assert result["grammar"].startswith(str(venv)), result
    assert result["white"] == "Émile"
    assert result["moves"] == [[24, 18], [18, 13]]
    assert result["error"].startswith("expected a point from 1 to 24")
