package core

import (
	"testing"

	"github.com/lrsdl/lrsdl/internal/coretype"
)

func TestMain(m *testing.M) { coretype.Main(m) }
