#!/usr/bin/env python3
# The checks of tests/reader/timeline.t that want a program: read a `--trace` document (and the
# JSON report of the same input, an independent source) or a `--timeline` SVG rendered to PNG,
# and print facts as "key value" lines for the test to compare.  Standard library only: json,
# zlib and struct (the PNG is decoded here, a few lines, so no imaging library is needed).
#   timeline_check.py trace TRACE.json REPORT.json
#   timeline_check.py png PICTURE.png PICTURE.svg REPORT.json
import json
import re
import struct
import sys
import zlib

# What each kind of event must have (the Trace Event Format: "X" complete events with a
# duration, "i" instants with a scope, "M" metadata with their args).
REQUIRED = {
    "X": {"name", "cat", "ph", "ts", "dur", "pid", "tid", "args"},
    "i": {"name", "cat", "ph", "ts", "s", "pid", "tid", "args"},
    "M": {"name", "ph", "pid", "tid", "args"},
}
METADATA = {"process_name": "name", "thread_name": "name", "process_sort_index": "sort_index",
            "thread_sort_index": "sort_index"}


def fact(key, value):
    print(f"{key} {value}")


def launches_drawn(report):
    """The report's launches that run on a stream: not captured into a graph, not failed."""
    return [l for l in report["launches"] if not {"captured", "failed"} & set(l["flags"])]


def check_trace(trace_path, report_path):
    with open(trace_path, encoding="utf-8") as f:
        doc = json.load(f)
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    events = doc["traceEvents"]
    other = doc["otherData"]
    origin, end = other["origin_ns"], other["end_ns"]
    span_us = (end - origin) / 1000
    schema = []
    for e in events:
        need = REQUIRED.get(e.get("ph"))
        if need is None:
            schema.append(f"unknown ph {e.get('ph')!r}")
        elif need - set(e):
            schema.append(f"{e.get('name')!r} lacks {sorted(need - set(e))}")
        elif e["ph"] == "M" and (e["name"] not in METADATA or METADATA[e["name"]] not in e["args"]):
            schema.append(f"metadata {e['name']!r} {e['args']!r}")
        elif e["ph"] == "i" and e["s"] not in ("g", "p", "t"):
            schema.append(f"instant scope {e['s']!r}")
        elif e["ph"] != "M" and not all(isinstance(e[k], (int, float)) for k in ("ts", "pid", "tid")):
            schema.append(f"{e['name']!r}: ts, pid, tid are not numbers")
    fact("schema_errors", len(schema))
    if schema:
        fact("schema_first", schema[0])
    timed = [e for e in events if e["ph"] != "M"]
    fact("ordered", int(all(a["ts"] <= b["ts"] for a, b in zip(timed, timed[1:]))))
    fact("metadata_first", int(all(e["ph"] == "M" for e in events[: len(events) - len(timed)])))
    fact("negative_durations", sum(1 for e in timed if e["ph"] == "X" and e["dur"] < 0))
    fact("outside_span", sum(1 for e in timed if e["ts"] < 0 or e["ts"] + e.get("dur", 0) > span_us + 0.001))
    # Slices of one track must nest or be apart (what trace viewers need to draw them).
    tracks = {}
    for e in timed:
        if e["ph"] == "X":
            tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    crossing = 0
    for slices in tracks.values():
        stack = []
        for s, t in sorted(slices, key=lambda x: (x[0], -x[1])):
            while stack and stack[-1] <= s + 0.0005:  # ts are exact in thousandths, floats not
                stack.pop()
            if stack and t > stack[-1] + 0.0005:
                crossing += 1
            stack.append(t)
    fact("crossing_slices", crossing)
    gpu = [e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"
           and e["args"]["name"] == "GPU streams"]
    gpu_pid = gpu[0] if gpu else None
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    fact("gpu_tracks", sum(1 for (pid, _tid) in names if pid == gpu_pid))
    fact("report_streams", len(report["streams"]))
    launch = [e for e in timed if e["cat"] in ("launch", "graph_launch")]
    fact("launch_events", len(launch))
    fact("report_launches", len(launches_drawn(report)))
    by_seq = {l["seq"]: l for l in report["launches"]}
    fact("time_mismatches", sum(1 for e in launch if by_seq.get(e["args"]["seq"], {}).get("time_ns")
                                 != e["args"]["time_ns"]))
    fact("ts_mismatches", sum(1 for e in launch
                              if abs(e["ts"] - (e["args"]["time_ns"] - origin) / 1000) > 0.0005))
    fact("stream_mismatches", sum(1 for e in launch
                                  if names.get((e["pid"], e["tid"])) != "stream " + str(e["args"]["stream"])
                                  and by_seq[e["args"]["seq"]]["stream"] not in (None, "0x0", "0x1", "0x2")))
    faults = [e for e in launch if e["args"].get("faulting")]
    fact("faulting_events", len(faults))
    if faults:
        f = faults[0]
        fact("faulting_name", f["name"])
        fact("faulting_cname", f.get("cname"))
        fact("faulting_seq", f["args"]["seq"])
        fact("faulting_kernel", f["args"]["kernel"])
        fact("faulting_track", names.get((f["pid"], f["tid"])))
        fact("faulting_may_be_running", int(f["args"]["may_be_running"]))
        fact("faulting_ends_at_crash", int(abs(f["ts"] + f["dur"] - span_us) < 0.0005))
    markers = {e["name"]: e["ts"] for e in timed if e["ph"] == "i" and e["s"] == "g"}
    for name, ts in sorted(markers.items()):
        fact("marker", f"{name}={ts:.3f}")
    fact("origin_ns", origin)
    fact("end_ns", end)
    # The newest end of anything drawn other than what may have run to the end (in ns, to the
    # microsecond the trace keeps): where the trace ends when that is after the record's end.
    drawn = [e["ts"] + e.get("dur", 0) for e in timed
             if not e.get("args", {}).get("may_be_running") and e["ph"] != "i"]
    fact("newest_drawn_ns", origin + round(max(drawn, default=0) * 1000))
    for k in ("launches_left_out", "launches_per_stream_max"):
        fact(k, other[k])
    per_track = {}
    for e in launch:
        per_track[(e["pid"], e["tid"])] = per_track.get((e["pid"], e["tid"]), 0) + 1
    fact("most_launches_on_a_track", max(per_track.values()) if per_track else 0)


