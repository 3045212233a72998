// Package stream supplies training samples a chunk at a time, so that a
// data set larger than memory can be learned from while it stays on disk.
//
// A Source returns chunks of columns Y (d×b, one sample per column) with
// their labels until io.EOF, and Reset starts the next pass (epoch). The
// package has sources for a directory of shards (Dir: .npy pairs
// X_*.npy/y_*.npy or .npz files with fea and gnd), for one large .npy
// file read a block of rows at a time (NPY), for matrices already in
// memory (Dense) and for synthetic face-like data generated chunk by
// chunk (FaceLike). Errors name the shard or chunk they come from.
package stream
