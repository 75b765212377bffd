"""An ``ssh -o ProxyCommand=…`` that plays a balancer: it connects to the server, sends a
PROXY v2 header naming a client address of its choosing, then relays bytes both ways.

Usage: python proxy_relay.py PORT CLIENT_ADDRESS
"""

import os
import select
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from server.ssh.proxy_protocol import v2_header


def main() -> None:
    port, client = int(sys.argv[1]), sys.argv[2]
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(v2_header(client, 40000, "127.0.0.1", port))
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    while True:
        ready, _, _ = select.select([sock, stdin], [], [])
        if sock in ready:
            data = sock.recv(65536)
            if not data:
                return
            os.write(stdout, data)
        if stdin in ready:
            data = os.read(stdin, 65536)
            if not data:
                sock.shutdown(socket.SHUT_WR)
                stdin = -1
                continue
            sock.sendall(data)


if __name__ == "__main__":
    main()
