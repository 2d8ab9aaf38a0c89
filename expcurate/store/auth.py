"""Users of the review app and their sign-ins: salted scrypt hashes, hashed cookie tokens.

Kept apart from the task store because it answers another question (who may review) and
holds the only secrets in the database.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta

from sqlmodel import Session, col, delete, select

from expcurate.store.errors import StoreError
from expcurate.store.rows import ROLES, SignIn, SignInFailure, User, utcnow

USERNAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")
MIN_PASSWORD = 8
# scrypt cost: about 50 ms and 16 MiB per check, enough to make guessing slow.
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1
# Wrong passwords allowed within FAILURE_WINDOW, per account and per network address.
ACCOUNT_FAILURES, ADDRESS_FAILURES = 5, 20
FAILURE_WINDOW = timedelta(minutes=15)


class SignInRefused(StoreError):
    """A sign-in that is refused: a wrong password, or too many of them lately."""


class UserStore:
    """The users and sign-ins half of the store; `Store` inherits it."""

    def session(self) -> AbstractContextManager[Session]:
        raise NotImplementedError

    def add_user(self, username: str, password: str, role: str, *, replace: bool = False) -> User:
        """Create a user (or, with `replace`, reset an existing one's password and role)."""
        if not USERNAME_RE.match(username):
            raise StoreError(
                f"username {username!r} must be letters, digits, '.', '_', '@' or '-' (at most 64)"
            )
        if role not in ROLES:
            raise StoreError(f"role {role!r} is not one of {', '.join(ROLES)}")
        if len(password) < MIN_PASSWORD:
            raise StoreError(f"the password must have at least {MIN_PASSWORD} characters")
        with self.session() as s:
            user = s.get(User, username)
            if user is not None and not replace:
                raise StoreError(
                    f"user {username!r} exists; to change it use `expcurate user add --update`"
                    " or Reset on the Users page"
                )
            user = user or User(username=username, password_hash="")
            user.password_hash = hash_password(password)
            user.role = role
            s.add(user)
            # A new password ends every sign-in made with the old one.
            s.exec(delete(SignIn).where(col(SignIn.username) == username))  # type: ignore[call-overload]
            return user

    def get_user(self, username: str) -> User | None:
        with self.session() as s:
            return s.get(User, username)

    def users(self) -> list[User]:
        with self.session() as s:
            return list(s.exec(select(User).order_by(col(User.username))))

    def open_sign_in(self, username: str, hours: float) -> str:
        """A new sign-in for `username` lasting `hours`; returns the token for the cookie."""
        token = secrets.token_urlsafe(32)
        now = utcnow()
        with self.session() as s:
            for old in s.exec(select(SignIn)).all():  # few rows: compare in Python, any backend
                if _aware(old.expires_at) <= now:
                    s.delete(old)
            s.add(
                SignIn(
                    token_hash=_token_hash(token),
                    username=username,
                    created_at=now,
                    expires_at=now + timedelta(hours=hours),
                )
            )
            s.commit()
        return token

    def signed_in_user(self, token: str) -> User | None:
        """The user a live sign-in token belongs to, else None."""
        if not token:
            return None
        with self.session() as s:
            sign_in = s.get(SignIn, _token_hash(token))
            if sign_in is None or _aware(sign_in.expires_at) <= utcnow():
                return None
            return s.get(User, sign_in.username)

    def close_sign_in(self, token: str) -> None:
        with self.session() as s:
            sign_in = s.get(SignIn, _token_hash(token))
            if sign_in is not None:
                s.delete(sign_in)
                s.commit()

    def sign_in_user(self, username: str, password: str, address: str = "") -> User:
        """The user, if the password is right and neither the account nor the address
        (`address`: the client's, "" if unknown) has had too many wrong ones lately; raises
        `SignInRefused` saying which. A right password clears the account's failures."""
        now = utcnow()
        since = now - FAILURE_WINDOW
        with self.session() as s:
            s.exec(delete(SignInFailure).where(col(SignInFailure.at) < since))  # type: ignore[call-overload]
            recent = list(s.exec(select(SignInFailure).where(col(SignInFailure.at) >= since)))
        mine = [f.at for f in recent if f.username == username]
        near = [f.at for f in recent if address and f.address == address]
        for failures, limit, what in (
            (mine, ACCOUNT_FAILURES, f"for {username!r}"),
            (near, ADDRESS_FAILURES, "from your address"),
        ):
            if len(failures) >= limit:
                wait = _aware(min(failures)) + FAILURE_WINDOW - now
                minutes = max(1, int(wait.total_seconds() // 60) + 1)
                raise SignInRefused(
                    f"Too many wrong passwords {what}: try again in {minutes} minute(s)."
                )
        user = self.verify_user(username, password)
        with self.session() as s:
            if user is None:
                s.add(SignInFailure(username=username, address=address, at=now))
            else:
                s.exec(delete(SignInFailure).where(col(SignInFailure.username) == username))  # type: ignore[call-overload]
        if user is None:
            raise SignInRefused("Wrong username or password.")
        return user

    def verify_user(self, username: str, password: str) -> User | None:
        """The user if the password matches, else None (same work either way)."""
        user = self.get_user(username)
        if user is None:
            check_password(password, _DUMMY_HASH)
            return None
        return user if check_password(password, user.password_hash) else None


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back without their time zone; they were stored in UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, dklen=32)


def hash_password(password: str) -> str:
    """A self-describing salted scrypt hash, so the cost can rise without breaking old hashes."""
    salt = secrets.token_bytes(16)
    digest = _scrypt(password, salt, _SCRYPT_N, _SCRYPT_R, _SCRYPT_P)
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        actual = _scrypt(password, bytes.fromhex(salt), int(n), int(r), int(p))
    except ValueError:
        return False
    return hmac.compare_digest(actual.hex(), digest)


_DUMMY_HASH = f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${'00' * 16}${'00' * 32}"
