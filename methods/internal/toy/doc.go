// Package toy makes the small synthetic problems and comparisons that the
// tests of package methods and of its engines share.
package toy
