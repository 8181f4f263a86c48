package proc

import "syscall"

// deathSignal has the kernel SIGKILL the process when mcp-eval dies without
// stopping it (a crash in a goroutine, the runtime's fatal error, SIGKILL),
// the ends no handler sees (prctl(2) PR_SET_PDEATHSIG). It reaches the
// leader only; a stdio server's own children then see their stdin close.
// The kernel ties it to the thread that started the process, which Go
// never ends unless a goroutine locked to it exits, and mcp-eval locks none.
func deathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
