"""Review app entry point: sign in, then the pages a role may use.

Start it with `expcurate ui [--port N]` or `make ui`. Until someone signs in, the only page
that exists is the sign-in form, so no URL shows data to a visitor. Users are created with
`expcurate user add NAME --role reviewer|curator|admin`.
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import streamlit as st

from expcurate.store.auth import SignInRefused
from validation_ui import common
from validation_ui.logic import can


def sign_in_page() -> None:
    st.title("ExpCurate review")
    common.forget_sign_in()
    store = common.store()
    if not store.users():
        st.info(
            "No users yet. Create one on the command line: "
            "`expcurate user add NAME --role admin` (roles: curator, reviewer, admin)."
        )
    with st.form("sign-in"):
        username = st.text_input("Username")
        password = st.text_input("Password", type="password")
        submitted = st.form_submit_button("Sign in", type="primary")
    if submitted:
        try:
            user = store.sign_in_user(username.strip(), password, common.client_address())
        except SignInRefused as exc:
            st.error(str(exc))
        else:
            common.sign_in(user.username)
            st.rerun()


def main() -> None:
    st.set_page_config(page_title="ExpCurate review", layout="wide")
    actor = common.current_actor()
    if actor is None:
        st.navigation([st.Page(sign_in_page, title="Sign in", url_path="signin")]).run()
        return
    pages = [
        st.Page(common.PAGES["queue"], title="Queue", default=True),
        st.Page(common.PAGES["item"], title="Review item"),
        st.Page(common.PAGES["paper"], title="Papers"),
        st.Page(common.PAGES["history"], title="History"),
        st.Page(common.PAGES["publish"], title="Publish"),
    ]
    if can(actor.role, "users"):
        pages.append(st.Page(common.PAGES["users"], title="Users"))
    nav = st.navigation(pages)
    with st.sidebar:
        common.keep_signed_in()
        st.caption(f"Signed in as **{actor.username}** ({actor.role})")
        if st.button("Sign out", key="sign-out"):
            common.sign_out()
            st.rerun()
    nav.run()


main()
