"""Entry point for ``switchboard`` and ``python -m desktop_app``: headless commands or the desktop app."""

from __future__ import annotations

import sys

HEADLESS_COMMANDS = {
    "ask",
    "import-config",
    "tools",
    "hooks",
    "install",
    "uninstall",
    "extensions",
    "serve",
    "plugins",
    "conversations",
    "compact",
    "workflows",
    "tasks",
}


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in HEADLESS_COMMANDS:
        from desktop_app.cli.main import exit_now
        from desktop_app.cli.main import main as cli_main

        code = cli_main(args)
        if argv is None and args[0] == "ask":  # the process is the command: end it as the answer ends
            exit_now(code)
        return code
    if "-h" in args or "--help" in args:  # the window's options and every command, without loading Qt
        from desktop_app.cli.main import print_help

        return print_help(sys.stdout)
    import gc

    # No collection passes on the way to the first paint: they walk every module, class and enum made so far
    # (~8 ms of the first paint) and find next to no garbage; desktop_app.app.main says when they resume.
    gc.disable()
    try:
        # A second launch hands its arguments to the running instance and exits, before anything heavy loads.
        from desktop_app.instance import forward_main

        forwarded = forward_main(args)
        if forwarded is not None:
            return forwarded
        from desktop_app.app import main as app_main

        return app_main(args)
    finally:
        gc.enable()


if __name__ == "__main__":
    raise SystemExit(main())