def png_rows(path):
    """The PNG's pixels as rows of (r, g, b, a): 8-bit RGBA or RGB, not interlaced."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, color, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and not interlace, "unexpected PNG kind"
            bpp = 4 if color == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        ftype, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return rows


def check_png(png_path, svg_path, report_path):
    with open(svg_path, encoding="utf-8") as f:
        svg = f.read()
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    root = re.search(r"<svg [^>]*>", svg).group(0)
    attr = dict(re.findall(r'([\w-]+)="([^"]*)"', root))
    lo, hi = int(attr["data-window-start-ns"]), int(attr["data-window-end-ns"])
    x0, x1 = (int(v) for v in attr["data-plot-x"].split())
    height = int(attr["height"])
    rows = png_rows(png_path)
    fact("png_size", f"{len(rows[0])}x{len(rows)}")
    # Lanes: the streams with launches, in the report's order; a lane is 34 px from y 64.
    drawn = launches_drawn(report)
    streams = [s["handle"] for s in report["streams"] if any(l["stream"] == s["handle"] for l in drawn)]
    fact("streams_with_launches", len(streams))
    # The lane names: runs of rows with dark pixels in the name column, between the title and
    # the axis (the picture is 100 px taller than its lanes).
    runs, inside = 0, False
    for y in range(60, height - 100):
        dark = any(sum(rows[y][x]) < 300 for x in range(5, x0 - 5))
        runs += dark and not inside
        inside = dark
    fact("lane_names", runs)
    fl = report["diagnosis"]["faulting_launch"]
    if fl:
        lane = streams.index(fl["stream"])
        x = x0 + (fl["time_ns"] - lo) * (x1 - x0) / (hi - lo)
        y = 64 + lane * 34 + 12 + 9
        fact("fault_x", f"{x:.1f}")
        red = lambda p: p[0] > 110 and p[1] < 90 and p[2] < 90
        fact("fault_pixel_red", int(red(rows[y][int(x) + 2])))
        fact("left_of_fault_not_red", int(not red(rows[y][int(x) - 3])))
    crash = rows[70][x1]
    fact("crash_line_dark", int(sum(crash) < 150))
    first = report["diagnosis"]["first_sticky_error"]
    if first and first["time_ns"] >= lo:
        x = round(x0 + (first["time_ns"] - lo) * (x1 - x0) / (hi - lo))
        r, g, b = max((rows[60][xx] for xx in range(x - 1, x + 2)), key=lambda p: p[0] - p[2])
        fact("first_error_line_orange", int(r > 200 and 90 < g < 170 and b < 80))


if __name__ == "__main__":
    if sys.argv[1] == "trace":
        check_trace(sys.argv[2], sys.argv[3])
    else:
        check_png(sys.argv[2], sys.argv[3], sys.argv[4])
