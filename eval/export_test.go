package eval

// Blobs is blobs for the tests of package eval_test.
var Blobs = blobs
