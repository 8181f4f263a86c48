//go:build unix && !linux

package proc

import "syscall"

// deathSignal: only Linux and FreeBSD have a parent-death signal, and
// mcp-eval's release builds for Unix are Linux and macOS.
func deathSignal(*syscall.SysProcAttr) {}
