// Package blas is the BLAS layer of lrsdl: the choice of backend
// (UseOpenBLAS, Setup, Backend) and the hand-written kernels, operations on raw
// row-major storage (gonum's blas64.General) that run in place on
// preallocated buffers and never allocate once warm. They serve the 13
// methods of package methods (SRC, ODL, LC-KSVD1, LC-KSVD2, DLSI, COPAR,
// FDDL, D2L2R2, JDL, JDL*, DLRD, SRRS, LRSDL) and the solvers of package
// core.
//
// Backend: a binary built with -tags openblas links OpenBLAS, and
// UseOpenBLAS installs it in gonum's blas64 for level 3 (Level3), keeping
// gonum's levels 1 and 2, whose rounding does not depend on memory
// alignment (OpenBLAS). OpenBLAS always runs on one thread: a level-3 call
// of at least GemmThreadsMin multiply-adds is split into fixed chunks, each
// a one-thread call, that the cores share, because threaded OpenBLAS rounds
// differently with its thread count and its threads spin on the other cores
// after every call. An OpenBLAS older than the CPU may pick slow generic
// kernels; OpenBLASCoreHint names the OPENBLAS_CORETYPE that fits, and
// Setup (for the project's programs and tests) restarts the program with it.
//
// Kernels:
//
//   - MulM: M(A)·X, A with its diagonal blocks doubled, formed once per
//     call in a pooled buffer (when M(A) is reused, form it once with
//     DoubleDiagBlocks and call Gemm).
//   - AtB, SparseAtB, SparseAtBCSR: DᵀY for dense Y and for sparse Y in
//     github.com/james-bowman/sparse CSC or CSR form, read through the raw
//     arrays.
//   - SparseWorkspace.Mul: A·X for a mostly-zero X stored densely, switching
//     to Gemm above DensityCrossover(); SparseRowsMul: A·B for a mostly-zero
//     A kept one sample a row; NonZeros counts non-zeros.
//   - Gemm: blas64.Gemm split into fixed chunks of rows or columns of the
//     result, each one Gemm call, shared between the cores.
//   - MulThin: A·B for B of few columns by dot products that read A once
//     (the Z step of E-DLSI-D and E-COPAR-D, ρN·V with N d×d).
//   - ProxStep, SoftThreshold, BlockMeans: the fused FISTA step,
//     soft-thresholding and per-class column means.
//   - AddCombination: a weighted sum of rows added to a vector, skipping
//     zero weights (the ODL update's and LRSDL-X's small products).
//
// On amd64 with AVX, ProxStep and the four-axpy loop of AddCombination and
// of the sparse path run assembly kernels that round exactly as their portable loops (build
// tag noasm selects the loops everywhere); so does MulThin's dot kernel with
// AVX and FMA, its loops fusing through math.FMA.
//
// Dense products go through gonum's blas64, so they run on whichever BLAS
// the program installed with blas64.Use (UseOpenBLAS installs OpenBLAS in a build with -tags openblas;
// gonum's pure-Go BLAS is the default). Gemm, the sparse kernels, the
// compression of SparseWorkspace and ProxStep split large inputs over all
// cores in fixed chunks, on the worker pool of internal/parallel: every
// output element is computed by the same operations whatever GOMAXPROCS
// is, so results do not depend on it. Programmer errors (mismatched
// shapes) panic with a fixed message.
package blas
