package io.jslirp.it;

/** Python programs the ITs run in the guest's namespace, where more than one IT asks the same. */
final class GuestProbes {
    private GuestProbes() {}

    /**
     * PORT [ADDRESS]: a connected UDP socket to a closed port (of fd00::2, or ADDRESS, IPv4 or IPv6)
     * must see "connection refused": the host's ICMP error came back to the guest as port unreachable.
     */
    static final String UDP_CLOSED_PORT_CLIENT = """
            import socket, sys
            address = sys.argv[2] if len(sys.argv) > 2 else 'fd00::2'
            s = socket.socket(socket.AF_INET6 if ':' in address else socket.AF_INET, socket.SOCK_DGRAM)
            s.connect((address, int(sys.argv[1])))
            s.settimeout(0.5)
            for attempt in range(6):
                try:
                    s.send(b'anyone?')
                    s.recv(100)
                    print('answered')
                    sys.exit(2)
                except ConnectionRefusedError:
                    print('refused', attempt)
                    sys.exit(0)
                except socket.timeout:
                    continue
            print('no answer')
            sys.exit(1)
            """;
}
