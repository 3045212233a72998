// Package cputime reads the CPU time a process has used. On a shared
// machine it measures work where wall time also measures contention.
package cputime
