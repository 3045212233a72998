# lrsdl build targets. `make test` needs only Go; `make test-openblas`
# needs cgo and libopenblas-dev (apt-get install -y libopenblas-dev).

GO ?= go
PKGS ?= ./...
BENCH ?= .
BENCHTIME ?= 1x

.PHONY: all test test-openblas vet bench bench-openblas demo fuzz reproduce

all: vet test

test:
	CGO_ENABLED=0 $(GO) test -count=1 $(PKGS)

test-openblas:
	CGO_ENABLED=1 $(GO) test -count=1 -tags openblas $(PKGS)

vet:
	@test -z "$$(gofmt -l .)" || (echo "gofmt needed:"; gofmt -l .; exit 1)
	CGO_ENABLED=0 $(GO) vet $(PKGS)
	CGO_ENABLED=1 $(GO) vet -tags openblas $(PKGS)

bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchtime $(BENCHTIME) $(PKGS)

bench-openblas:
	$(GO) test -tags openblas -run '^$$' -bench '$(BENCH)' -benchtime $(BENCHTIME) $(PKGS)

demo:
	$(GO) run ./cmd/lrsdl demo

# Reproduce the paper's experiments into $(REPRODUCE_OUT) (RESULTS.md + PNGs):
# the full run uses OpenBLAS and writes the committed bench/results; QUICK=1 is
# the reduced pure-Go run CI uses (< 5 min), written to out/reproduce-quick.
REPRODUCE_OUT ?= $(if $(QUICK),out/reproduce-quick,bench/results)
reproduce:
	$(if $(QUICK),CGO_ENABLED=0 $(GO) run ./bench/reproduce -quick,CGO_ENABLED=1 $(GO) run -tags openblas ./bench/reproduce) -out $(REPRODUCE_OUT)

# Run the Go benchmarks on both backends and write bench/RESULTS.md (OpenBLAS
# on one core and then two, in three passes over the packages: about 40 minutes).
BENCHRESULTS_TIME ?= 100ms
.PHONY: bench-results
bench-results:
	$(GO) run ./bench/benchresults -benchtime $(BENCHRESULTS_TIME) -out bench/RESULTS.md

# Time the sparse coder and OMP against scikit-learn's sparse_encode and
# orthogonal_mp on the same .npy problems, one thread each, and write
# bench/sparsecode/RESULTS.md. Benchmarks only (not CI): needs Debian's
# python3 with numpy and scikit-learn (apt-get install -y python3-sklearn
# python3-numpy). OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE are unset for this run
# alone so that numpy's OpenBLAS picks its own kernels.
SPARSECODE_DIR ?= out/sparsecode
SPARSECODE_REPS ?= 3
.PHONY: bench-sparsecode
bench-sparsecode:
	CGO_ENABLED=0 $(GO) build -o $(SPARSECODE_DIR)/bin-purego ./bench/sparsecode
	CGO_ENABLED=1 $(GO) build -tags openblas -o $(SPARSECODE_DIR)/bin-openblas ./bench/sparsecode
	$(SPARSECODE_DIR)/bin-purego -gen -dir $(SPARSECODE_DIR)
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 bench/sparsecode/run.py \
		--dir $(SPARSECODE_DIR) --go gonum=$(SPARSECODE_DIR)/bin-purego \
		--go openblas=$(SPARSECODE_DIR)/bin-openblas --reps $(SPARSECODE_REPS) \
		--out bench/sparsecode/RESULTS.md
