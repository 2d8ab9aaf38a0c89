"""The review app: a Streamlit checkpoint at every stage.

`app.py` is the entry point (`expcurate ui`); `views/` holds the pages, which only render.
The rules are plain functions, tested without Streamlit:

- `logic`: who may do what, the queue and its filters, decisions and what they start.
- `editing`: form values to validated `TaskFields`, field-level diffs, rebasing an edit.
- `evidence`: crops, PDF regions, cited code lines and logs beside an item.
- `overview`: a paper's stages with cost, time and errors; releases as zips.
"""
