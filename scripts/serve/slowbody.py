#!/usr/bin/env python3
"""slowbody.py PORT N SECONDS: N clients announce 4 MiB bodies and send 1 KiB a second; a probe sends one.json one at a time."""
import os, socket, sys, time, threading, subprocess
port, n, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
def slow():
    s = socket.create_connection(('127.0.0.1', port))
    s.sendall(b'POST /v2/models/reg/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 4000000\r\n\r\n{"inputs":[')
    t0 = time.time()
    try:
        while time.time() - t0 < secs + 2:
            s.sendall(b' ' * 1024); time.sleep(1)
    except OSError: pass
for _ in range(n): threading.Thread(target=slow, daemon=True).start()
time.sleep(1)
print(subprocess.run(['python3', os.path.join(os.path.dirname(sys.argv[0]), 'probe.py'), str(port), str(secs), 'one.json'], capture_output=True, text=True).stdout.strip())
