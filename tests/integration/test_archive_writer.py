"""The archive's writer process: an error on either side rolls the file back, and no process is
ever left behind.

The writer is a real child process (the import's SQLite connection lives there); the failures
are real too: an SQLite error raised inside the writer by a trigger of the archive, an exception
in the importing process, the writer killed by SIGKILL.
"""

from __future__ import annotations

import os
import pickle
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import apsw
import pytest
from helpers import check_consistent, children, dump, one, rows, run

from jacquet_notation.archive import import_paths, importer, open_archive, store, writer
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import write_game
from jacquet_notation.rules import Rules


@pytest.fixture
def no_process_left() -> Iterator[None]:
    """The test's process has no more children at its end than at its start."""
    before = children(os.getpid())
    yield
    assert children(os.getpid()) <= before


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    """Three files of 20 generated games each."""
    records = list(generate_records(60, 5, Rules.named("jacquet")))
    paths = []
    for number, start in enumerate(range(0, 60, 20)):
        path = tmp_path / f"part{number}.jqt"
        text = "\n".join(write_game(record) for record in records[start : start + 20])
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    return paths


FAIL_IN_SECOND_FILE = (
    "CREATE TRIGGER fail_in_second_file AFTER INSERT ON plies "
    "WHEN (SELECT count(*) FROM imports) >= 2 BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
)


