#!/usr/bin/env python3
"""Slow readers of large answers plus a probe of large requests.

usage: slowread.py PORT N_SLOW SECONDS
N_SLOW clients each send big.json and read the answer at 1 KiB/s with a
4 KiB receive buffer; meanwhile a probe sends big.json in a loop (one at a
time, 0.2 s apart) and the statuses and times of its answers are printed.
"""
import socket, sys, threading, time, collections

port, nslow, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
body = open('big.json', 'rb').read()
head = ('POST /v2/models/reg/infer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n'
        'Content-Length: %d\r\n\r\n' % len(body)).encode()
slow_result = collections.Counter()

def slow(i):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(('127.0.0.1', port))
    s.sendall(head + body)
    got, t0, first = 0, time.time(), b''
    try:
        while time.time() - t0 < secs + 5:
            d = s.recv(1024)
            if not d:
                break
            if not first:
                first = d[:12]
            got += len(d)
            time.sleep(1)
        slow_result['%s cut after %.0f s, %d bytes read' % (first.decode(errors='replace'), time.time() - t0, got) if not d else 'still reading'] += 1
    except OSError as e:
        slow_result['error %s after %.0f s' % (e.__class__.__name__, time.time() - t0)] += 1
    s.close()

def probe():
    s = None
    start = time.time()
    statuses = collections.Counter()
    while time.time() - start < secs:
        t0 = time.time()
        try:
            c = socket.create_connection(('127.0.0.1', port))
            c.sendall(head + body)
            f = c.makefile('rb')
            line = f.readline().decode().strip()
            n = 0
            hdr = {}
            while True:
                h = f.readline()
                if h in (b'\r\n', b''):
                    break
                k, _, v = h.decode().partition(':')
                hdr[k.lower()] = v.strip()
            status = line.split(' ')[1]
            if hdr.get('transfer-encoding') == 'chunked':
                while True:
                    size = int(f.readline().strip(), 16)
                    if size == 0:
                        f.readline(); break
                    n += len(f.read(size)); f.readline()
            else:
                n = len(f.read(int(hdr.get('content-length', '0'))))
            c.close()
        except OSError as e:
            status = 'error ' + e.__class__.__name__
        statuses[status] += 1
        print('%5.1f s  probe %s in %.2f s' % (t0 - start, status, time.time() - t0), flush=True)
        time.sleep(0.2)
    print('probe:', dict(statuses))

threads = [threading.Thread(target=slow, args=(i,)) for i in range(nslow)]
for t in threads: t.start()
time.sleep(1)
probe()
for t in threads: t.join()
print('slow readers:', dict(slow_result))
