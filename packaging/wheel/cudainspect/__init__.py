"""cudainspect: say what the GPU was doing when a CUDA program died.

The tool is C: this package only carries the `cudainspect` program, the recorder
(libcudainspect-rec.so), the GDB plugin and command file and the manual pages, and
`cudainspect` / `python -m cudainspect` exec the program with the same arguments.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDER = os.path.join(HERE, "lib", "libcudainspect-rec.so")
GDB_PLUGIN = os.path.join(HERE, "lib", "cudainspect.so")
GDB_COMMANDS = os.path.join(HERE, "share", "gdb", "cudainspect.gdb")


def _exec(program):
    path = os.path.join(HERE, "bin", program)
    try:
        os.execv(path, [path] + sys.argv[1:])
    except OSError as e:
        sys.stderr.write("%s: cannot run %s: %s\n" % (program, path, e.strerror))
        sys.exit(127)


def main():
    _exec("cudainspect")


def gdb_run():
    """The launcher the `cuda` GDB commands pipe into (share/gdb/cudainspect.gdb)."""
    _exec("cudainspect-gdb-run")