def archive_with_trigger(db: Path, trigger: str) -> None:
    """An empty archive with ``trigger`` added."""
    open_archive(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute(trigger)


def test_an_error_in_the_writer_rolls_the_file_back(
    files: list[str], tmp_path: Path, no_process_left: None
) -> None:
    db = tmp_path / "writer-error.db"
    archive_with_trigger(db, FAIL_IN_SECOND_FILE)
    with pytest.raises(sqlite3.IntegrityError, match="disk on fire"):
        import_paths(db, files)
    assert rows(db, "SELECT path FROM imports") == [(files[0],)]
    assert one(db, "SELECT count(*) FROM games") == 20
    check_consistent(db)
    # the same error through the command: one clean line, the exit code of an unusable archive
    result = run("archive", str(db), *files)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == f"jacquet: {db}: disk on fire"
    assert one(db, "SELECT count(*) FROM games") == 20
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER fail_in_second_file")
    summary = import_paths(db, files)
    assert (summary.skipped_files, summary.new_games) == (1, 40)
    check_consistent(db)
    reference = tmp_path / "reference.db"
    import_paths(reference, files)
    assert dump(db) == dump(reference)


def test_no_file_sent_after_a_writer_error_is_committed(
    files: list[str], tmp_path: Path, no_process_left: None
) -> None:
    """The importer sends several files before their commits are answered; once the writer has
    failed one, the files sent behind it are dropped, not committed unreported."""
    db = tmp_path / "writer-error-second.db"
    archive_with_trigger(
        db,
        "CREATE TRIGGER fail_in_part1 AFTER INSERT ON plies WHEN (SELECT path FROM imports "
        "ORDER BY id DESC LIMIT 1) LIKE '%part1.jqt' "
        "BEGIN SELECT RAISE(ABORT, 'disk on fire'); END",
    )
    more = [*files, *(str(Path(file).with_name(f"more-{Path(file).name}")) for file in files)]
    for file, copy in zip(files, more[3:], strict=True):
        Path(copy).write_text(
            Path(file).read_text(encoding="utf-8").replace("[Event", '[Round "2"]\n[Event'),
            encoding="utf-8",
        )
    assert importer.FILES_IN_FLIGHT > 1  # else nothing is sent behind the failing file
    with pytest.raises(sqlite3.IntegrityError, match="disk on fire"):
        import_paths(db, more)
    assert rows(db, "SELECT path FROM imports") == [(files[0],)]
    assert one(db, "SELECT count(*) FROM games") == 20
    check_consistent(db)


def test_an_error_in_the_importer_rolls_the_file_back(
    files: list[str], tmp_path: Path, no_process_left: None
) -> None:
    """The writer never commits a file it was not told to finish."""
    calls = 0

    def fail_in_third_file(count: int) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:  # one batch a file: the third file's rows were sent, not finished
            raise RuntimeError("the importer failed")

    db = tmp_path / "importer-error.db"
    with pytest.raises(RuntimeError, match="the importer failed"):
        import_paths(db, files, progress=fail_in_third_file)
    assert rows(db, "SELECT path FROM imports ORDER BY id") == [(files[0],), (files[1],)]
    assert one(db, "SELECT count(*) FROM games") == 40
    check_consistent(db)
    assert import_paths(db, files).new_games == 20
    check_consistent(db)


def test_an_import_leaves_no_process(files: list[str], tmp_path: Path) -> None:
    before = children(os.getpid())
    import_paths(tmp_path / "a.db", files)
    assert children(os.getpid()) <= before
    # a re-import reads nothing, so starts no writer either
    import_paths(tmp_path / "a.db", files)
    assert children(os.getpid()) <= before


def test_batches_read_by_the_writer_give_the_same_archive_and_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer reads one batch in WRITER_SHARE itself: the archive, the counts and the error
    lines (in the file's order) are those of an import where the importer reads every batch."""
    corpus = Path(__file__).parents[2] / "corpus"
    # one file of every corpus game, valid, invalid and unreadable, then generated games
    texts = [path.read_text(encoding="utf-8") for path in sorted(corpus.glob("*/*.jqt"))]
    texts += [write_game(record) for record in generate_records(12, 3, Rules.named("jacquet"))]
    mixed = tmp_path / "mixed.jqt"
    mixed.write_text("\n\n".join(texts), encoding="utf-8")
    monkeypatch.setattr(store, "BATCH", 2)
    results: dict[int | None, Any] = {}
    for share in (0, 1, 2, 3, None):
        monkeypatch.setattr(importer, "WRITER_SHARE", share)
        db = tmp_path / f"share{share}.db"
        summary = import_paths(db, [str(mixed)])
        check_consistent(db)
        results[share] = (summary, dump(db))
    summary, stored = results[0]
    assert summary.invalid and summary.unreadable and len(summary.errors) > 10
    for share in (1, 2, 3, None):
        assert results[share] == (summary, stored), share
    # a ruleset forced on the command line reaches the writer's batches too
    for share in (0, 1):
        monkeypatch.setattr(importer, "WRITER_SHARE", share)
        db = tmp_path / f"murray{share}.db"
        import_paths(db, [str(mixed)], rules=Rules.named("murray"))
        results[share] = (None, dump(db))
    assert results[1] == results[0]
    assert {rules for (rules,) in rows(tmp_path / "murray1.db", "SELECT rules FROM games")} == {
        "murray"
    }


#: an import whose writer reads every batch: a first file of invalid games (the error lines of
#: its Finished outgrow the pipe of answers), then one whose batches fill the pipe of requests
_ANSWERS_PAST_A_PIPE = """
import os, sys
from jacquet_notation.archive import import_paths, importer
importer.WRITER_SHARE = 1
if sys.argv[1] == "blocking":  # as where a pipe cannot be made non-blocking: answers.py
    def refused(fd, blocking):
        raise OSError("not here")
    os.set_blocking = refused
summary = import_paths(sys.argv[2], sys.argv[3:])
print(summary.games, len(summary.errors))
"""


@pytest.mark.parametrize("pipe", ["non-blocking", "blocking"])
def test_an_answer_larger_than_a_pipe_does_not_stall_the_import(tmp_path: Path, pipe: str) -> None:
    """Each process once waited for the other for ever: the writer sending a file's Finished
    (the error lines of the batches it read) into a full pipe, the importer sending the next
    file's batches into another. The writer's answers that the pipe cannot take at once are
    written by a thread (answers.py): after the part written at once, or whole."""
    broken = (Path(__file__).parents[2] / "corpus" / "broken" / "illegal-bearoff.jqt").read_text(
        encoding="utf-8"
    )
    invalid = tmp_path / "invalid.jqt"
    copies = [broken.replace("[White", f'[Round "{n}"]\n[White', 1) for n in range(500)]
    invalid.write_text("\n".join(copies), encoding="utf-8")
    valid = tmp_path / "valid.jqt"
    records = generate_records(600, 7, Rules.named("jacquet"))
    valid.write_text("\n".join(write_game(record) for record in records), encoding="utf-8")
    assert valid.stat().st_size > writer.PIPE_BYTES  # its batches alone fill the pipe
    db = tmp_path / "answers.db"
    command = [sys.executable, "-c", _ANSWERS_PAST_A_PIPE, pipe, str(db), str(invalid), str(valid)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, _ = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)  # the writer too
        process.communicate()
        pytest.fail("the import stalled")
    assert process.returncode == 0
    games, errors = map(int, out.split())
    assert games == 600 + one(db, "SELECT games FROM imports WHERE path = ?", str(invalid))
    assert errors >= 500
    check_consistent(db)


def test_standard_input_is_imported_through_the_writer(files: list[str], tmp_path: Path) -> None:
    """``-``: the bytes read from stdin are cut and sent like a file's (no path to reopen)."""
    db = tmp_path / "stdin.db"
    text = Path(files[0]).read_bytes()
    for new in ("20 new", "0 new"):
        result = subprocess.run(
            [sys.executable, "-m", "jacquet_notation", "archive", str(db), "-"],
            input=text,
            capture_output=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        assert new in result.stdout.decode()
    assert rows(db, "SELECT DISTINCT file FROM games") == [("<stdin>",)]
    assert one(db, "SELECT games FROM imports") == 20
    check_consistent(db)


def test_the_writer_never_closes_a_connection_it_inherits(files: list[str], tmp_path: Path) -> None:
    """A connection to the archive that the importing process has dropped but not yet collected
    (held by a cycle, as a caught exception's traceback holds one) is inherited by the forked
    writer. Were the writer to collect and close it, the close would release the locks of the
    writer's own connection (another SQLite library's) while it writes, and another connection's
    checkpoint could cut the file short."""
    db = tmp_path / "inherited.db"
    import_paths(db, files[:1])
    for path in files[1:]:
        leaked = sqlite3.connect(db)
        leaked.execute("SELECT count(*) FROM games").fetchall()
        holder: dict[str, Any] = {"connection": leaked}
        holder["itself"] = holder  # garbage only a collection finds
        del leaked, holder
        import_paths(db, [path])
        # another process reads (and, last to close, checkpoints) between imports
        assert run("archive", str(db), path).returncode == 0
        check_consistent(db)
    assert one(db, "SELECT count(*) FROM games") == 60


@pytest.mark.parametrize(
    ("raised", "expected"),
    [
        (apsw.ConstraintError("disk on fire"), sqlite3.IntegrityError),
        (apsw.BusyError("database is locked"), sqlite3.OperationalError),
        (apsw.CorruptError("database disk image is malformed"), sqlite3.DatabaseError),
        (apsw.AbortError("callback requested query abort"), sqlite3.DatabaseError),
    ],
)
def test_the_writers_sqlite_errors_reach_the_importer_as_sqlite3s(
    raised: apsw.Error, expected: type[sqlite3.Error]
) -> None:
    # the writer binds through APSW; callers (and `jacquet archive`) catch sqlite3's errors
    crossed = pickle.loads(pickle.dumps(writer.picklable_error(raised)))
    assert type(crossed) is expected
    assert str(crossed) == str(raised)
