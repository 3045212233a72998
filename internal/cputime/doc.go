// Package cputime reads the CPU time a process has used and, on Linux,
// the time the hypervisor took from the machine's CPUs (steal). On a
// shared machine CPU time measures work where wall time also measures
// contention, and steal says how much of the contention came from outside.
package cputime
