"""The main window: its construction, menus, docks, state and the collaborators it is composed of."""
