"""Users (admins only): who may sign in and with what role."""

from __future__ import annotations

import streamlit as st

from expcurate.store import StoreError
from expcurate.store.rows import ROLES
from validation_ui import common, logic

actor = common.require_actor()
if not logic.can(actor.role, "users"):
    st.error("Only admins manage users.")
    st.stop()
store = common.store()
common.show_flash()
st.title("Users")
st.dataframe(
    [{"user": u.username, "role": u.role, "created (UTC)": f"{u.created_at:%Y-%m-%d %H:%M}"}
     for u in store.users()],
    hide_index=True,
)  # fmt: skip

with st.form("add-user", clear_on_submit=True):
    st.markdown("**Add a user, or reset one's password and role**")
    username = st.text_input("Username")
    role = st.selectbox("Role", ROLES, index=ROLES.index("reviewer"))
    password = st.text_input("Password", type="password")
    again = st.text_input("Password again", type="password")
    replace = st.checkbox("Reset an existing user")
    submitted = st.form_submit_button("Save user", key="save-user")
if submitted:
    if password != again:
        common.show("The two passwords differ.", "error")
    else:
        try:
            user = store.add_user(username.strip(), password, role, replace=replace)
        except StoreError as exc:
            common.show(f"Not saved: {exc}", "error")
        else:
            common.flash(f"User {user.username} ({user.role}) saved.")
            st.rerun()
