# What a test client writes about itself before each allocation and launch, for compare.py
# --calls and --calls-outer: one JSON line {kind, frames} per call, frames innermost first as
# [file, qualname, name, line], the innermost line being LINE (the call's, not write_call's).
import json
import sys
import traceback


def write_call(path, kind, line):
    if path is None:
        return
    frames = []
    for frame, lineno in traceback.walk_stack(sys._getframe(1)):
        frames.append([frame.f_code.co_filename, frame.f_code.co_qualname, frame.f_code.co_name, lineno])
    frames[0][3] = line
    with open(path + ".calls", "a") as f:
        f.write(json.dumps({"kind": kind, "frames": frames}) + "\n")
