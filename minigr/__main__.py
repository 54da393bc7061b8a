from .cli import main

if __name__ == "__main__":  # not when --gpus's spawned ranks import the main module
    raise SystemExit(main())
