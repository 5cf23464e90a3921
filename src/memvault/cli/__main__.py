"""`python -m memvault.cli`: the same command line as the `memvault` script."""

from .app import main

if __name__ == "__main__":
    main()
