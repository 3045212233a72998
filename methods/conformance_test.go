package methods

// resolvedOpts returns o with its defaults applied (no data-aware ones).
func resolvedOpts[T any, P interface {
	*T
	spec() optSpec
}](o T) T {
	if err := P(&o).spec().resolve(nil); err != nil {
		panic(err)
	}
	return o
}
