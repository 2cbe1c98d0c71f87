// Package budget sizes work before it starts: it tells how much memory
// the machine has, and whether a run's estimated memory and time fit,
// with an error that says what the run would take and what the machine
// has, so that a setting too large is refused before any work is spent
// on it rather than exhausting memory or running for months.
package budget
