"""Session plumbing shared by the pages: the store, who is signed in, messages, navigation.

Only Streamlit glue lives here; the rules are in `logic`, `editing` and `evidence`.
"""

from __future__ import annotations

import time
from typing import Any, NoReturn

import streamlit as st

from expcurate.services import open_store
from expcurate.settings import Settings, get_settings
from expcurate.store import Store
from validation_ui.logic import Actor, Launch, Level

USER_KEY = "expcurate_user"
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
    """The signed-in user, re-read from the store so a removed user is signed out at once."""
    data = st.session_state.get(USER_KEY)
    if not data:
        return None
    user = store().get_user(str(data.get("username", "")))
    if user is None:
        st.session_state.pop(USER_KEY, None)
        return None
    return Actor(user.username, user.role)


def require_actor() -> Actor:
    """Every page starts here: nothing below renders for someone not signed in."""
    actor = current_actor()
    if actor is None:
        st.warning("Sign in to see this page.")
        st.stop()
    return actor


def sign_in(username: str) -> None:
    st.session_state[USER_KEY] = {"username": username}


def sign_out() -> None:
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
    from expcurate import launcher as _launcher

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
