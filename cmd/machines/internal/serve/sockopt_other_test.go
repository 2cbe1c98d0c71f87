//go:build !unix && !windows

package serve

// smallReceiveBuffer leaves the socket as it is where the system has no
// socket options to set.
func smallReceiveBuffer(uintptr) {}
