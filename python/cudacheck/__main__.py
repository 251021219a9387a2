"""`python -m cudacheck ARGS`: runs the cudacheck executable with ARGS, as if typed in a shell."""
import os
import sys

from . import CudacheckError, binary


def main() -> None:
    try:
        executable = binary()
    except CudacheckError as error:
        print(f"cudacheck: {error}", file=sys.stderr)
        sys.exit(2)
    os.execv(executable, [executable, *sys.argv[1:]])


if __name__ == "__main__":
    main()
