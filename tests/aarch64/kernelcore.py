#!/usr/bin/env python3
"""Rewrite a qemu-user core into the shape a Linux kernel writes (tests/aarch64/qemu.t).

qemu-user's cores have no NT_FILE, no NT_SIGINFO and none of the ELF header pages of the mapped
files; a kernel's have all three.  Given the guest's memory map (/proc/self/maps as qemu-user
showed it to the guest, copied by libmapsdump.so), this writes a copy of CORE with
  - NT_FILE: every file mapping of MAPS, and the record's memfd (--record ADDR SIZE), paths with
    --strip PREFIX taken off (the host's sysroot, so that they read as the guest saw them);
  - NT_SIGINFO: the first thread's pr_cursig, sent by the process itself with tgkill (SI_TKILL),
    as abort() does;
  - the first page of each file mapped at offset 0 (its ELF header), in the mapping's PT_LOAD,
    whose file size qemu left at 0 (a kernel's filter bit 4, "ELF headers").
Usage: kernelcore.py CORE MAPS OUT [--strip PREFIX] [--record ADDR SIZE]
Exit status 0, or 1 with a message (a core it does not understand).
"""
import struct
import sys

PAGE = 4096
NT_PRSTATUS, NT_PRPSINFO = 1, 3
NT_SIGINFO, NT_FILE = 0x53494749, 0x46494C45
SI_TKILL = -6


def die(msg):
    sys.stderr.write("kernelcore: %s\n" % msg)
    sys.exit(1)


def note(name, ntype, desc):
    n = name.encode() + b"\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return struct.pack("<III", len(n), len(desc), ntype) + pad(n) + pad(desc)


def walk_notes(buf):
    off = 0
    while off + 12 <= len(buf):
        namesz, descsz, ntype = struct.unpack_from("<III", buf, off)
        name = buf[off + 12:off + 12 + namesz]
        doff = off + 12 + ((namesz + 3) & ~3)
        yield name, ntype, buf[doff:doff + descsz]
        off = doff + ((descsz + 3) & ~3)


def main(argv):
    args = argv[1:]
    strip, record = "", None
    if "--strip" in args:
        i = args.index("--strip")
        strip = args[i + 1]
        del args[i:i + 2]
    if "--record" in args:
        i = args.index("--record")
        record = (int(args[i + 1], 0), int(args[i + 2], 0))
        del args[i:i + 3]
    if len(args) != 3:
        die("usage: kernelcore.py CORE MAPS OUT [--strip PREFIX] [--record ADDR SIZE]")
    core_path, maps_path, out_path = args
    core = open(core_path, "rb").read()
    if core[:4] != b"\x7fELF" or core[4] != 2 or core[5] != 1:
        die("%s is not a 64-bit little-endian ELF file" % core_path)
    (e_type, e_machine, _, _, e_phoff, _, _, _, e_phentsize, e_phnum) = \
        struct.unpack_from("<HHIQQQIHHH", core, 16)
    if e_type != 4 or e_phentsize != 56:
        die("%s is not an ELF core" % core_path)
    phdrs = [list(struct.unpack_from("<IIQQQQQQ", core, e_phoff + i * 56)) for i in range(e_phnum)]
    notes = [p for p in phdrs if p[0] == 4]
    if len(notes) != 1:
        die("%s has %d note segments, expected 1" % (core_path, len(notes)))
    old_notes = core[notes[0][2]:notes[0][2] + notes[0][5]]
    cursig, pid = 0, 0
    for name, ntype, desc in walk_notes(old_notes):
        if name.rstrip(b"\0") != b"CORE":
            continue
        if ntype == NT_PRSTATUS and not cursig:
            cursig = struct.unpack_from("<h", desc, 12)[0]
        if ntype == NT_PRPSINFO:
            pid = struct.unpack_from("<i", desc, 24)[0]
        if ntype in (NT_SIGINFO, NT_FILE):
            die("%s already has NT_SIGINFO or NT_FILE" % core_path)

    maps = []
    for line in open(maps_path):
        f = line.split(None, 5)
        if len(f) == 6 and f[5].startswith("/"):
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            path = f[5].rstrip("\n")
            maps.append((lo, hi, int(f[2], 16), path))
    if record:
        maps.append((record[0], record[0] + record[1], 0, "/memfd:cudainspect-record (deleted)"))
    maps.sort()
    shown = lambda p: p[len(strip):] if strip and p.startswith(strip + "/") else p
    desc = struct.pack("<QQ", len(maps), PAGE)
    desc += b"".join(struct.pack("<QQQ", lo, hi, off // PAGE) for lo, hi, off, _ in maps)
    desc += b"".join(shown(p).encode() + b"\0" for _, _, _, p in maps)
    siginfo = struct.pack("<iiiii", cursig, 0, SI_TKILL, pid, 0).ljust(128, b"\0")
    new_notes = old_notes + note("CORE", NT_SIGINFO, siginfo) + note("CORE", NT_FILE, desc)

    # The ELF header pages: the PT_LOAD of each file mapped at offset 0 that qemu left empty.
    header = {}
    for lo, hi, off, path in maps:
        if off == 0 and path.startswith("/") and not path.startswith("/memfd:"):
            try:
                with open(path, "rb") as f:
                    page = f.read(PAGE)
            except OSError:
                continue
            if page[:4] == b"\x7fELF":
                header[lo] = page.ljust(PAGE, b"\0")

    # Lay out again: headers, notes, then each segment's bytes, page-aligned.
    pos = e_phoff + e_phnum * 56
    out_chunks = []
    note_off = pos
    pos += len(new_notes)
    pos = (pos + PAGE - 1) & ~(PAGE - 1)
    added = 0
    for p in phdrs:
        if p[0] == 4:
            p[2], p[5], p[6] = note_off, len(new_notes), 0
            continue
        if p[0] != 1:
            continue
        data = core[p[2]:p[2] + p[5]]
        if p[5] == 0 and p[3] in header and p[6] >= PAGE:
            data = header[p[3]]
            added += 1
        p[2], p[5] = pos, len(data)
        out_chunks.append((pos, data))
        pos += (len(data) + PAGE - 1) & ~(PAGE - 1)
    with open(out_path, "wb") as out:
        out.write(core[:e_phoff])
        for p in phdrs:
            out.write(struct.pack("<IIQQQQQQ", *p))
        out.write(new_notes)
        for off, data in out_chunks:
            out.seek(off)
            out.write(data)
        out.truncate(pos)
    sys.stderr.write("kernelcore: %d file mappings, %d ELF header pages, signal %d\n"
                     % (len(maps), added, cursig))


if __name__ == "__main__":
    main(sys.argv)
