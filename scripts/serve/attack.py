#!/usr/bin/env python3
"""attack.py PORT [NAME...]: send each hostile request raw and print what came back (status line, body's start)."""
import socket, sys, time
port = int(sys.argv[1])
good = open('one.json').read()
P = '/v2/models/reg/infer'

def req(body, extra='', path=P, method='POST', cl=True):
    h = '%s %s HTTP/1.1\r\nHost: x\r\n' % (method, path)
    if cl: h += 'Content-Length: %d\r\n' % len(body.encode())
    return (h + extra + '\r\n').encode() + body.encode()

def inp(x1):  # x1's tensor as given, x2 good
    return '{"inputs":[%s,{"name":"x2","datatype":"FP64","shape":[1,1],"data":[0.2]}]}' % x1

attacks = {
 'CL and TE chunked': req('', 'Content-Length: 4\r\nTransfer-Encoding: chunked\r\n', cl=False) + ('%x\r\n%s\r\n0\r\n\r\n' % (len(good), good)).encode(),
 'TE chunked then CL': req('', 'Transfer-Encoding: chunked\r\nContent-Length: 4\r\n', cl=False) + ('%x\r\n%s\r\n0\r\n\r\n' % (len(good), good)).encode(),
 'two CL, same': req(good, 'Content-Length: %d\r\n' % len(good)),
 'two CL, different': req(good, 'Content-Length: 5\r\n'),
 'CL list "n, n"': req(good, cl=False, extra='Content-Length: %d, %d\r\n' % (len(good), len(good))),
 'TE xchunked': req('', 'Transfer-Encoding: xchunked\r\n', cl=False) + good.encode(),
 'TE gzip, chunked': req('', 'Transfer-Encoding: gzip, chunked\r\n', cl=False) + b'0\r\n\r\n',
 'TE identity': req(good, 'Transfer-Encoding: identity\r\n'),
 'smuggled GET after CL body': req(good) + b'GET /v2/models/reg HTTP/1.1\r\nHost: x\r\n\r\n',
 'CL with + sign': req(good, cl=False, extra='Content-Length: +%d\r\n' % len(good)),
 'CL negative': req(good, cl=False, extra='Content-Length: -1\r\n'),
 'CL huge': req('', cl=False, extra='Content-Length: 99999999999999999999\r\n'),
 'header 60 KiB': req(good, 'X-A: %s\r\n' % ('a' * 60000)),
 'header 70 KiB': req(good, 'X-A: %s\r\n' % ('a' * 70000)),
 '5000 headers': req(good, ''.join('X-%d: 1\r\n' % i for i in range(5000))),
 '20000 headers': req(good, ''.join('X%d:\r\n' % i for i in range(20000))),
 'h2c upgrade': req(good, 'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n'),
 'h2 preface': b'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
 'websocket upgrade': req('', 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n', method='GET', path='/v2'),
 'deep JSON in id': req('{"id":' + '['*5000 + '}'),
 'deep JSON in data': req(inp('{"name":"x1","datatype":"FP64","shape":[1,1],"data":' + '['*100 + '1' + ']'*100 + '}')),
 '"1e400" as string': req(inp('{"name":"x1","datatype":"FP64","shape":[1,1],"data":["1e400"]}')),
 '"-0" as string': req(inp('{"name":"x1","datatype":"FP64","shape":[1,1],"data":["-0"]}')),
 '"NaN" as string': req(inp('{"name":"x1","datatype":"FP64","shape":[1,1],"data":["NaN"]}')),
 '-0 number': req(inp('{"name":"x1","datatype":"FP64","shape":[1,1],"data":[-0]}')),
 '1e400 number': req(inp('{"name":"x1","datatype":"FP64","shape":[1,1],"data":[1e400]}')),
 '1e-400 number': req(inp('{"name":"x1","datatype":"FP64","shape":[1,1],"data":[1e-400]}')),
 'null number': req(inp('{"name":"x1","datatype":"FP64","shape":[1,1],"data":[null]}')),
 'true number': req(inp('{"name":"x1","datatype":"FP64","shape":[1,1],"data":[true]}')),
 'shape 2^32 x 2^32': req(inp('{"name":"x1","datatype":"FP64","shape":[4294967296,4294967296],"data":[1]}')),
 'shape 3037000500^2': req(inp('{"name":"x1","datatype":"FP64","shape":[3037000500,3037000500],"data":[1]}')),
 'shape 2^63': req(inp('{"name":"x1","datatype":"FP64","shape":[9223372036854775808,1],"data":[1]}')),
 'shape 1.5': req(inp('{"name":"x1","datatype":"FP64","shape":[1.5,1],"data":[1]}')),
 'shape 1e0': req(inp('{"name":"x1","datatype":"FP64","shape":[1e0,1],"data":[1]}')),
 'shape [0,1]': req('{"inputs":[{"name":"x1","datatype":"FP64","shape":[0,1],"data":[]},{"name":"x2","datatype":"FP64","shape":[0,1],"data":[]}]}'),
 'shape rows differ': req('{"inputs":[{"name":"x1","datatype":"FP64","shape":[2,1],"data":[1,2]},{"name":"x2","datatype":"FP64","shape":[1,1],"data":[1]}]}'),
 'BYTES for FP64': req(inp('{"name":"x1","datatype":"BYTES","shape":[1,1],"data":["0.1"]}')),
 'FP16': req(inp('{"name":"x1","datatype":"FP16","shape":[1,1],"data":[0.1]}')),
 'FP32 for FP64': req(inp('{"name":"x1","datatype":"FP32","shape":[1,1],"data":[0.1]}')),
 'INT64 for FP64': req(inp('{"name":"x1","datatype":"INT64","shape":[1,1],"data":[1]}')),
 'BOOL for FP64': req(inp('{"name":"x1","datatype":"BOOL","shape":[1,1],"data":[true]}')),
 'lowercase fp64': req(inp('{"name":"x1","datatype":"fp64","shape":[1,1],"data":[0.1]}')),
 'data longer': req(inp('{"name":"x1","datatype":"FP64","shape":[1,1],"data":[0.1,0.2]}')),
 'data shorter': req(inp('{"name":"x1","datatype":"FP64","shape":[2,1],"data":[0.1]}')),
 'nested data wrong': req(inp('{"name":"x1","datatype":"FP64","shape":[1,1],"data":[[0.1,0.2]]}')),
 'id 3 MB': req('{"id":"%s",%s' % ('i' * 3000000, good[1:])),
 'id escapes': req('{"id":"%s",%s' % ('\\u0000\\ud800"' [:0] + '\\u0000' * 100000, good[1:])),
 'id lone surrogate': req('{"id":"\\ud800",%s' % good[1:]),
 'id number': req('{"id":5,%s' % good[1:]),
 'duplicate key inputs': req('{"inputs":[],%s' % good[1:]),
}

def send(data, timeout=10):
    s = socket.create_connection(('127.0.0.1', port), timeout=timeout)
    t0 = time.time()
    try:
        s.sendall(data)
    except OSError as e:
        pass
    out = b''
    try:
        while True:
            d = s.recv(1 << 16)
            if not d: break
            out += d
            if len(out) > 1 << 24: break
    except socket.timeout:
        pass
    except OSError as e:
        out += ('[%s]' % e.__class__.__name__).encode()
    s.close()
    return out, time.time() - t0

names = sys.argv[2:] or list(attacks)
for n in names:
    out, dt = send(attacks[n], timeout=3)
    responses = out.count(b'HTTP/1.1 ')
    first = out.split(b'\r\n', 1)[0].decode(errors='replace')
    body = out.split(b'\r\n\r\n', 1)[1] if b'\r\n\r\n' in out else b''
    print('%-28s %-34s %d resp %6.2fs %s' % (n, first[:34], responses, dt, body[:150].decode(errors='replace').replace('\n', ' ')))
