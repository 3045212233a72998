package methods

import (
	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// base is the plumbing the models embed: what their last Fit reported, and
// the settings of the engines that train them.
type base struct {
	info lrsdl.FitInfo // of the last Fit
	set  dl.Settings   // the engines' paths; tests and benchmarks change them
	calib
}

// FitInfo describes the last call of Fit.
func (b *base) FitInfo() lrsdl.FitInfo { return b.info }

// settings returns the settings of the engines, which tests and benchmarks
// change to compare paths.
func (b *base) settings() *dl.Settings { return &b.set }
