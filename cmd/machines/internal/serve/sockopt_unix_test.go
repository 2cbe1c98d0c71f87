//go:build unix

package serve

import "syscall"

// smallReceiveBuffer shrinks the receive buffer of the socket fd to 4 KiB
// before it connects, so that a client that does not read holds up the
// server's writes at once.
func smallReceiveBuffer(fd uintptr) {
	syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4<<10)
}
