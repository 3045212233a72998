package blas

import "testing"

func TestCoreHint(t *testing.T) {
	for _, c := range []struct {
		core         string
		avx512, avx2 bool
		want         string
	}{
		{"Prescott", true, true, "SkylakeX"},
		{"Prescott", false, true, "Haswell"},
		{"Prescott", false, false, ""},
		{"Sandybridge", false, true, "Haswell"},
		{"SkylakeX", true, true, ""},
		{"Haswell", false, true, ""},
		{"Zen", false, true, ""},
		{"Haswell", true, true, ""},
		{"Zen", true, true, "SkylakeX"},
		{"Cooperlake", true, true, ""},
	} {
		if got := coreHint(c.core, c.avx512, c.avx2); got != c.want {
			t.Errorf("coreHint(%q, %v, %v) = %q, want %q", c.core, c.avx512, c.avx2, got, c.want)
		}
	}
	if !OpenBLASLinked() && OpenBLASCoreHint() != "" {
		t.Errorf("pure-Go build hints at an OpenBLAS core %q", OpenBLASCoreHint())
	}
	if BackendDetail() == "" {
		t.Error("empty BackendDetail")
	}
}
