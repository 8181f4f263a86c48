//go:build !linux

package proc

// BecomeSubreaper is Linux's alone (prctl(2)); elsewhere the process
// group and the tag are what find a server's processes.
func BecomeSubreaper() error { return nil }

// KillOrphans finds nothing where processes cannot be listed.
func KillOrphans() []Orphan { return nil }
