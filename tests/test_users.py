"""Users of the review app: hashed passwords, roles, and `expcurate user add`."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from expcurate.cli import app
from expcurate.store import Store, StoreError, check_password, hash_password

pytestmark = pytest.mark.databases

runner = CliRunner()


def test_password_is_kept_as_a_salted_hash(store: Store) -> None:
    """The same password gives different hashes, and the plain text is stored nowhere."""
    store.add_user("ann", "same password", "reviewer")
    store.add_user("bob", "same password", "curator")
    ann, bob = store.get_user("ann"), store.get_user("bob")
    assert ann is not None and bob is not None
    assert ann.password_hash != bob.password_hash
    assert "same password" not in ann.password_hash
    assert ann.password_hash.startswith("scrypt$")


def test_only_the_right_password_signs_in(store: Store) -> None:
    store.add_user("ann", "right password", "reviewer")
    user = store.verify_user("ann", "right password")
    assert user is not None and user.role == "reviewer"
    assert store.verify_user("ann", "wrong password") is None
    assert store.verify_user("nobody", "right password") is None


def test_bad_users_are_refused(store: Store) -> None:
    with pytest.raises(StoreError, match="role 'boss'"):
        store.add_user("ann", "long enough", "boss")
    with pytest.raises(StoreError, match="at least 8"):
        store.add_user("ann", "short", "reviewer")
    with pytest.raises(StoreError, match="username"):
        store.add_user("a b", "long enough", "reviewer")
    store.add_user("ann", "long enough", "reviewer")
    with pytest.raises(StoreError, match="exists"):
        store.add_user("ann", "other password", "admin")
    store.add_user("ann", "other password", "admin", replace=True)
    assert store.verify_user("ann", "other password") is not None
    assert store.verify_user("ann", "long enough") is None


def test_malformed_hash_never_matches() -> None:
    assert not check_password("x", "md5$abc")
    assert not check_password("x", "scrypt$notanumber$8$1$00$00")
    assert check_password("pw", hash_password("pw"))


def _db(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'data' / 'expcurate.db'}")


def test_cli_adds_a_user_with_the_password_from_the_environment(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["user", "add", "rita", "--role", "curator", "--data-dir", str(tmp_path / "data")],
        env={"EXPCURATE_PASSWORD": "from the environment"},
    )
    assert result.exit_code == 0, result.output
    assert "user rita (curator) added" in result.output
    user = _db(tmp_path).verify_user("rita", "from the environment")
    assert user is not None and user.role == "curator"


def test_cli_asks_for_the_password_twice_when_none_is_given(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["user", "add", "omar", "--data-dir", str(tmp_path / "data")],
        input="typed secret\ntyped secret\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "typed secret" not in result.output  # hidden input
    assert _db(tmp_path).verify_user("omar", "typed secret") is not None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--role", "boss", "--password", "long enough"], "not one of curator, reviewer, admin"),
        (["--password", "short"], "at least 8 characters"),
    ],
)
def test_cli_bad_user_input_exits_2(tmp_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["user", "add", "ann", *args, "--data-dir", str(tmp_path / "d")])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_cli_refuses_to_replace_a_user_silently(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    args = ["user", "add", "ann", "--password", "long enough", "--data-dir", data]
    assert runner.invoke(app, args).exit_code == 0
    again = runner.invoke(app, args)
    assert again.exit_code == 2 and "exists" in again.output
    assert runner.invoke(app, [*args, "--update", "--role", "admin"]).exit_code == 0
    listed = runner.invoke(app, ["user", "list", "--data-dir", data])
    assert "ann" in listed.output and "admin" in listed.output


def test_user_commands_have_help() -> None:
    for sub in ("add", "list"):
        result = runner.invoke(app, ["user", sub, "--help"])
        assert result.exit_code == 0 and result.output.strip()


def test_a_sign_in_token_outlives_the_session_until_it_expires_or_is_closed(
    store: Store,
) -> None:
    """The review app's cookie holds a token; the store keeps only its hash."""
    from sqlmodel import select

    from expcurate.store.rows import SignIn

    store.add_user("ann", "right password", "reviewer")
    token = store.open_sign_in("ann", hours=12)
    user = store.signed_in_user(token)
    assert user is not None and user.username == "ann"
    assert store.signed_in_user(token + "x") is None and store.signed_in_user("") is None
    with store.session() as s:
        (row,) = s.exec(select(SignIn)).all()
    assert token not in row.token_hash
    store.close_sign_in(token)
    assert store.signed_in_user(token) is None
    stale = store.open_sign_in("ann", hours=-1)  # already over
    assert store.signed_in_user(stale) is None
    store.open_sign_in("ann", hours=1)  # opening a sign-in sweeps out the expired ones
    with store.session() as s:
        assert len(s.exec(select(SignIn)).all()) == 1


def test_wrong_passwords_are_throttled_per_account_and_per_address(store: Store) -> None:
    from datetime import timedelta

    from sqlmodel import select

    from expcurate.store.auth import FAILURE_WINDOW, SignInRefused
    from expcurate.store.rows import SignInFailure, utcnow

    store.add_user("ann", "correct horse battery", "reviewer")
    store.add_user("ben", "correct horse battery", "reviewer")
    for _ in range(4):
        with pytest.raises(SignInRefused, match="Wrong username or password"):
            store.sign_in_user("ann", "guess", "10.0.0.7")
    assert store.sign_in_user("ann", "correct horse battery", "10.0.0.7").username == "ann"
    for _ in range(5):  # the right password cleared the count; five more lock the account
        with pytest.raises(SignInRefused):
            store.sign_in_user("ann", "guess", "10.0.0.8")
    with pytest.raises(SignInRefused, match="for 'ann': try again in 15 minute"):
        store.sign_in_user("ann", "correct horse battery", "10.0.0.9")
    assert store.sign_in_user("ben", "correct horse battery", "10.0.0.9").username == "ben"
    for n in range(20):  # one address guessing across accounts
        with pytest.raises(SignInRefused):
            store.sign_in_user(f"nobody{n}", "guess", "10.0.0.66")
    with pytest.raises(SignInRefused, match="from your address"):
        store.sign_in_user("ben", "correct horse battery", "10.0.0.66")
    with store.session() as s:  # once the failures age out, the account opens again
        for f in s.exec(select(SignInFailure)):
            f.at = utcnow() - FAILURE_WINDOW - timedelta(seconds=1)
            s.add(f)
    assert store.sign_in_user("ann", "correct horse battery", "10.0.0.66").username == "ann"


def test_a_password_reset_ends_every_sign_in_of_that_user(store: Store) -> None:
    store.add_user("ann", "correct horse battery", "reviewer")
    store.add_user("ben", "correct horse battery", "reviewer")
    tokens = [store.open_sign_in("ann", 1), store.open_sign_in("ann", 1)]
    other = store.open_sign_in("ben", 1)
    store.add_user("ann", "another good password", "reviewer", replace=True)
    assert [store.signed_in_user(t) for t in tokens] == [None, None]
    assert store.signed_in_user(other) is not None
