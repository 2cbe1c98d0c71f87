// Package atomicfile replaces files so that readers, and the file system after
// a crash, see either the old content or the new content, never a mixture.
//
// The new content is written to a temporary file in the destination's
// directory, flushed to stable storage and then renamed over the destination.
// Renaming within one directory is atomic on POSIX file systems, which is why
// the temporary file must not live elsewhere (for example in os.TempDir, which
// may be on another device).
//
// A process killed during a write (SIGKILL, a crash, a power cut) leaves
// its temporary file, ".BASE.tmp-PID-N", beside the destination. The next
// write of the same destination removes it when the process named by its
// PID no longer runs, or when no one has modified it for a day.
package atomicfile
