package online

import (
	"testing"

	"github.com/lrsdl/lrsdl/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }
