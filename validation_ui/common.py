"""Session plumbing shared by the pages: the store, who is signed in, messages, navigation.

Only Streamlit glue lives here; the rules are in `logic`, `editing` and `evidence`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any, NoReturn

import streamlit as st

from expcurate.curation.services import open_store
from expcurate.settings import Settings, get_settings
from expcurate.store import Store
from validation_ui.logic import Actor, Launch, Level

USER_KEY = "expcurate_user"
COOKIE = "expcurate_sign_in"
FLASH_KEY = "expcurate_flash"
ITEM_KEY = "expcurate_item"
SKIPPED_KEY = "expcurate_skipped"
LAUNCHED_KEY = "expcurate_launched_at"

PAGES = {
    "queue": "views/queue.py",
    "item": "views/item.py",
    "paper": "views/paper.py",
    "history": "views/history.py",
    "publish": "views/publish.py",
    "users": "views/users.py",
}


def settings() -> Settings:
    return get_settings()


def store() -> Store:
    return open_store(get_settings())


def current_actor() -> Actor | None:
    """The signed-in user, re-read from the store so a removed user is signed out at once.

    A new browser session (a page reload, a second tab) picks up the sign-in from the
    cookie `sign_in` set, as long as it has not expired or been signed out.
    """
    data = st.session_state.get(USER_KEY) or {"token": _cookie()}
    # Checked on every rerun, not once per tab: signing out (here or in another tab), a
    # password reset or a removed user ends this session at its next click.
    token = str(data.get("token", ""))
    user = store().signed_in_user(token) if token else None
    if user is None:
        st.session_state.pop(USER_KEY, None)
        return None
    st.session_state[USER_KEY] = {"username": user.username, "token": token}
    return Actor(user.username, user.role)


def require_actor() -> Actor:
    """Every page starts here: nothing below renders for someone not signed in."""
    actor = current_actor()
    if actor is None:
        st.warning("Sign in to see this page.")
        st.stop()
    return actor


def page(title: str | None = None) -> tuple[Actor, Store]:
    """How a page opens: the signed-in user (nobody else sees anything), the store, the
    message the last action left, and the title."""
    actor = require_actor()
    opened = store()
    show_flash()
    if title:
        st.title(title)
    return actor, opened


def stop_if_empty(rows: Sequence[Any], message: str) -> None:
    """End the page with `message` when there is nothing to show."""
    if not rows:
        st.info(message)
        st.stop()


def sign_in(username: str) -> None:
    hours = get_settings().sign_in_hours
    token = store().open_sign_in(username, hours)
    st.session_state[USER_KEY] = {"username": username, "token": token}


def keep_signed_in() -> None:
    """Give the browser the sign-in cookie (an invisible component; it runs once per load)."""
    data = st.session_state.get(USER_KEY) or {}
    token = str(data.get("token", ""))
    if token and _cookie() != token:
        seconds = int(get_settings().sign_in_hours * 3600)
        secure = "; secure" if _https() else ""
        _set_cookie(f"{COOKIE}={token}; path=/; max-age={seconds}; samesite=strict{secure}")


def _https() -> bool:
    """Served over TLS (directly, or by a reverse proxy that says so): the cookie is then
    marked Secure, so a browser never sends it over plain HTTP."""
    headers: Any = st.context.headers or {}
    proto = str(headers.get("X-Forwarded-Proto", "")).split(",")[0].strip().lower()
    return proto == "https" or str(getattr(st.context, "url", "") or "").startswith("https:")


def client_address() -> str:
    """The browser's address, for sign-in throttling ("" when unknown). X-Forwarded-For is
    believed only from a proxy on this machine (a loopback connection): from anyone else it
    is whatever the client chose to send."""
    direct = str(getattr(st.context, "ip_address", "") or "")
    if direct and direct not in ("127.0.0.1", "::1"):
        return direct
    headers: Any = st.context.headers or {}
    forwarded = str(headers.get("X-Forwarded-For", "")).split(",")[-1].strip()
    return forwarded or direct


def forget_sign_in() -> None:
    """On the sign-in page: drop a cookie whose sign-in is over."""
    if _cookie():
        _set_cookie(f"{COOKIE}=; path=/; max-age=0; samesite=strict")


def _cookie() -> str:
    """The sign-in cookie the browser sent when this session began ("" without one)."""
    value = st.context.cookies.get(COOKIE)
    return value if isinstance(value, str) else ""  # Streamlit's AppTest has no cookies


def _set_cookie(cookie: str) -> None:
    from streamlit.components.v1 import html

    html(f"<script>document.cookie = {json.dumps(cookie)};</script>", height=0)


def sign_out() -> None:
    token = str((st.session_state.get(USER_KEY) or {}).get("token", ""))
    if token:
        store().close_sign_in(token)
    for key in list(st.session_state.keys()):
        del st.session_state[key]


def flash(message: str, level: Level = "success") -> None:
    """A message that survives the rerun or page switch that follows an action."""
    st.session_state[FLASH_KEY] = (message, level)


def show_flash() -> None:
    entry = st.session_state.pop(FLASH_KEY, None)
    if entry:
        show(*entry)


def show(message: str, level: Level) -> None:
    {"success": st.success, "info": st.info, "warning": st.warning, "error": st.error}[level](
        message
    )


def launcher() -> Launch:
    """Start the next stage the configured way (background process, or a Prefect run)."""
    from flows import launcher as _launcher

    def launch(paper_id: str) -> str:
        st.session_state[LAUNCHED_KEY] = time.time()
        return _launcher.start_next(paper_id, get_settings())

    return launch


def recently_launched(window_s: float = 300) -> bool:
    return time.time() - float(st.session_state.get(LAUNCHED_KEY, 0)) < window_s


def skipped() -> set[str]:
    value: set[str] = st.session_state.setdefault(SKIPPED_KEY, set())
    return value


def open_item(ref: str) -> NoReturn:
    st.session_state[ITEM_KEY] = ref
    st.switch_page(PAGES["item"], query_params={"item": ref})


def go(page: str, **params: Any) -> NoReturn:
    st.switch_page(PAGES[page], query_params={k: str(v) for k, v in params.items()})
