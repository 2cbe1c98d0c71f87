#!/usr/bin/env python3
"""pipeline.py PORT N [big]: N requests pipelined in one write on one connection; counts the answers by status."""
import socket, sys, time, collections
port, n = int(sys.argv[1]), int(sys.argv[2])
body = open('%s.json' % (sys.argv[3] if len(sys.argv) > 3 else 'one')).read().encode()
one = b'POST /v2/models/reg/infer HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s' % (len(body), body)
s = socket.create_connection(('127.0.0.1', port), timeout=60)
t0 = time.time()
import threading
def w():
    try: s.sendall(one * n)
    except OSError as e: print('send:', e)
threading.Thread(target=w).start()
f = s.makefile('rb')
statuses = collections.Counter()
try:
    for i in range(n):
        line = f.readline()
        if not line: statuses['closed'] += 1; break
        st = line.split()[1].decode(); cl = 0
        while True:
            h = f.readline()
            if h in (b'\r\n', b''): break
            if h.lower().startswith(b'content-length:'): cl = int(h.split(b':')[1])
        if cl: f.read(cl)
        else:  # chunked
            while True:
                sz = int(f.readline().strip(), 16)
                if sz == 0: f.readline(); break
                f.read(sz); f.readline()
        statuses[st] += 1
except Exception as e:
    statuses['error ' + e.__class__.__name__] += 1
print('%d pipelined: %s in %.2f s' % (n, dict(statuses), time.time() - t0))
