"""Hostile and broken clients of `ovta-rt serve` for tests/remote/test_remote.sh: speaks the
wire format of plan/remote.c by hand (independently of plan/client.c).

usage: rawclient.py PORT TOKEN_FILE CASE [PLAN_DIR]
Prints the server's reply as "TYPE text" (ERR: its error message), or "closed" when the server
closed the connection without one, or "sent" for the cases that drop the connection themselves.
"""
import json, socket, struct, sys, time

port, token_file, case = int(sys.argv[1]), sys.argv[2], sys.argv[3]
plan_dir = sys.argv[4] if len(sys.argv) > 4 else None
token = open(token_file).read().splitlines()[0]


def frame(tag, payload=b""):
    return b"OVR1" + tag + struct.pack("<I", len(payload)) + payload


def js(tag, obj):
    return frame(tag, json.dumps(obj).encode())


def named(tag, name, data):
    n = name.encode()
    return frame(tag, struct.pack("<H", len(n)) + n + data)


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            return None
        b += c
    return b


def reply(s):
    h = recv_exact(s, 12)
    if h is None:
        return "closed"
    n = struct.unpack("<I", h[8:12])[0]
    p = recv_exact(s, n) if n else b""
    if p is None:
        return "closed"
    tag = h[4:8].decode().strip()
    if tag == "ERR":
        return "ERR " + json.loads(p)["error"]
    return tag + " " + p.decode(errors="replace")


def hello(s):
    s.sendall(js(b"HELO", {"version": 1, "token": token}))
    r = reply(s)
    assert r.startswith("OK"), r


s = socket.create_connection(("127.0.0.1", port), timeout=30)
if case == "bad-magic":
    s.sendall(b"XXXX" + b"HELO" + struct.pack("<I", 2) + b"{}")
elif case == "unknown-type":
    s.sendall(frame(b"EVIL", b"{}"))
elif case == "bad-json":
    s.sendall(frame(b"HELO", b"{\"version\": 1, \"token\": "))
elif case == "file-before-hello":
    s.sendall(b"OVR1FILE" + struct.pack("<I", 100 << 20))  # 100 MiB declared by a stranger
elif case == "no-hello":
    s.sendall(js(b"RUN ", {"stats": True}))
elif case == "wrong-token":
    s.sendall(js(b"HELO", {"version": 1, "token": token + "x"}))
elif case == "oversized-json":
    hello(s)
    s.sendall(b"OVR1PLAN" + struct.pack("<I", 1 << 20))  # 1 MiB declared, over 64 KiB
elif case == "oversized-file":
    hello(s)
    s.sendall(js(b"PLAN", {"hash": "0123456789abcdef", "files": {"plan.json": 10}}))
    assert reply(s).startswith("HAVE")
    s.sendall(b"OVR1FILE" + struct.pack("<I", 0xFFFFFFFF))  # 4 GiB declared: refused before reading
elif case == "path-escape":
    hello(s)
    s.sendall(js(b"PLAN", {"hash": "0123456789abcdef", "files": {"plan.json": 2}}))
    assert reply(s).startswith("HAVE")
    s.sendall(named(b"FILE", "../../escaped.json", b"{}"))
elif case == "absolute-name":
    hello(s)
    s.sendall(js(b"PLAN", {"hash": "0123456789abcdef", "files": {"/tmp/x": 2}}))
elif case == "bad-tensor":
    hello(s)
    s.sendall(frame(b"INPT", struct.pack("<H", 1) + b"x" + bytes([1, 2]) + struct.pack("<qq", 2, 2) + b"\0" * 15))
elif case == "wrong-hash":
    # a real plan whose plan.json does not hash to what PLAN says
    hello(s)
    files = {n: open(plan_dir + "/" + n, "rb").read() for n in ("plan.json", "params.bin", "kernels.so")}
    s.sendall(js(b"PLAN", {"hash": "00000000000000ff", "files": {n: len(d) for n, d in files.items()}}))
    assert reply(s).startswith("HAVE")
    for n, d in files.items():
        s.sendall(named(b"FILE", n, d))
    s.sendall(js(b"LOAD", {"backend": None, "threads": 1}))
elif case == "session-files":
    # three files each under --max-bytes, together over --max-session-bytes
    hello(s)
    s.sendall(js(b"PLAN", {"hash": "0123456789abcdef", "files": {n: 16 << 20 for n in ("plan.json", "params.bin", "kernels.so")}}))
elif case == "session-inputs":
    # the plan kept on the server (same hash), then inputs of 24 MB: x twice (the second replaces
    # the first), then y, which together with x goes over --max-session-bytes
    hello(s)
    pj = open(plan_dir + "/plan.json", "rb").read()
    h = 0xCBF29CE484222325
    for b in pj:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    s.sendall(js(b"PLAN", {"hash": "%016x" % h, "files": {"plan.json": len(pj)}}))
    r = reply(s)
    assert r.startswith('HAVE {"have":true}'), r
    s.sendall(js(b"LOAD", {"backend": None, "threads": 1}))
    r = reply(s)
    assert r.startswith("OK"), r
    big = b"\0" * 24000000
    for n in ("x", "x", "y"):
        s.sendall(frame(b"INPT", struct.pack("<H", 1) + n.encode() + bytes([1, 1]) + struct.pack("<q", 6000000) + big))
elif case == "drop-mid-file":
    hello(s)
    s.sendall(js(b"PLAN", {"hash": "0123456789abcdef", "files": {"plan.json": 1000}}))
    assert reply(s).startswith("HAVE")
    s.sendall(b"OVR1FILE" + struct.pack("<I", 1000) + b"\x09\x00plan.json")
    s.close()
    print("sent")
    sys.exit(0)
elif case == "stall":
    # half a header, then silence until the server's timeout ends the session
    s.sendall(b"OVR1HE")
    t0 = time.time()
    r = reply(s)
    print("%s after %.1f s" % (r, time.time() - t0))
    sys.exit(0)
else:
    sys.exit("unknown case " + case)
print(reply(s))
