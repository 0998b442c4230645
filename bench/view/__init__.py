"""The viewer: a local web page that replays solutions and browses a run (``bench view``).

``replay``: the JSON of one path (the states along it, each made by the puzzle's own moves, the
heuristic values and the true remaining distance of each state, the board to draw);
``sources``: what a page shows, from a run folder (``RunSource``) or one search
(``SolveSource``); ``server``: the Flask application and the local server; ``static/``: the page
(HTML, CSS and JavaScript; no build step, nothing fetched at run time).
"""
