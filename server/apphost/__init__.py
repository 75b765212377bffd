"""The app host: where each player's Textual app runs.

A session asks an app launcher (:mod:`.launcher`: the interfaces) for its player's app.
Players' apps run in worker processes (:mod:`.workers` starts and replaces them, talking over
:mod:`.worker_link`; :mod:`.app_worker` is the worker's side) or in the server process
(:mod:`.in_process`); either way :mod:`.app_settings` makes and prepares the app for its
player's terminal and :mod:`.memory` keeps what every app shares out of the garbage collector's way.
"""
